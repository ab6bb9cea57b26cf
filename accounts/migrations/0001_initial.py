# Profile moves here from `annotation` with its table (`annotation_profile`): only Django's
# migration state changes, no SQL touches the rows. `annotation.0005_profile_moved_to_accounts`
# removes it from annotation's state afterwards.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def move_content_type(apps, schema_editor):
    """Keep the admin permissions granted on the model: its content type changes app, not id."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    if not ContentType.objects.using(db).filter(app_label="accounts", model="profile").exists():
        ContentType.objects.using(db).filter(app_label="annotation", model="profile").update(app_label="accounts")


def restore_content_type(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    if not ContentType.objects.using(db).filter(app_label="annotation", model="profile").exists():
        ContentType.objects.using(db).filter(app_label="accounts", model="profile").update(app_label="annotation")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("annotation", "0004_orderings_without_joins"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Profile",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("role", models.CharField(choices=[("physician", "Physician"), ("inspector", "Inspector (senior physician)"), ("researcher", "Researcher"), ("admin", "Admin")], default="physician", max_length=16)),
                        ("specialties", models.JSONField(blank=True, default=list)),
                        ("languages", models.JSONField(blank=True, default=list, help_text='e.g. ["en", "zh"]')),
                        ("rank", models.CharField(blank=True, choices=[("attending", "Attending"), ("associate_chief", "Associate Chief"), ("chief", "Chief")], max_length=16)),
                        ("pseudonym", models.CharField(help_text="Stable name under which researchers see this rater", max_length=32, unique=True)),
                        ("user", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="profile", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={"db_table": "annotation_profile"},
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_type, restore_content_type),
    ]
