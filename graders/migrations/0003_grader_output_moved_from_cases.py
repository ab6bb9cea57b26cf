# The grader output models (GraderRun, GraderDecision, JudgeScore, PairwiseJudgement) move here from
# `cases` with their tables (`cases_graderrun`, ...): only Django's migration state changes, no SQL
# touches the rows. `cases.0003_grader_output_moved_to_graders` then drops them from cases' state.

import django.db.models.deletion
from django.db import migrations, models

MOVED = ["graderrun", "graderdecision", "judgescore", "pairwisejudgement"]


def _move_content_types(apps, schema_editor, source, target):
    """Keep admin permissions granted on these models: their content types change app, not id."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    for model in MOVED:
        if not ContentType.objects.using(db).filter(app_label=target, model=model).exists():
            ContentType.objects.using(db).filter(app_label=source, model=model).update(app_label=target)


def forward(apps, schema_editor):
    _move_content_types(apps, schema_editor, "cases", "graders")


def backward(apps, schema_editor):
    _move_content_types(apps, schema_editor, "graders", "cases")


class Migration(migrations.Migration):

    dependencies = [
        ("cases", "0002_import_job"),
        ("graders", "0002_runner_slots"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='GraderRun',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(help_text="Shown in reports, e.g. 'GPT-4.1 rubric grader'", max_length=200)),
                        ('kind', models.CharField(choices=[('rubric-grader', 'Rubric grader (one criterion per call)'), ('llm-judge', 'LLM-as-judge (holistic score)'), ('likert-judge', 'Likert judge (1-5 per axis)'), ('pairwise-judge', 'Pairwise judge (A / B / tie)')], max_length=20)),
                        ('grader_model', models.CharField(max_length=200)),
                        ('prompt_version', models.CharField(blank=True, max_length=100)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('release', models.ForeignKey(blank=True, help_text='Set when the decisions were imported from a file', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='grader_runs', to='cases.release')),
                    ],
                    options={
                        'db_table': 'cases_graderrun',
                        'ordering': ['-created_at'],
                    },
                ),
                migrations.AlterField(
                    model_name='gradingjob',
                    name='run',
                    field=models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='grading_job', to='graders.graderrun'),
                ),
                migrations.CreateModel(
                    name='GraderDecision',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('raw_output', models.TextField(blank=True)),
                        ('reasoning', models.TextField(blank=True, help_text='Reasoning or the quoted evidence')),
                        ('error', models.TextField(blank=True)),
                        ('latency_ms', models.PositiveIntegerField(blank=True, null=True)),
                        ('input_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('output_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('attempts', models.PositiveSmallIntegerField(default=1)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('verdict', models.CharField(choices=[('met', 'Met'), ('not_met', 'Not met'), ('invalid', 'Invalid output'), ('failed', 'Failed (no answer after retries)')], max_length=8)),
                        ('criterion', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='grader_decisions', to='cases.rubriccriterion')),
                        ('response', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='grader_decisions', to='cases.modelresponse')),
                        ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='decisions', to='graders.graderrun')),
                    ],
                    options={
                        'db_table': 'cases_graderdecision',
                        'ordering': ['run', 'response', 'criterion'],
                        'constraints': [models.UniqueConstraint(fields=('run', 'response', 'criterion'), name='decision_unique')],
                    },
                ),
                migrations.CreateModel(
                    name='JudgeScore',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('raw_output', models.TextField(blank=True)),
                        ('reasoning', models.TextField(blank=True, help_text='Reasoning or the quoted evidence')),
                        ('error', models.TextField(blank=True)),
                        ('latency_ms', models.PositiveIntegerField(blank=True, null=True)),
                        ('input_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('output_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('attempts', models.PositiveSmallIntegerField(default=1)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('axis', models.CharField(blank=True, max_length=100)),
                        ('status', models.CharField(choices=[('met', 'Met'), ('not_met', 'Not met'), ('invalid', 'Invalid output'), ('failed', 'Failed (no answer after retries)')], default='met', help_text='met = a valid score; invalid / failed otherwise', max_length=8)),
                        ('raw_score', models.FloatField(blank=True, null=True)),
                        ('normalized_score', models.FloatField(blank=True, help_text='In [0, 1]', null=True)),
                        ('response', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='judge_scores', to='cases.modelresponse')),
                        ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='scores', to='graders.graderrun')),
                    ],
                    options={
                        'db_table': 'cases_judgescore',
                        'ordering': ['run', 'response', 'axis'],
                        'constraints': [models.UniqueConstraint(fields=('run', 'response', 'axis'), name='judgescore_unique'), models.CheckConstraint(condition=models.Q(('normalized_score__isnull', True), models.Q(('normalized_score__gte', 0), ('normalized_score__lte', 1)), _connector='OR'), name='judgescore_normalized_range')],
                    },
                ),
                migrations.CreateModel(
                    name='PairwiseJudgement',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('raw_output', models.TextField(blank=True)),
                        ('reasoning', models.TextField(blank=True, help_text='Reasoning or the quoted evidence')),
                        ('error', models.TextField(blank=True)),
                        ('latency_ms', models.PositiveIntegerField(blank=True, null=True)),
                        ('input_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('output_tokens', models.PositiveIntegerField(blank=True, null=True)),
                        ('attempts', models.PositiveSmallIntegerField(default=1)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('order', models.CharField(choices=[('ab', 'A shown first'), ('ba', 'B shown first')], max_length=2)),
                        ('verdict', models.CharField(choices=[('A', 'A is better'), ('B', 'B is better'), ('tie', 'Tie'), ('invalid', 'Invalid output'), ('failed', 'Failed')], max_length=8)),
                        ('response_a', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cases.modelresponse')),
                        ('response_b', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='cases.modelresponse')),
                        ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pairwise', to='graders.graderrun')),
                    ],
                    options={
                        'db_table': 'cases_pairwisejudgement',
                        'constraints': [models.UniqueConstraint(fields=('run', 'response_a', 'response_b', 'order'), name='pairwise_unique')],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(forward, backward),
    ]
