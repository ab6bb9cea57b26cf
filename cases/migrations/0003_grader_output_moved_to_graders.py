# The grader output models now belong to `graders` (graders.0003_grader_output_moved_from_cases took
# them over with their tables): drop them from cases' state only; the tables and rows stay.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("cases", "0002_import_job"),
        ("graders", "0003_grader_output_moved_from_cases"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="GraderDecision"),
                migrations.DeleteModel(name="JudgeScore"),
                migrations.DeleteModel(name="PairwiseJudgement"),
                migrations.DeleteModel(name="GraderRun"),
            ],
            database_operations=[],
        ),
    ]
