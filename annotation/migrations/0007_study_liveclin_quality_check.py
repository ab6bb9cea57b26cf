# LiveClin quality check (issue 10): the "show the pre-screen" option and the minimum inspector rank.
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0006_audit_chain_curations_and_hourly_rate"),
    ]

    operations = [
        migrations.AddField(
            model_name="study",
            name="show_prescreen",
            field=models.BooleanField(
                default=False, help_text="Show the Judge's pre-screen verdicts to raters (LiveClin question sets)"
            ),
        ),
        migrations.AddField(
            model_name="study",
            name="min_inspector_rank",
            field=models.CharField(
                blank=True, help_text="Lowest rank allowed to inspect (empty: any inspector)", max_length=16
            ),
        ),
    ]
