"""Issue 11: the 1-5 Likert categories no longer say "see the axis rubric"; the rating screen shows
each MEDIC axis's own anchor for every score beside the axis (annotation.i18n.axis_anchors). The
catalogue holds the new descriptions in both languages; this syncs existing databases."""

from django.db import migrations

from annotation.catalogue import sync_catalogue


def sync(apps, schema_editor):
    sync_catalogue(
        scale_model=apps.get_model("annotation", "Scale"),
        category_model=apps.get_model("annotation", "ScaleCategory"),
        task_model=apps.get_model("annotation", "TaskType"),
        translations=True,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0011_edits_and_calibration"),
    ]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
