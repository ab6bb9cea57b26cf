"""The audit trail: every review event joins its study's hash chain, nothing updates or deletes one
(ORM, admin, API), exports carry pseudonyms unless an admin asks, and an edited export is caught."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import QuerySet
from django.urls import reverse

from annotation.models import AuditChainHead, ReviewEvent, seal_audit_chain
from annotation.models.chain import GENESIS_HASH, event_hash, verify_lines
from annotation.outcomes.audit import event_records, events_jsonl
from medreview.errors import ConflictError
from tests.annotation.builders import api_client_for, events_writable
from tests.annotation.outcomes.builders import adjudicate, import_fixture, rate_everything, study_on
from tests.conftest import login

pytestmark = pytest.mark.django_db


def agree_except_d004(rater: str):
    def plan(case, f) -> str:
        if f.task.slug == "narrative-quality":
            return "1" if (case == "LMB-D004" and rater == "a") else "2"
        return "agree"
    return plan


@pytest.fixture
def reviewed(admin, physician_a, physician_b, inspector):
    release = import_fixture("livemedbench", "livemedbench_cases.json", dataset="LiveMedBench", label="v202601")
    study = study_on(release, admin, tasks=["narrative-quality"], raters=[physician_a, physician_b],
                     inspectors=[inspector])
    rate_everything(study, physician_a, agree_except_d004("a"), seconds=90)
    rate_everything(study, physician_b, agree_except_d004("b"), seconds=30)
    adjudicate(study, inspector, agree_except_d004("b"))
    return study


def trail(study) -> list[str]:
    return list(events_jsonl(event_records(study)))


def test_it_chains_every_event_of_a_study_in_writing_order(reviewed) -> None:
    # Written pending; sealed after the writer's commit (the test's transaction never commits).
    assert set(ReviewEvent.objects.filter(study=reviewed).values_list("seq", flat=True)) == {None}
    assert seal_audit_chain(reviewed.pk) == 16 and seal_audit_chain(reviewed.pk) == 0
    events = list(ReviewEvent.objects.filter(study=reviewed).order_by("seq"))
    # 2 raters x 3 items x (claimed, submitted), 2 resolved by consensus, 1 sent to inspection + adjudicated
    assert len(events) == 16
    assert [e.seq for e in events] == list(range(1, 17))
    assert events[0].prev_hash == GENESIS_HASH
    assert all(b.prev_hash == a.hash for a, b in zip(events, events[1:], strict=False))
    head = AuditChainHead.objects.get(study=reviewed)
    assert (head.seq, head.hash) == (16, events[-1].hash)
    assert events[0].actor_pseudonym == "R-physician_a"
    result = verify_lines(trail(reviewed))
    assert result.ok and result.studies == {reviewed.pk: 16}


def test_it_refuses_to_update_or_delete_an_event_through_the_orm(reviewed) -> None:
    event = ReviewEvent.objects.filter(study=reviewed).first()
    event.reason = "rewritten"
    with pytest.raises(ConflictError):
        event.save()
    with pytest.raises(ConflictError):
        event.delete()
    with pytest.raises(ConflictError):
        ReviewEvent.objects.filter(pk=event.pk).update(reason="rewritten")
    with pytest.raises(ConflictError):
        ReviewEvent.objects.filter(pk=event.pk).delete()
    with pytest.raises(ConflictError):
        ReviewEvent.objects.bulk_update([event], ["reason"])
    assert ReviewEvent.objects.get(pk=event.pk).reason == ""
    assert verify_lines(trail(reviewed)).ok


def test_it_refuses_to_change_or_delete_an_event_in_the_admin(reviewed, client, admin) -> None:
    admin.is_staff = admin.is_superuser = True
    admin.save()
    login(client, admin)
    event = ReviewEvent.objects.filter(study=reviewed).first()
    change = reverse("admin:annotation_reviewevent_change", args=[event.pk])
    assert client.post(change, {"reason": "rewritten"}).status_code == 403
    assert client.post(reverse("admin:annotation_reviewevent_delete", args=[event.pk]), {"post": "yes"}).status_code == 403
    client.post(reverse("admin:annotation_reviewevent_changelist"),
                {"action": "delete_selected", "_selected_action": [event.pk], "post": "yes"})
    assert ReviewEvent.objects.filter(pk=event.pk, reason="").exists()


def test_it_offers_no_api_that_writes_an_event(reviewed, admin) -> None:
    api = api_client_for(admin)
    url = reverse("annotation_api:study_events_export", kwargs={"study_pk": reviewed.pk, "fmt": "jsonl"})
    for method in ("put", "patch", "delete", "post"):
        assert getattr(api, method)(url, {}, format="json").status_code == 405
    before = ReviewEvent.objects.filter(study=reviewed).count()
    assert api.get(url).status_code == 200
    assert ReviewEvent.objects.filter(study=reviewed).count() == before + 1  # the export itself


def test_it_exports_pseudonyms_by_default_and_real_names_only_to_admins_who_ask(reviewed, admin, researcher,
                                                                                  inspector) -> None:
    url = reverse("annotation_api:study_events_export", kwargs={"study_pk": reviewed.pk, "fmt": "jsonl"})
    body = b"".join(api_client_for(researcher).get(url).streaming_content).decode()
    lines = body.splitlines()
    assert "physician_a" not in body.replace("R-physician_a", "") and "R-physician_a" in body
    assert all("actor_name" not in json.loads(line) for line in lines)
    assert api_client_for(researcher).get(url + "?names=1").status_code == 403
    assert api_client_for(inspector).get(url + "?names=1").status_code == 403
    named = b"".join(api_client_for(admin).get(url + "?names=1").streaming_content).decode().splitlines()
    assert {json.loads(line).get("actor_name") for line in named} >= {"physician_a", "physician_b", "inspector"}
    assert verify_lines(named).ok  # names ride along outside the hash
    exported = ReviewEvent.objects.filter(study=reviewed, kind=ReviewEvent.Kind.EXPORTED).order_by("seq")
    assert [e.data["real_names"] for e in exported] == [False, True]


def test_it_refuses_the_trail_to_outsiders_and_physicians(reviewed, outsider, physician_a) -> None:
    url = reverse("annotation_api:study_events_export", kwargs={"study_pk": reviewed.pk, "fmt": "jsonl"})
    assert api_client_for(outsider).get(url).status_code == 404
    assert api_client_for(physician_a).get(url).status_code == 404


def test_verify_audit_trail_detects_an_edited_export_line(reviewed, tmp_path) -> None:
    path = tmp_path / "trail.jsonl"
    call_command("export_events", "--study", str(reviewed.pk), "--output", str(path))
    out = StringIO()
    call_command("verify_audit_trail", str(path), "--against-db", stdout=out)
    assert out.getvalue().endswith(": 17 events in 1 studies: verified\n")  # 16 + the export itself

    lines = path.read_text().splitlines()
    edited = json.loads(lines[3])
    edited["data"]["seconds"] = 9
    lines[3] = json.dumps(edited, sort_keys=True, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")
    out = StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("verify_audit_trail", str(path), stdout=out)
    assert exit_.value.code == 1
    assert f"line 4: study {reviewed.pk}, event 4: the content does not match its hash (the line was edited)" in out.getvalue()

    # Re-hashing the whole chain after the edit passes the file check but not the database's.
    events = [json.loads(line) for line in lines]
    previous = GENESIS_HASH
    for event in events:
        event["prev_hash"] = previous
        event["hash"] = previous = event_hash(event, previous)
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    call_command("verify_audit_trail", str(path), stdout=StringIO())
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command("verify_audit_trail", str(path), "--against-db", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert not report["ok"] and report["problems"][0]["line"] == 4
    assert "differs from the hash stored in the database" in report["problems"][0]["message"]


def test_it_shows_an_items_history_to_the_studys_inspectors_and_admins_only(reviewed, client, inspector,
                                                                             researcher, physician_a) -> None:
    item = reviewed.items.get(revision__case__external_id="LMB-D004")
    url = reverse("annotation:item_history", args=[item.pk])
    login(client, inspector)
    page = client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    # Labels read as their scale names them (issue 23), raters' names tagged with their language.
    assert "Adjudicated" in text and "the inspector&#x27;s label" in text
    assert '<span lang="en">physician_a</span> = Good' in text
    for user in (researcher, physician_a):
        client.force_login(user)
        assert client.get(url).status_code == 404
    data = api_client_for(inspector).get(reverse("annotation_api:item_history", kwargs={"pk": item.pk})).json()
    assert data["fields"][0]["rule"] == "inspector" and [e["seq"] for e in data["events"]] == sorted(
        e["seq"] for e in data["events"])


def _seal_statements(study) -> int:
    """Seal the study's 16 pending events; how many UPDATE statements filled in their places. The
    chain must verify event by event whatever the batching."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        assert seal_audit_chain(study.pk) == 16
    events = list(ReviewEvent.objects.filter(study=study).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, 17))
    assert events[0].prev_hash == GENESIS_HASH
    assert all(b.prev_hash == a.hash for a, b in zip(events, events[1:], strict=False))
    assert all(e.hash == event_hash_of(e) for e in events)
    head = AuditChainHead.objects.get(study=study)
    assert (head.seq, head.hash) == (16, events[-1].hash)
    return sum(q["sql"].startswith('UPDATE "annotation_reviewevent"') for q in ctx.captured_queries)


def test_it_seals_a_batch_in_a_fixed_number_of_statements_whatever_its_size(reviewed, monkeypatch) -> None:
    from annotation.models import events as events_module

    monkeypatch.setattr(events_module, "_SEAL_STATEMENT_EVENTS", 5)
    assert _seal_statements(reviewed) == 4  # 16 events, 5 a statement


def test_it_keeps_each_seal_statement_under_the_databases_parameter_cap(reviewed, monkeypatch) -> None:
    from django.db import connection

    monkeypatch.setattr(connection.features, "max_query_params", 21)  # 7 per event: 3 events per statement
    assert _seal_statements(reviewed) == 6


def event_hash_of(event: ReviewEvent) -> str:
    from annotation.models.events import audit_chain_keys, chain_fields

    return event_hash(chain_fields(event), event.prev_hash, audit_chain_keys().get(event.key_id))


def test_it_writes_a_system_event_without_an_item_into_the_chain(reviewed) -> None:
    ReviewEvent.objects.record(study=reviewed, item=None, actor=None, kind=ReviewEvent.Kind.EXPORTED,
                               data={"what": "labels"})
    seal_audit_chain(reviewed.pk)
    last = ReviewEvent.objects.filter(study=reviewed).order_by("-seq").first()
    assert (last.seq, last.item_id, last.actor_pseudonym) == (17, None, "")
    assert verify_lines(trail(reviewed)).ok


def test_the_queryset_refusal_is_the_models_not_djangos(reviewed) -> None:
    # A bare QuerySet.update bypasses the model's rule; the chain is what catches that.
    seal_audit_chain(reviewed.pk)
    with events_writable():
        QuerySet.update(ReviewEvent.objects.filter(study=reviewed, seq=2), reason="tampered")
    result = verify_lines(trail(reviewed))
    assert [p.line for p in result.problems] == [2]


def test_it_seals_an_event_as_soon_as_its_transaction_commits(reviewed, django_capture_on_commit_callbacks) -> None:
    seal_audit_chain(reviewed.pk)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        event = ReviewEvent.objects.record(study=reviewed, item=None, actor=None, kind=ReviewEvent.Kind.EXPORTED)
        assert ReviewEvent.objects.get(pk=event.pk).seq is None
    assert len(callbacks) == 1
    sealed = ReviewEvent.objects.get(pk=event.pk)
    assert sealed.seq == 17 and sealed.prev_hash == ReviewEvent.objects.get(study=reviewed, seq=16).hash
