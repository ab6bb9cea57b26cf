"""Issue 22, finding 6: the audit trail misses no admin edit and is anchored outside the database.

Review state is read-only in the Django admin; the chain is keyed (HMAC with AUDIT_CHAIN_KEYS,
rotatable, key id per event); its head rides in every export, every curated release's manifest and
the `medreview.audit` log; sealing refuses what raw SQL left behind; `verify_audit_trail` checks the
database directly as well as a file, one tampering one finding, times never going backwards; on
PostgreSQL triggers refuse UPDATE and DELETE of sealed events and moving a head back.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import logging
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook

from annotation.models import (
    Assignment,
    AuditChainBroken,
    AuditChainHead,
    Item,
    ReviewEvent,
    seal_audit_chain,
)
from annotation.models.chain import event_hash, timestamp, verify_lines
from annotation.outcomes.audit import event_records, events_jsonl
from annotation.outcomes.curation.service import curation_create
from annotation.outcomes.responses import history_url
from cases.exporters import CurationRules
from tests.annotation.builders import api_client_for
from tests.annotation.outcomes.builders import adjudicate, import_fixture, rate_everything, study_on
from tests.annotation.outcomes.test_audit_trail import agree_except_d004

pytestmark = pytest.mark.django_db
KEY_1 = "k" * 40
KEY_2 = "q" * 40


@pytest.fixture
def keyed(settings):
    settings.AUDIT_CHAIN_KEYS = {"2026a": KEY_1}
    return settings


@pytest.fixture
def reviewed(keyed, admin, physician_a, physician_b, inspector):
    release = import_fixture("livemedbench", "livemedbench_cases.json", dataset="LiveMedBench", label="v202601")
    study = study_on(release, admin, tasks=["narrative-quality"], raters=[physician_a, physician_b],
                     inspectors=[inspector])
    rate_everything(study, physician_a, agree_except_d004("a"), seconds=90)
    rate_everything(study, physician_b, agree_except_d004("b"), seconds=30)
    adjudicate(study, inspector, agree_except_d004("b"))
    seal_audit_chain(study.pk)
    return study


def trail(study) -> list[str]:
    return list(events_jsonl(event_records(study)))


def verify(*args: str) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("verify_audit_trail", *args, stdout=out)
    except SystemExit as exit_:
        return int(exit_.code or 0), out.getvalue()
    return 0, out.getvalue()


def raw(sql: str, params: list) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def last_seq(study) -> int:
    return AuditChainHead.objects.get(study=study).seq


# --- the Django admin -------------------------------------------------------------------------------


@pytest.fixture
def superuser():
    return get_user_model().objects.create_superuser("root", "root@example.org", "pw-root-2026")


def test_it_keeps_assignments_and_items_read_only_in_the_admin(reviewed, superuser, client, physician_b) -> None:
    client.force_login(superuser)
    assignment = Assignment.objects.filter(item__study=reviewed).first()
    item = Item.objects.filter(study=reviewed).first()
    before = (assignment.rater_id, item.status, ReviewEvent.objects.count())
    change = client.post(reverse("admin:annotation_assignment_change", args=[assignment.pk]),
                         {"item": assignment.item_id, "rater": physician_b.pk, "state": "claimed", "round": 1})
    assert change.status_code == 403
    change = client.post(reverse("admin:annotation_item_change", args=[item.pk]), {"status": "open"})
    assert change.status_code == 403
    for name, pk in (("assignment", assignment.pk), ("item", item.pk)):
        assert client.post(reverse(f"admin:annotation_{name}_delete", args=[pk]), {"post": "yes"}).status_code == 403
        assert client.get(reverse(f"admin:annotation_{name}_change", args=[pk])).status_code == 200  # readable
    assignment.refresh_from_db()
    item.refresh_from_db()
    assert (assignment.rater_id, item.status, ReviewEvent.objects.count()) == before


def test_it_keeps_a_studys_status_read_only_in_the_admin(reviewed, superuser, client) -> None:
    client.force_login(superuser)
    page = client.get(reverse("admin:annotation_study_change", args=[reviewed.pk])).content.decode()
    assert 'name="status"' not in page


# --- the key ----------------------------------------------------------------------------------------


def test_it_keys_every_new_event_with_the_current_key(reviewed) -> None:
    lines = trail(reviewed)
    events = [json.loads(line) for line in lines]
    assert {e["key_id"] for e in events} == {"2026a"}
    first = events[0]
    message = first["prev_hash"].encode() + b"\n" + json.dumps(
        {k: first[k] for k in ("study", "seq", "item", "assignment", "actor", "kind", "reason", "data", "created_at",
                               "sealed_at", "key_id")},
        sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
    assert first["hash"] == hmac.new(KEY_1.encode(), message, hashlib.sha256).hexdigest()
    assert verify_lines(lines, keys={"2026a": KEY_1.encode()}).ok


def test_it_catches_a_chain_recomputed_without_the_key(reviewed, tmp_path: Path) -> None:
    # Someone with the database but not the key edits an event and re-hashes the chain from there.
    events = [json.loads(line) for line in trail(reviewed)]
    events[3]["data"]["seconds"] = 9
    previous = events[2]["hash"]
    for event in events[3:]:
        event["prev_hash"] = previous
        event["hash"] = previous = event_hash(event, previous)  # SHA-256: no key
    path = tmp_path / "forged.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    code, out = verify(str(path))
    assert code == 1
    problems = [line for line in out.splitlines() if "line " in line]
    assert len(problems) == len(events) - 3  # each forged line fails its HMAC on its own
    assert "line 4: study" in problems[0] and "does not match its hash" in problems[0]


def test_it_verifies_across_a_key_rotation_and_names_a_missing_key(reviewed, keyed, tmp_path: Path) -> None:
    keyed.AUDIT_CHAIN_KEYS = {"2026b": KEY_2, "2026a": KEY_1}  # rotated: the new key first, the old kept
    ReviewEvent.objects.record(study=reviewed, item=None, actor=None, kind=ReviewEvent.Kind.EXPORTED)
    seal_audit_chain(reviewed.pk)
    lines = trail(reviewed)
    assert [json.loads(line)["key_id"] for line in lines][-2:] == ["2026a", "2026b"]
    path = tmp_path / "trail.jsonl"
    path.write_text("".join(lines))
    assert verify(str(path), "--against-db")[0] == 0
    assert verify("--db")[0] == 0
    keyed.AUDIT_CHAIN_KEYS = {"2026b": KEY_2}  # the old key dropped too early
    code, out = verify(str(path))
    assert code == 1 and "sealed with key '2026a', which AUDIT_CHAIN_KEYS does not hold" in out


def test_it_refuses_a_short_key_in_the_environment(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "AUDIT_CHAIN_KEYS": "k1=short", "DEBUG": "1"}
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=Path(__file__).resolve().parents[3], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "AUDIT_CHAIN_KEYS: the secret of key 'k1' must be at least 32 characters" in done.stdout + done.stderr


# --- the head outside the database ------------------------------------------------------------------


def test_it_writes_the_head_into_every_export(reviewed, admin) -> None:
    api = api_client_for(admin)
    for fmt in ("csv", "jsonl", "xlsx"):
        response = api.get(reverse("annotation_api:study_labels_export", kwargs={"study_pk": reviewed.pk, "fmt": fmt}))
        head = AuditChainHead.objects.get(study=reviewed)
        assert response["Audit-Chain-Head"] == f"study={reviewed.pk} seq={head.seq} hash={head.hash}"
        if fmt == "xlsx":
            sheet = load_workbook(io.BytesIO(response.content))["audit_chain"]
            rows = [[c.value for c in row] for row in sheet.iter_rows()]
            assert rows == [["study", "seq", "hash", "sealed_at"], [reviewed.pk, head.seq, head.hash,
                                                                     timestamp(head.sealed_at)]]
    response = api.get(reverse("annotation_api:study_events_export", kwargs={"study_pk": reviewed.pk, "fmt": "jsonl"}))
    lines = b"".join(response.streaming_content).decode().splitlines()
    head = AuditChainHead.objects.get(study=reviewed)
    assert response["Audit-Chain-Head"] == f"study={reviewed.pk} seq={head.seq} hash={head.hash}"
    assert json.loads(lines[-1])["hash"] == head.hash


def test_it_writes_the_head_into_a_curated_releases_manifest(reviewed, admin, settings, tmp_path) -> None:
    settings.MEDIA_ROOT = str(tmp_path)
    release = Item.objects.filter(study=reviewed).first().revision.release
    curation, _ = curation_create(name="reviewed", release=release, studies=[reviewed], rules=CurationRules(),
                                  actor=admin, history_url=history_url)
    recorded = curation.manifest["studies"][0]["audit_chain"]
    assert recorded["seq"] >= 16  # every review event up to the build
    assert ReviewEvent.objects.get(study=reviewed, seq=recorded["seq"]).hash == recorded["hash"]


def test_it_logs_every_new_head_for_a_sink_outside_the_database(reviewed, caplog) -> None:
    caplog.set_level(logging.INFO, logger="medreview.audit")
    ReviewEvent.objects.record(study=reviewed, item=None, actor=None, kind=ReviewEvent.Kind.EXPORTED)
    seal_audit_chain(reviewed.pk)
    head = AuditChainHead.objects.get(study=reviewed)
    assert f"audit chain head: study={reviewed.pk} seq={head.seq} hash={head.hash} key=2026a" in caplog.text


# --- tampering by raw SQL (SQLite and any role without the triggers) --------------------------------


def test_it_catches_the_last_event_deleted_and_the_head_set_back(reviewed, tmp_path: Path) -> None:
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL's triggers refuse this outright (test_it_refuses_on_postgresql...)")
    path = tmp_path / "before.jsonl"
    path.write_text("".join(trail(reviewed)))  # an export someone kept, or the head log
    n = last_seq(reviewed)
    previous = ReviewEvent.objects.get(study=reviewed, seq=n - 1)
    raw("DELETE FROM annotation_reviewevent WHERE study_id = %s AND seq = %s", [reviewed.pk, n])
    raw("UPDATE annotation_auditchainhead SET seq = %s, hash = %s WHERE study_id = %s",
        [n - 1, previous.hash, reviewed.pk])
    code, out = verify(str(path), "--against-db")
    assert code == 1
    assert [line for line in out.splitlines() if "line " in line] == [
        f"{path}: line {n}: study {reviewed.pk}, event {n}: the hash is not in the database"]


def test_it_refuses_to_reseal_events_whose_hashes_were_cleared(reviewed, tmp_path: Path) -> None:
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL's triggers refuse this outright")
    path = tmp_path / "before.jsonl"
    path.write_text("".join(trail(reviewed)))
    raw("UPDATE annotation_reviewevent SET reason = 'tampered', seq = NULL, prev_hash = '', hash = '', "
        "sealed_at = NULL WHERE study_id = %s AND seq >= 4", [reviewed.pk])
    with pytest.raises(AuditChainBroken):
        seal_audit_chain(reviewed.pk)
    assert not ReviewEvent.objects.filter(study=reviewed, reason="tampered", seq__isnull=False).exists()
    code, out = verify("--db")
    assert code == 1 and "does not end at its head" in out
    # The head set back as well: the cleared rows are older than the last seal, so none is sealed again.
    third = ReviewEvent.objects.get(study=reviewed, seq=3)
    raw("UPDATE annotation_auditchainhead SET seq = 3, hash = %s WHERE study_id = %s", [third.hash, reviewed.pk])
    raw("UPDATE annotation_reviewevent SET created_at = %s WHERE study_id = %s AND seq IS NULL",
        [timezone.now() - timedelta(days=1), reviewed.pk])
    assert seal_audit_chain(reviewed.pk) == 0
    code, out = verify("--db")
    assert code == 1 and "events were refused sealing" in out
    code, out = verify(str(path), "--against-db")
    findings = [line for line in out.splitlines() if "line " in line]
    assert len(findings) == 1 and "event 4: the hash is not in the database (and the" in findings[0]


def test_it_refuses_to_seal_a_backdated_event(reviewed) -> None:
    if connection.vendor == "postgresql":
        pytest.skip("inserted by raw SQL on SQLite; PostgreSQL takes the same path")
    n = last_seq(reviewed)
    raw("INSERT INTO annotation_reviewevent (study_id, kind, reason, data, created_at, actor_pseudonym, prev_hash, "
        "hash, key_id) VALUES (%s, 'resolved', 'backdated', '{}', %s, '', '', '', '')",
        [reviewed.pk, timezone.now() - timedelta(days=3)])
    assert seal_audit_chain(reviewed.pk) == 0
    assert last_seq(reviewed) == n
    assert "backdated" not in "".join(trail(reviewed))
    code, out = verify("--db")
    assert code == 1 and "1 events were refused sealing" in out


def test_it_checks_the_database_directly_one_finding_per_tampering(reviewed) -> None:
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL's triggers refuse the edit outright")
    assert verify("--db") == (0, f"database: {last_seq(reviewed)} events in 1 studies: verified\n")
    raw("UPDATE annotation_reviewevent SET reason = 'edited in place' WHERE study_id = %s AND seq = 5", [reviewed.pk])
    code, out = verify("--db", "--study", str(reviewed.pk))
    assert code == 1
    assert [line for line in out.splitlines() if "event" in line and "studies" not in line] == [
        f"database: study {reviewed.pk}, event 5: the content does not match its hash (the line was edited)"]


def test_it_reports_times_that_go_backwards(reviewed, tmp_path: Path) -> None:
    keys = {"2026a": KEY_1.encode()}
    events = [json.loads(line) for line in trail(reviewed)]
    events[6]["sealed_at"] = "2020-01-01T00:00:00.000000Z"
    previous = events[5]["hash"]
    for event in events[6:]:  # re-sealed with the key itself: only the times give it away
        event["prev_hash"] = previous
        event["hash"] = previous = event_hash(event, previous, keys["2026a"])
    result = verify_lines([json.dumps(e) for e in events], keys=keys)
    assert [str(p) for p in result.problems] == [
        f"line 7: study {reviewed.pk}, event 7: sealed before the event before it (times go backwards)"]


def test_it_refuses_on_postgresql_to_update_or_delete_an_event_or_move_a_head_back(postgres_only, reviewed) -> None:
    n = last_seq(reviewed)
    for sql in ("UPDATE annotation_reviewevent SET reason = 'tampered' WHERE study_id = %s AND seq = 2",
                "UPDATE annotation_reviewevent SET seq = NULL, hash = '' WHERE study_id = %s AND seq = 2",
                "DELETE FROM annotation_reviewevent WHERE study_id = %s",
                "UPDATE annotation_auditchainhead SET seq = 1 WHERE study_id = %s"):
        with pytest.raises(DatabaseError, match="append-only|never moves back"), transaction.atomic():
            raw(sql, [reviewed.pk])
    assert last_seq(reviewed) == n and ReviewEvent.objects.get(study=reviewed, seq=2).reason != "tampered"
    # Sealing, the one allowed write, still works.
    ReviewEvent.objects.record(study=reviewed, item=None, actor=None, kind=ReviewEvent.Kind.EXPORTED)
    assert seal_audit_chain(reviewed.pk) == 1
    assert verify("--db")[0] == 0


def test_it_warns_at_deploy_while_the_chain_has_no_key(settings) -> None:
    from annotation.checks import check_audit_chain_key

    settings.AUDIT_CHAIN_KEYS = {}
    assert [w.id for w in check_audit_chain_key()] == ["annotation.W001"]
    settings.AUDIT_CHAIN_KEYS = {"2026a": KEY_1}
    assert check_audit_chain_key() == []


def test_it_writes_the_head_into_the_reports_raw_label_exports(reviewed, admin, client) -> None:
    release = Item.objects.filter(study=reviewed).first().revision.release_id
    login_as_admin = client
    login_as_admin.force_login(admin)
    for response in (client.get(reverse("agreement:study_labels", args=[reviewed.pk])),
                     client.get(reverse("agreement:release_labels", args=[release])),
                     api_client_for(admin).get(reverse("agreement_api:study_labels", kwargs={"pk": reviewed.pk}))):
        head = AuditChainHead.objects.get(study=reviewed)
        assert response.status_code == 200
        assert response["Audit-Chain-Head"] == f"study={reviewed.pk} seq={head.seq} hash={head.hash}"


def test_it_prints_the_head_beside_a_command_line_export(reviewed, tmp_path: Path) -> None:
    err = StringIO()
    call_command("export_events", "--study", str(reviewed.pk), "--output", str(tmp_path / "e.jsonl"), stderr=err)
    head = AuditChainHead.objects.get(study=reviewed)
    assert f"Audit-Chain-Head: study={reviewed.pk} seq={head.seq} hash={head.hash}" in err.getvalue()
    err = StringIO()
    call_command("export_labels", "--study", str(reviewed.pk), "--output", str(tmp_path / "l.csv"), stderr=err)
    assert f"Audit-Chain-Head: study={reviewed.pk} seq=" in err.getvalue()


def test_it_asks_for_a_file_or_the_database() -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="give an exported file, --db, or both"):
        call_command("verify_audit_trail")


def test_it_says_so_when_an_export_meets_a_broken_chain(reviewed, admin, client) -> None:
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL's triggers refuse the tampering outright")
    raw("UPDATE annotation_reviewevent SET seq = NULL, hash = '' WHERE study_id = %s AND seq = %s",
        [reviewed.pk, last_seq(reviewed)])
    page = client_for(client, admin).get(reverse("annotation:study_labels_export", args=[reviewed.pk, "csv"]),
                                         follow=True)
    assert page.status_code == 200
    assert "does not end at its head" in " ".join(str(m) for m in page.context["messages"])
    api = api_client_for(admin).get(reverse("annotation_api:study_events_export",
                                            kwargs={"study_pk": reviewed.pk, "fmt": "jsonl"}))
    assert api.status_code == 409 and "does not end at its head" in api.json()["detail"]


def client_for(client, user):
    client.force_login(user)
    return client


def test_it_reports_a_chain_rewritten_without_the_key(reviewed) -> None:
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL's triggers refuse the rewrite outright")
    # Every event rewritten in the format of before the key, re-hashed with plain SHA-256.
    previous = "0" * 64
    for event in ReviewEvent.objects.filter(study=reviewed).order_by("seq"):
        fields = {"study": event.study_id, "seq": event.seq, "item": event.item_id, "assignment": event.assignment_id,
                  "actor": event.actor_pseudonym or None, "kind": event.kind, "reason": event.reason,
                  "data": event.data, "created_at": timestamp(event.created_at)}
        digest = event_hash(fields, previous)
        raw("UPDATE annotation_reviewevent SET sealed_at = NULL, key_id = '', prev_hash = %s, hash = %s WHERE id = %s",
            [previous, digest, event.pk])
        previous = digest
    raw("UPDATE annotation_auditchainhead SET hash = %s WHERE study_id = %s", [previous, reviewed.pk])
    code, out = verify("--db")
    assert code == 1 and "its head was sealed with a key but none of its events is keyed" in out
