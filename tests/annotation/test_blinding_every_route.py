"""Issue 22, finding 1: nobody with a live assignment on an open item sees any other rating of it,
through any route: the item's history (page and API), every label export (CSV, XLSX, JSONL; study
and release), the audit trail's export (whose EDITED events carry labels and comments), and every
other page and API route, walked from the URL configuration as a study's inspector who also rates.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import json
import re
import zipfile
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from accounts.models import Role
from annotation.models import Assignment, Item
from annotation.rating.services.editing import rating_edit
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from tests.annotation.builders import labels_for, make_cases, running_study
from tests.conftest import login, make_user

pytestmark = pytest.mark.django_db
SECRET = "OTHER-RATER-SECRET-COMMENT"
EDITED_SECRET = "OTHER-RATER-EDITED-COMMENT"
OTHER = "R-physician_a"  # the other rater's pseudonym (tests.conftest.make_user)


@pytest.fixture
def blinded(admin, physician_a, inspector):
    """The inspector also rates; they hold a live claim on an item physician_a has rated and edited."""
    make_cases(2)
    study = running_study(admin, raters=[physician_a, inspector], inspectors=[inspector],
                          tasks=["narrative-quality", "criterion-validity"], raters_per_item=2)
    mine = assignment_claim_next(study=study, rater=inspector)
    theirs = assignment_claim_next(study=study, rater=physician_a)
    assert mine.item_id == theirs.item_id
    rating_submit(assignment=theirs, rater=physician_a, labels=labels_for(theirs, None, SECRET), seconds_spent=20)
    theirs.refresh_from_db()
    rating_edit(assignment=theirs, rater=physician_a, labels=labels_for(theirs, None, EDITED_SECRET, pick="last"))
    assert Item.objects.get(pk=mine.item_id).status == Item.Status.OPEN
    return {"study": study, "mine": mine, "theirs": theirs, "item": Item.objects.get(pk=mine.item_id)}


def api_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def body_text(response) -> str:
    """A response's readable text: streamed bodies joined, XLSX workbooks unzipped."""
    raw = b"".join(response.streaming_content) if response.streaming else response.content
    if raw[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            return "\n".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())
    return raw.decode("utf-8", "replace")


def leaks(text: str) -> list[str]:
    """What of the other rater's labels or comments the text shows."""
    found = [marker for marker in (SECRET, EDITED_SECRET) if marker in text]
    # Label rows name their rater by pseudonym (CSV, JSONL, XLSX's shared strings) or by user name
    # (the item history); neither may sit beside a label of the open item.
    for line in text.splitlines():
        if OTHER in line and re.search(r'"?label"?', line):
            found.append(line[:200])
    for row in _csv_rows(text):
        if row.get("rater") == OTHER and row.get("kind", "rating") == "rating":
            found.append(str(row)[:200])
    for record in _json_records(text):
        found.extend(_rated_by_other(record))
    return found


def _csv_rows(text: str) -> list[dict[str, str]]:
    if not text.startswith("study,"):
        return []
    return list(csv.DictReader(io.StringIO(text)))


def _json_records(text: str) -> list[Any]:
    records = []
    for line in text.splitlines() or [text]:
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    with contextlib.suppress(ValueError):
        records.append(json.loads(text))
    return records


def _rated_by_other(value: Any) -> list[str]:
    if isinstance(value, dict):
        if value.get("rater") in (OTHER, "physician_a") and "label" in value:
            return [str(value)[:200]]
        if value.get("actor") in (OTHER, "physician_a") and value.get("kind") == "edited":
            return [str(value)[:200]]
        return [hit for v in value.values() for hit in _rated_by_other(v)]
    if isinstance(value, list):
        return [hit for v in value for hit in _rated_by_other(v)]
    return []


# --- one test per route ---------------------------------------------------------------------------


def test_it_refuses_the_item_history_page_to_a_rater_of_the_open_item(blinded, inspector, client) -> None:
    response = login(client, inspector).get(reverse("annotation:item_history", args=[blinded["item"].pk]))
    assert response.status_code == 403
    assert not leaks(body_text(response))


def test_it_refuses_the_item_history_api_to_a_rater_of_the_open_item(blinded, inspector) -> None:
    response = api_for(inspector).get(reverse("annotation_api:item_history", kwargs={"pk": blinded["item"].pk}))
    assert response.status_code == 403
    assert not leaks(body_text(response))


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "jsonl"])
def test_it_leaves_the_open_item_out_of_the_study_label_export_page(blinded, inspector, client, fmt) -> None:
    response = login(client, inspector).get(reverse("annotation:study_labels_export", args=[blinded["study"].pk, fmt]))
    assert response.status_code == 200
    text = body_text(response)
    assert not leaks(text)
    assert "LMB" in text or "item" in text  # the export itself is there, with the other item


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "jsonl"])
def test_it_leaves_the_open_item_out_of_the_study_label_export_api(blinded, inspector, fmt) -> None:
    response = api_for(inspector).get(reverse("annotation_api:study_labels_export",
                                              kwargs={"study_pk": blinded["study"].pk, "fmt": fmt}))
    assert response.status_code == 200
    assert not leaks(body_text(response))


def test_it_keeps_the_other_items_in_the_label_export(blinded, inspector) -> None:
    text = body_text(api_for(inspector).get(reverse("annotation_api:study_labels_export",
                                                    kwargs={"study_pk": blinded["study"].pk, "fmt": "jsonl"})))
    items = {json.loads(line)["item"] for line in text.splitlines()}
    others = set(blinded["study"].items.exclude(pk=blinded["item"].pk).values_list("pk", flat=True))
    assert items == others


def test_it_shows_the_open_item_to_an_inspector_who_does_not_rate_it(blinded, physician_b, admin) -> None:
    text = body_text(api_for(admin).get(reverse("annotation_api:study_labels_export",
                                                kwargs={"study_pk": blinded["study"].pk, "fmt": "jsonl"})))
    assert SECRET not in text and EDITED_SECRET in text  # the edit replaced the comment
    assert leaks(text)  # the check itself sees a label row when one is there


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "jsonl"])
def test_it_leaves_the_open_item_out_of_the_release_label_export(blinded, inspector, client, fmt) -> None:
    # Releases are browsed by researchers and admins: an admin who rates the item is held to the same rule.
    release = blinded["item"].revision.release
    rater_admin = make_user("rater_admin", role=Role.ADMIN)
    Assignment.objects.filter(pk=blinded["mine"].pk).update(rater=rater_admin)
    for response in (login(client, rater_admin).get(reverse("annotation:release_labels_export", args=[release.pk, fmt])),
                     api_for(rater_admin).get(reverse("annotation_api:release_labels_export",
                                                      kwargs={"pk": release.pk, "fmt": fmt}))):
        assert response.status_code == 200
        assert not leaks(body_text(response))


def test_it_leaves_the_open_item_out_of_the_raw_labels_of_the_reports(blinded, client) -> None:
    # Reports are read by researchers and admins: an admin who rates the item is held to the same rule.
    rater_admin = make_user("rater_admin", role=Role.ADMIN)
    Assignment.objects.filter(pk=blinded["mine"].pk).update(rater=rater_admin)
    study, release = blinded["study"].pk, blinded["item"].revision.release_id
    login(client, rater_admin)
    for response in (client.get(reverse("agreement:study_labels", args=[study])),
                     client.get(reverse("agreement:release_labels", args=[release])),
                     api_for(rater_admin).get(reverse("agreement_api:study_labels", kwargs={"pk": study}))):
        assert response.status_code == 200
        text = body_text(response)
        assert not leaks(text)
        assert str(blinded["item"].pk) not in {row["item"] for row in _csv_rows(text)}


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_it_refuses_the_audit_trail_export_while_its_edits_would_show_labels(blinded, inspector, client, fmt) -> None:
    study = blinded["study"].pk
    for response in (login(client, inspector).get(reverse("annotation:study_events_export", args=[study, fmt])),
                     api_for(inspector).get(reverse("annotation_api:study_events_export",
                                                    kwargs={"study_pk": study, "fmt": fmt}))):
        assert response.status_code == 403
        assert not leaks(body_text(response))


def test_it_opens_the_history_once_the_item_left_open(blinded, inspector) -> None:
    mine = blinded["mine"]
    rating_submit(assignment=mine, rater=inspector, labels=labels_for(mine, None, "mine"), seconds_spent=20)
    assert Item.objects.get(pk=mine.item_id).status != Item.Status.OPEN
    response = api_for(inspector).get(reverse("annotation_api:item_history", kwargs={"pk": mine.item_id}))
    assert response.status_code == 200 and EDITED_SECRET in body_text(response)


def test_it_uses_the_edit_api_without_revealing_labels(blinded, inspector) -> None:
    api = api_for(inspector)
    for assignment in (blinded["mine"], blinded["theirs"]):
        response = api.post(reverse("annotation_api:edit", kwargs={"pk": assignment.pk}),
                            {"labels": labels_for(assignment, None, "x"), "seconds_spent": 5}, format="json")
        assert response.status_code in (403, 404, 409)
        assert not leaks(body_text(response))


# --- every route ----------------------------------------------------------------------------------

FORMATS = ("csv", "jsonl", "xlsx", "json", "pdf")


def _patterns(resolver: URLResolver, prefix: str = "", namespace: str = "") -> list[tuple[str, str, Any]]:
    found = []
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            ns = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            found.extend(_patterns(entry, prefix + str(entry.pattern), ns))
        elif isinstance(entry, URLPattern):
            found.append((prefix + str(entry.pattern), f"{namespace}{entry.name or ''}", entry))
    return found


def _urls(route: str, ints: list[int], strings: dict[str, list[str]]) -> list[str]:
    """Every way of filling the route's parameters with the candidates."""
    if route.startswith("^") or "(?P" in route:
        return []  # the admin's regex routes: admins only, checked by the admin's own tests
    params = re.findall(r"<(?:(\w+):)?(\w+)>", route)
    choices = []
    for converter, name in params:
        choices.append([str(i) for i in ints] if converter in ("int",) else strings.get(name, ["x"]))
    urls = []
    for values in itertools.product(*choices):
        url = route
        for (converter, name), value in zip(params, values, strict=True):
            url = re.sub(rf"<(?:{converter}:)?{name}>", value, url, count=1)
        urls.append("/" + url)
    return urls


def test_it_shows_no_other_rating_of_the_open_item_on_any_route(blinded, inspector, client) -> None:
    study, item = blinded["study"], blinded["item"]
    ints = sorted({study.pk, item.pk, blinded["mine"].pk, blinded["theirs"].pk, item.revision_id,
                   item.revision.release_id, item.revision.case_id})
    strings = {"fmt": list(FORMATS), "name": ["labels.jsonl", "manifest.json"], "username": ["physician_a"]}
    login(client, inspector)
    api = api_for(inspector)
    visited, failures = 0, []
    for route, name, _entry in _patterns(get_resolver()):
        if route.startswith(("admin/", "static/")) or name in ("logout", "annotation:logout"):
            continue
        for url in _urls(route, ints, strings):
            for getter in (client.get, api.get):
                response = getter(url)
                visited += 1
                assert response.status_code < 500, url
                if response.status_code == 200 or response.status_code in (403, 404, 409):
                    hits = leaks(body_text(response))
                    if hits:
                        failures.append((url, response.status_code, hits[:2]))
    # The edit API as a write the user may try on both assignments of the item.
    for assignment in (blinded["mine"], blinded["theirs"]):
        response = api.post(reverse("annotation_api:edit", kwargs={"pk": assignment.pk}),
                            {"labels": labels_for(assignment, None, "x"), "seconds_spent": 5}, format="json")
        if leaks(body_text(response)):
            failures.append(("edit", response.status_code, leaks(body_text(response))[:2]))
    assert visited > 200
    assert "\n".join(f"{u} {c}" for u, c, _h in failures) == ""
