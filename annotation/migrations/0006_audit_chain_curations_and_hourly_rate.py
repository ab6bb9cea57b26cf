# Issue 14: the audit trail becomes a hash chain per study (existing events are numbered and hashed
# in the order they were written, and their actor's pseudonym is recorded), events about a whole
# study (exports, curations) need no item, studies get an hourly rate, and curations are recorded.

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from annotation.models.chain import GENESIS_HASH, event_hash, timestamp

BATCH = 2000


def chain_existing_events(apps, schema_editor):
    """Number and hash every existing event per study, in (created_at, id) order; record the heads."""
    ReviewEvent = apps.get_model("annotation", "ReviewEvent")
    Item = apps.get_model("annotation", "Item")
    Profile = apps.get_model("accounts", "Profile")
    AuditChainHead = apps.get_model("annotation", "AuditChainHead")
    study_of = dict(Item.objects.values_list("pk", "study_id"))
    pseudonyms = dict(Profile.objects.values_list("user_id", "pseudonym"))
    heads: dict[int, tuple[int, str]] = {}
    batch = []
    events = ReviewEvent.objects.order_by("created_at", "pk")
    for event in events.iterator(chunk_size=BATCH):
        event.study_id = study_of[event.item_id]
        if event.actor_id is not None:
            event.actor_pseudonym = pseudonyms.get(event.actor_id) or f"R-{event.actor_id}"
        seq, previous = heads.get(event.study_id, (0, GENESIS_HASH))
        event.seq, event.prev_hash = seq + 1, previous
        event.hash = event_hash({
            "study": event.study_id, "seq": event.seq, "item": event.item_id, "assignment": event.assignment_id,
            "actor": event.actor_pseudonym or None, "kind": event.kind, "reason": event.reason,
            "data": event.data, "created_at": timestamp(event.created_at),
        }, previous)
        heads[event.study_id] = (event.seq, event.hash)
        batch.append(event)
        if len(batch) >= BATCH:
            ReviewEvent.objects.bulk_update(batch, ["study", "actor_pseudonym", "seq", "prev_hash", "hash"])
            batch = []
    if batch:
        ReviewEvent.objects.bulk_update(batch, ["study", "actor_pseudonym", "seq", "prev_hash", "hash"])
    AuditChainHead.objects.bulk_create(
        AuditChainHead(study_id=study, seq=seq, hash=digest) for study, (seq, digest) in heads.items()
    )


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0005_profile_moved_to_accounts"),
        ("accounts", "0001_initial"),
        ("cases", "0003_grader_output_moved_to_graders"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="hourly_rate",
            field=models.DecimalField(blank=True, decimal_places=2, help_text="Cost of one hour of active review, for the effort and cost report (e.g. 24.00)", max_digits=8, null=True),
        ),
        migrations.AddField(
            model_name="study",
            name="currency",
            field=models.CharField(default="USD", max_length=3),
        ),
        migrations.CreateModel(
            name="AuditChainHead",
            fields=[
                ("study", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name="audit_head", serialize=False, to="annotation.study")),
                ("seq", models.PositiveIntegerField(default=0)),
                ("hash", models.CharField(default="0000000000000000000000000000000000000000000000000000000000000000", max_length=64)),
            ],
        ),
        migrations.AddField(
            model_name="reviewevent",
            name="study",
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT, related_name="events", to="annotation.study"),
        ),
        migrations.AddField(
            model_name="reviewevent",
            name="actor_pseudonym",
            field=models.CharField(blank=True, help_text="The actor's pseudonym when written", max_length=32),
        ),
        migrations.AddField(
            model_name="reviewevent",
            name="seq",
            field=models.PositiveIntegerField(blank=True, help_text="Position in the study's chain, from 1; empty until sealed", null=True),
        ),
        migrations.AddField(
            model_name="reviewevent",
            name="prev_hash",
            field=models.CharField(blank=True, help_text="Hash of the study's previous event", max_length=64),
        ),
        migrations.AddField(
            model_name="reviewevent",
            name="hash",
            field=models.CharField(blank=True, help_text="SHA-256 of prev_hash and this event", max_length=64),
        ),
        migrations.AlterField(
            model_name="reviewevent",
            name="created_at",
            field=models.DateTimeField(default=django.utils.timezone.now, editable=False),
        ),
        migrations.AlterField(
            model_name="reviewevent",
            name="item",
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="events", to="annotation.item"),
        ),
        migrations.AlterField(
            model_name="reviewevent",
            name="assignment",
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="events", to="annotation.assignment"),
        ),
        migrations.AlterField(
            model_name="reviewevent",
            name="kind",
            field=models.CharField(choices=[("claimed", "Claimed"), ("drafted", "Drafted"), ("submitted", "Submitted"), ("skipped", "Skipped"), ("expired", "Expired"), ("sent_to_inspection", "Sent To Inspection"), ("accepted", "Accepted"), ("returned", "Returned"), ("revised", "Revised"), ("adjudicated", "Adjudicated"), ("resolved", "Resolved by consensus"), ("exported", "Exported (labels or audit trail)"), ("curated", "Curated into a new release")], max_length=20),
        ),
        migrations.RunPython(chain_existing_events, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="reviewevent",
            name="study",
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="events", to="annotation.study"),
        ),
        migrations.AddConstraint(
            model_name="reviewevent",
            constraint=models.UniqueConstraint(fields=("study", "seq"), name="reviewevent_unique_seq"),
        ),
        migrations.CreateModel(
            name="Curation",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(help_text="e.g. v202601-reviewed", max_length=100, unique=True)),
                ("format", models.CharField(max_length=32)),
                ("rules", models.JSONField(blank=True, default=dict)),
                ("manifest", models.JSONField(blank=True, default=dict)),
                ("files", models.JSONField(blank=True, default=dict, help_text="file name -> SHA-256")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("created_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
                ("release", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="curations", to="cases.release")),
                ("studies", models.ManyToManyField(related_name="curations", to="annotation.study")),
            ],
            options={"ordering": ["-created_at", "-pk"]},
        ),
    ]
