"""Issue 11: edit after submission (study edit window; EDITED, RELEASED, ADMITTED events), calibration
items (item status `calibration` with expected answers), a study's calibration threshold and each
rater's admission. Schema only: existing items, studies and members keep their meaning (members of
studies without calibration items are never held)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0010_bilingual_text_and_translation_consistency"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="edit_window_minutes",
            field=models.PositiveIntegerField(
                blank=True, null=True,
                help_text="Minutes after submitting during which a rater may still edit (empty: until "
                "inspection starts)",
            ),
        ),
        migrations.AddField(
            model_name="study",
            name="calibration_threshold",
            field=models.FloatField(
                blank=True, null=True,
                help_text="Share of calibration labels matching the expected answer that admits a rater "
                "automatically, 0..1 (empty: an admin admits)",
            ),
        ),
        migrations.AddField(
            model_name="studymember",
            name="admitted_at",
            field=models.DateTimeField(
                blank=True, null=True,
                help_text="Raters of a study with calibration items: when they were admitted to the main queue",
            ),
        ),
        migrations.AlterField(
            model_name="item",
            name="status",
            field=models.CharField(
                choices=[("open", "Collecting ratings"), ("inspection", "Awaiting inspection"),
                         ("returned", "Returned for revision"), ("resolved", "Resolved"),
                         ("calibration", "Calibration item")],
                default="open", max_length=12,
            ),
        ),
        migrations.AddField(
            model_name="item",
            name="expected",
            field=models.JSONField(blank=True, default=dict, help_text="Calibration items: the expected answers"),
        ),
        migrations.AlterField(
            model_name="reviewevent",
            name="kind",
            field=models.CharField(choices=[("claimed", "Claimed"), ("drafted", "Drafted"), ("submitted", "Submitted"), ("skipped", "Skipped"), ("expired", "Expired"), ("sent_to_inspection", "Sent To Inspection"), ("accepted", "Accepted"), ("returned", "Returned"), ("revised", "Revised"), ("adjudicated", "Adjudicated"), ("resolved", "Resolved by consensus"), ("exported", "Exported (labels or audit trail)"), ("curated", "Curated into a new release"), ("edited", "Edited after submission"), ("released", "Released by the rater"), ("admitted", "Admitted after calibration")], max_length=20),  # noqa: E501
        ),
    ]
