# Profile now belongs to `accounts` (accounts.0001_initial took it over with its table):
# drop it from annotation's migration state only; the table and its rows stay.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0004_orderings_without_joins"),
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="Profile")],
            database_operations=[],
        ),
    ]
