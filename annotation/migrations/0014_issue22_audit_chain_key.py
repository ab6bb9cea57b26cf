"""Issue 22, finding 6: the audit chain keyed (key id and seal time per event, seal time of the head)
and, on PostgreSQL, triggers that refuse changing or deleting a sealed review event and moving a
chain's head back, whatever the application's code does (docs/deployment.md, "The audit trail")."""

from django.db import migrations, models

APPEND_ONLY_SQL = """
CREATE OR REPLACE FUNCTION annotation_reviewevent_append_only() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'review events are append-only: DELETE refused' USING ERRCODE = '42501';
    END IF;
    -- Sealing fills an event's place in the chain once: seq, prev_hash, hash, sealed_at, key_id.
    IF OLD.seq IS NULL AND NEW.seq IS NOT NULL
       AND NEW.id = OLD.id AND NEW.study_id = OLD.study_id
       AND NEW.item_id IS NOT DISTINCT FROM OLD.item_id
       AND NEW.assignment_id IS NOT DISTINCT FROM OLD.assignment_id
       AND NEW.actor_id IS NOT DISTINCT FROM OLD.actor_id
       AND NEW.actor_pseudonym = OLD.actor_pseudonym AND NEW.kind = OLD.kind AND NEW.reason = OLD.reason
       AND NEW.data = OLD.data AND NEW.created_at = OLD.created_at THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'review events are append-only: UPDATE refused' USING ERRCODE = '42501';
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER annotation_reviewevent_append_only BEFORE UPDATE OR DELETE ON annotation_reviewevent
    FOR EACH ROW EXECUTE FUNCTION annotation_reviewevent_append_only();

CREATE OR REPLACE FUNCTION annotation_auditchainhead_forward_only() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' AND OLD.seq > 0 THEN
        RAISE EXCEPTION 'an audit chain head is never deleted' USING ERRCODE = '42501';
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.seq < OLD.seq THEN
        RAISE EXCEPTION 'an audit chain head never moves back' USING ERRCODE = '42501';
    END IF;
    RETURN COALESCE(NEW, OLD);
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER annotation_auditchainhead_forward_only BEFORE UPDATE OR DELETE ON annotation_auditchainhead
    FOR EACH ROW EXECUTE FUNCTION annotation_auditchainhead_forward_only();
"""

DROP_SQL = """
DROP TRIGGER IF EXISTS annotation_reviewevent_append_only ON annotation_reviewevent;
DROP FUNCTION IF EXISTS annotation_reviewevent_append_only();
DROP TRIGGER IF EXISTS annotation_auditchainhead_forward_only ON annotation_auditchainhead;
DROP FUNCTION IF EXISTS annotation_auditchainhead_forward_only();
"""


def install_triggers(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(APPEND_ONLY_SQL)


def drop_triggers(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_SQL)


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0013_issue20_set_rejection_and_judge_pins"),
    ]

    operations = [
        migrations.AddField(
            model_name="auditchainhead",
            name="sealed_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="reviewevent",
            name="key_id",
            field=models.CharField(blank=True, help_text="The AUDIT_CHAIN_KEYS key its hash is keyed with", max_length=32),
        ),
        migrations.AddField(
            model_name="reviewevent",
            name="sealed_at",
            field=models.DateTimeField(blank=True, help_text="When it joined the chain (since issue 22)", null=True),
        ),
        migrations.RunPython(install_triggers, drop_triggers),
    ]
