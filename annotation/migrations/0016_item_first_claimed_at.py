"""Issue 26: when each item was first given to a rater, so the queue finds started items by index."""
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def first_claims(apps, schema_editor):
    """Items already handed out: when their first assignment was claimed (one UPDATE)."""
    Item = apps.get_model("annotation", "Item")
    Assignment = apps.get_model("annotation", "Assignment")
    first = Assignment.objects.filter(item=OuterRef("pk")).order_by("claimed_at").values("claimed_at")[:1]
    Item.objects.filter(assignments__isnull=False).update(first_claimed_at=Subquery(first))


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0015_issue23_event_kinds_and_scale_terms'),
        ('cases', '0008_taxonomies_and_ai_labels'),
    ]

    operations = [
        migrations.AddField(
            model_name='item',
            name='first_claimed_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(first_claims, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name='item',
            index=models.Index(condition=models.Q(('first_claimed_at__isnull', False), ('status', 'open')), fields=['study', 'id'], name='item_open_started_idx'),
        ),
    ]
