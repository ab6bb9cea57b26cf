"""The scales and task types medreview ships, as defined in `annotation.catalogue`.

The definitions live in code, once (pure Python, no models, so a migration may import it); this
migration writes them with the historical models. On databases that ran it before the catalogue
existed it does not run again, and it wrote exactly what the catalogue holds (the catalogue was
made from this migration's former literal tables). A later change to the catalogue ships in a new
data migration calling `sync_catalogue` again.
"""

from django.db import migrations

from annotation.catalogue import SHIPPED_SCALES, SHIPPED_TASKS, sync_catalogue


def ship(apps, schema_editor):
    sync_catalogue(
        scale_model=apps.get_model("annotation", "Scale"),
        category_model=apps.get_model("annotation", "ScaleCategory"),
        task_model=apps.get_model("annotation", "TaskType"),
    )


def unship(apps, schema_editor):
    TaskType = apps.get_model("annotation", "TaskType")
    Scale = apps.get_model("annotation", "Scale")
    TaskType.objects.filter(slug__in=[t.slug for t in SHIPPED_TASKS], ratings__isnull=True).delete()
    Scale.objects.filter(slug__in=[s.slug for s in SHIPPED_SCALES], tasks__isnull=True).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0002_final_label_consensus_and_leased_drafts"),
    ]

    operations = [migrations.RunPython(ship, unship)]
