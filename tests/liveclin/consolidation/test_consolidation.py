"""Expert-guided consolidation (LiveClin App. I, J): the shipped stage mapping places the AI's stage
labels and shows which rule placed each; unplaced labels are listed; physicians accept or move a
label with a reason; a revision is a new version carrying the moves; an approved version is the one
reports use and name."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from cases.models import AILabel, Release
from cases.services import release_import
from cases.taxonomies.builtin import builtin_file
from cases.taxonomies.services import taxonomy_load
from liveclin.consolidation import selectors
from liveclin.consolidation.services import consolidation_load
from liveclin.models import Consolidation, ConsolidationReview
from tests.conftest import login

pytestmark = pytest.mark.django_db
LABELLED = Path(__file__).resolve().parents[2] / "cases" / "fixtures" / "liveclin_labelled.jsonl"


@pytest.fixture
def stages(physician_a) -> Consolidation:
    """The AI's stage labels of two cases (4 + 3 questions) and the shipped stage mapping."""
    path = builtin_file("liveclin")
    taxonomy_load(data=path.read_bytes(), file_name=path.name)
    for fmt, label in (("liveclin", "2025H1"), ("liveclin-labels", "2025H1-labels")):
        report = release_import(fmt=fmt, data=LABELLED.read_bytes(), file_name=LABELLED.name, dataset_name="LiveClin",
                                release_label=label)
        assert report.status == "imported", report.errors
    call_command("load_consolidation", "liveclin-stages", "--reviewer", "physician_a", stdout=io.StringIO())
    return Consolidation.objects.get(key="liveclin-stages")


def placed(consolidation: Consolidation) -> dict[str, tuple[str | None, str | None]]:
    view = selectors.mapping(consolidation, selectors.label_counts(consolidation))
    out = {p.label: (None, None) for p in view["unplaced"]}
    for final in view["finals"]:
        for inter in final["intermediate"]:
            out.update({p.label: (inter["category"].code, p.rule.pattern) for p in inter["labels"]})
    return out


def test_it_places_each_stage_label_and_names_the_rule_that_placed_it(client, stages, physician_a) -> None:
    assert placed(stages) == {
        "Initial diagnostic imaging": ("D1", "imaging"),  # "imaging" is tried before "initial"
        "Histopathological interpretation": ("D3", "histopathological"),
        "Surgical Intervention planning": ("T2", "surgical"),
        "Post-operative follow-up": ("F1", "follow-up"),
        "Initial assessment in the emergency department": ("P1", "initial"),
        "Diagnostic imaging interpretation": ("D1", "imaging"),
        "Acute management": ("T1", "management"),
    }
    html = login(client, physician_a).get(reverse("consolidation:detail", args=[stages.pk])).content.decode()
    assert "Post-operative follow-up" in html and 'keyword “<span lang="en">follow-up</span>”' in html
    assert "Diagnosis &amp; Interpretation" in html


def test_it_lists_unplaced_labels(client, stages, physician_a) -> None:
    label = AILabel.objects.filter(kind="stage").first()
    AILabel.objects.filter(pk=label.pk).update(value="Genetic counselling")
    assert placed(stages)["Genetic counselling"] == (None, None)
    html = login(client, physician_a).get(reverse("consolidation:detail", args=[stages.pk])).content.decode()
    unplaced = html[html.index('id="unplaced"'):]
    assert "Genetic counselling" in unplaced and "1 unplaced label" in unplaced


def test_it_versions_a_mapping_physicians_reviewed_and_reports_name_the_approved_version(
    client, stages, physician_a, admin, researcher
) -> None:
    t1 = stages.categories.get(code="T1")
    login(client, physician_a)
    url = reverse("consolidation:review", args=[stages.pk])
    # A move without a reason stores nothing.
    client.post(url, {"label": "Surgical Intervention planning", "action": "move", "category": t1.pk})
    assert not ConsolidationReview.objects.exists()
    client.post(url, {"label": "Surgical Intervention planning", "action": "move", "category": t1.pk,
                      "reason": "Planning an operation is therapeutic planning."})
    client.post(url, {"label": "Post-operative follow-up", "action": "accept"})
    assert dict(ConsolidationReview.objects.values_list("label", "action")) == {
        "Surgical Intervention planning": "move", "Post-operative follow-up": "accept"}
    # The admin turns the moves into version 2; version 1 is untouched.
    response = login(client, admin).post(reverse("consolidation:revise", args=[stages.pk]), {"note": "moves of round 1"})
    v2 = Consolidation.objects.get(key="liveclin-stages", version=2)
    assert response["Location"] == reverse("consolidation:detail", args=[v2.pk])
    assert placed(stages)["Surgical Intervention planning"] == ("T2", "surgical")
    assert placed(v2)["Surgical Intervention planning"] == ("T1", "Surgical Intervention planning")
    mapping = v2.rules.get(kind="mapping")
    assert (mapping.note, v2.based_on, v2.note) == ("Planning an operation is therapeutic planning.", stages, "moves of round 1")
    assert selectors.chosen_version("liveclin-stages") is None
    client.post(reverse("consolidation:approve", args=[v2.pk]))
    assert selectors.chosen_version("liveclin-stages") == v2
    # Reports name the version they used, and count by it.
    release = Release.objects.get(label="2025H1")
    page = login(client, researcher).get(reverse("consolidation:report", args=[v2.pk]), {"release": release.pk})
    assert 'Mapping <span lang="en">liveclin-stages</span>, version 2' in page.content.decode()
    api = APIClient()
    api.force_authenticate(researcher)
    body = api.get(reverse("consolidation_api:report", args=[v2.pk]), {"release": release.pk}).json()
    assert (body["consolidation"]["version"], body["total"]) == (2, 7)
    therapy = next(c for c in body["categories"] if c["code"] == "T")
    # Therapeutic planning now holds the moved label and "Acute management"; surgery none.
    assert therapy["count"] == 2 and [i["count"] for i in therapy["intermediate"]] == [2, 0]
    # An approved version takes no more reviews.
    login(client, physician_a)
    v2.reviewers.add(physician_a)
    client.post(reverse("consolidation:review", args=[v2.pk]), {"label": "Post-operative follow-up", "action": "accept"})
    assert not ConsolidationReview.objects.filter(consolidation=v2).exists()


def test_it_reviews_over_the_api(stages, physician_a) -> None:
    api = APIClient()
    api.force_authenticate(physician_a)
    body = api.get(reverse("consolidation_api:detail", args=[stages.pk])).json()
    assert body["version"] == 1 and any(i["code"] == "F1" for c in body["categories"] for i in c["intermediate"])
    refused = api.post(reverse("consolidation_api:review", args=[stages.pk]),
                       {"label": "Post-operative follow-up", "action": "move", "category": None}, format="json")
    assert refused.status_code == 400 and "category" in refused.json()
    ok = api.post(reverse("consolidation_api:review", args=[stages.pk]),
                  {"label": "Post-operative follow-up", "action": "accept"}, format="json")
    assert ok.status_code == 201


def test_it_guards_the_pages(client, stages, physician_a, outsider, researcher) -> None:
    detail = reverse("consolidation:detail", args=[stages.pk])
    review = reverse("consolidation:review", args=[stages.pk])
    assert login(client, physician_a).post(detail).status_code == 405
    assert client.get(review).status_code == 405
    assert client.post(reverse("consolidation:revise", args=[stages.pk])).status_code == 403  # admins only
    assert login(client, outsider).get(detail).status_code == 404
    assert client.post(review, {"label": "x", "action": "accept"}).status_code == 404
    assert login(client, researcher).get(detail).status_code == 200
    assert client.post(review, {"label": "x", "action": "accept"}).status_code == 403


@pytest.mark.parametrize(("change", "where"), [
    ({"kind": "colour"}, "kind"),
    ({"keywords": [{"pattern": "x", "category": "NOPE"}]}, "keywords[1].category"),
    ({"categories": [{"code": "A", "name": "A", "intermediate": [{"code": "A", "name": "A"}]}]}, "categories"),
])
def test_it_locates_every_problem_of_a_consolidation_file(change: dict, where: str) -> None:
    doc = json.loads((Path(__file__).resolve().parents[3] / "liveclin/consolidation/data/liveclin-stages.json").read_text())
    with pytest.raises(ValidationError) as caught:
        consolidation_load(data=json.dumps(doc | change).encode(), file_name="mine.json")
    assert f"mine.json: {where}:" in " ".join(caught.value.messages)
    assert not Consolidation.objects.exists()


def test_it_gives_a_curated_release_the_categories_of_the_approved_version_and_names_it(stages, admin) -> None:
    from liveclin.consolidation.services import consolidation_approve
    from liveclin.quality.export import validated_export
    from liveclin.quality.loading import release_review

    release = Release.objects.get(label="2025H1")
    assert "consolidations" not in validated_export(release_review(release)).manifest  # nothing approved yet
    consolidation_approve(consolidation=stages, actor=admin)
    used, categories = selectors.categories_by_revision(list(release.case_revisions.values_list("pk", flat=True)))
    assert used == [{"key": "liveclin-stages", "version": 1, "kind": "stage", "name": stages.name}]
    first = release.case_revisions.get(case__external_id="PMC-TAX-0001")
    assert categories[first.pk]["liveclin-stages"] == {
        "mcq 1": {"final": "D", "final_name": "Diagnosis & Interpretation", "intermediate": "D1"},
        "mcq 2": {"final": "D", "final_name": "Diagnosis & Interpretation", "intermediate": "D3"},
        "mcq 3": {"final": "T", "final_name": "Therapeutic Strategy", "intermediate": "T2"},
        "mcq 4": {"final": "F", "final_name": "Follow-up", "intermediate": "F1"},
    }
    assert validated_export(release_review(release)).manifest["consolidations"] == used


SCORES = (b'{"id": "PMC-TAX-0001", "model": "m1", "answers": ["B", "a", "B", "B"]}\n'
          b'{"id": "PMC-TAX-0002", "model": "m1", "answers": ["B", "B", "A"]}\n')


def test_it_gives_each_model_accuracy_per_category_from_imported_answers(client, stages, researcher, tmp_path) -> None:
    # Every answer key is B. m1 misses case 1 question 2 (Histopathological -> D) and case 2 question 3
    # (Acute management -> T). Stages: D holds c1q1, c1q2, c2q2 -> 2/3; T c1q3, c2q3 -> 1/2; F 1/1; P 1/1.
    # Chapters (the AI's level 1): chapter 2 = case 1, 3/4; chapter 6 = case 2, 2/3.
    path = tmp_path / "scores.jsonl"
    path.write_bytes(SCORES)
    out = io.StringIO()
    call_command("import_model_scores", str(path), stdout=out)
    assert "7 answers of 1 models (m1), 5 correct" in out.getvalue()
    api = APIClient()
    api.force_authenticate(researcher)
    body = api.get(reverse("consolidation_api:report", args=[stages.pk])).json()
    by_stage = {row["code"]: (row["results"][0]["successes"], row["results"][0]["n"]) for row in body["results"]["rows"]}
    assert by_stage == {"D": (2, 3), "T": (1, 2), "F": (1, 1), "P": (1, 1)}
    assert body["results"]["consolidation"] == {"key": "liveclin-stages", "version": 1}
    chapters = {row["code"]: (row["results"][0]["successes"], row["results"][0]["n"])
                for row in body["results_by_chapter"]["rows"]}
    assert chapters == {"2": (3, 4), "6": (2, 3)}
    html = login(client, researcher).get(reverse("consolidation:report", args=[stages.pk])).content.decode()
    assert "0.667" in html and "(2/3)" in html


def test_it_refuses_a_score_file_with_located_errors_and_writes_nothing(stages, tmp_path) -> None:
    from django.core.management import CommandError

    from liveclin.models import ModelAnswer

    path = tmp_path / "bad.jsonl"
    path.write_bytes(SCORES + b'{"id": "PMC-NOPE", "model": "m1", "answers": ["B"]}\n'
                     b'{"id": "PMC-TAX-0002", "model": "m2", "answers": ["B"]}\n')
    with pytest.raises(CommandError) as caught:
        call_command("import_model_scores", str(path))
    assert "bad.jsonl: line 3, field id: no case 'PMC-NOPE'" in str(caught.value)
    assert "bad.jsonl: line 4, field answers: 1 answers for 3 MCQs" in str(caught.value)
    assert not ModelAnswer.objects.exists()
