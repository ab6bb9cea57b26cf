"""Approval as LiveMedBench publishes it, and no approval on the Likert scale (issue 13).

LiveMedBench Sec. 4.1 / Table 1: on the two 0-2 scales "scores >= 1 denote approval", so "1" (Good)
approves as well as "2" (Perfect). A Likert score is a position on a 1-5 scale, not an approval:
none of its categories approves, and reports show no approval rate for it. The catalogue
(`annotation/catalogue.py`) holds the same flags for new databases; this migration updates the
shipped categories of existing ones (only the `approves` flag, only on the shipped scales).
"""

from django.db import migrations

CHANGES = {
    # scale slug -> {category value: approves}
    "quality-0-2": {"1": True},
    "advice-0-2": {"1": True},
    "likert-1-5": {"4": False, "5": False},
}


def forward(apps, schema_editor):
    ScaleCategory = apps.get_model("annotation", "ScaleCategory")
    for scale, values in CHANGES.items():
        for value, approves in values.items():
            ScaleCategory.objects.filter(scale__slug=scale, value=value).update(approves=approves)


def backward(apps, schema_editor):
    ScaleCategory = apps.get_model("annotation", "ScaleCategory")
    for scale, values in CHANGES.items():
        for value, approves in values.items():
            ScaleCategory.objects.filter(scale__slug=scale, value=value).update(approves=not approves)


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0008_expert_groups_and_imported_labels"),
    ]

    operations = [migrations.RunPython(forward, backward)]
