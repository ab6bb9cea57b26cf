"""Blind taxonomy assignment (LiveClin App. E): an expert picks level 1, then level 2 within it, then
a code within that, never seeing the AI's label; disagreeing experts go to inspection; the report
compares the AI with the experts' final label per level."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from liveclin.labelling.reports import task_report
from liveclin.models import LabelAnswer, LabelDecision, LabelUnit
from tests.conftest import login
from tests.liveclin.labelling.builders import (
    CASE_MARKER,
    CHAPTERS,
    CLUSTERS,
    CODES,
    assignment_task,
    node_ids,
)

pytestmark = pytest.mark.django_db

AI_TEXTS = [*CHAPTERS.values(), *CLUSTERS.values(), *CODES.values(), "gpt-4.1"]


def post_path(client, unit: LabelUnit, codes: tuple[str, ...], **extra):
    ids = node_ids(*codes)
    data = {f"level{n}": str(i) for n, i in enumerate(ids, 1)} | extra
    return client.post(reverse("labelling:unit", args=[unit.pk]), data)


def test_it_never_shows_the_ai_label_on_the_page_or_in_the_api(client, admin, physician_a) -> None:
    task = assignment_task(admin, [physician_a])
    unit = task.units.get(order=1)
    page = login(client, physician_a).get(reverse("labelling:unit", args=[unit.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert f"{CASE_MARKER}-1" in html  # the case is shown
    for text in AI_TEXTS:
        assert text not in html, text
    assert " selected" not in html  # no level pre-chosen
    api = APIClient()
    api.force_authenticate(physician_a)
    for response in (api.get(reverse("labelling_api:unit", args=[unit.pk])),
                     api.post(reverse("labelling_api:task_next", args=[task.pk]))):
        assert response.status_code == 200
        body = response.content.decode()
        assert f"{CASE_MARKER}-1" in body
        for text in AI_TEXTS:
            assert text not in body, text
    # The picker's own API offers the children of a choice and carries no AI label either.
    nodes = api.get(reverse("cases_api:taxonomy_nodes", args=[task.taxonomy_id]), {"parent": node_ids("2")[0]})
    assert "C40-C41" in [n["code"] for n in nodes.json()]
    assert not any(text in nodes.content.decode() for text in AI_TEXTS)


def test_it_stores_a_path_picked_level_by_level_and_opens_the_next_case(client, admin, physician_a) -> None:
    task = assignment_task(admin, [physician_a])
    first, second = task.units.get(order=1), task.units.get(order=2)
    response = post_path(login(client, physician_a), first, ("2", "C40-C41", "C41"), comment="clear", seconds="40")
    assert response.status_code == 302 and response["Location"] == reverse("labelling:unit", args=[second.pk])
    answer = LabelAnswer.objects.get(unit=first)
    assert (answer.node.code, answer.node.parent.code, answer.node.parent.parent.code) == ("C41", "C40-C41", "2")
    assert (answer.rater, answer.comment, answer.seconds) == (physician_a, "clear", 40)
    first.refresh_from_db()
    assert first.status == LabelUnit.Status.RESOLVED


@pytest.mark.parametrize("case", ["cluster of another chapter", "code of another cluster", "no code"])
def test_it_refuses_a_path_that_leaves_the_entry_chosen_above_and_stores_nothing(client, admin, physician_a, case):
    task = assignment_task(admin, [physician_a])
    unit = task.units.get(order=1)
    chapter, cluster, code = node_ids("2", "C40-C41", "C41")
    other_cluster, other_code = node_ids("6", "G00-G14", "G08")[1:]
    ids = {"cluster of another chapter": [chapter, other_cluster, other_code],
           "code of another cluster": [chapter, cluster, other_code], "no code": [chapter, cluster, ""]}[case]
    response = login(client, physician_a).post(reverse("labelling:unit", args=[unit.pk]),
                                               {f"level{n}": str(i) for n, i in enumerate(ids, 1)})
    assert response.status_code == 400
    assert "Nothing was stored" in response.content.decode()
    assert not LabelAnswer.objects.exists()


def test_it_sends_disagreeing_experts_to_inspection_where_the_inspector_decides(
    client, admin, physician_a, physician_b, inspector
) -> None:
    task = assignment_task(admin, [physician_a, physician_b], inspectors=[inspector], raters_per_unit=2)
    unit = task.units.get(order=1)
    post_path(login(client, physician_a), unit, ("2", "C40-C41", "C41"))
    unit.refresh_from_db()
    assert unit.status == LabelUnit.Status.OPEN
    post_path(login(client, physician_b), unit, ("2", "C40-C41", "C40"))
    unit.refresh_from_db()
    assert unit.status == LabelUnit.Status.INSPECTION
    listing = login(client, inspector).get(reverse("labelling:task_inspection", args=[task.pk]))
    assert reverse("labelling:unit_inspect", args=[unit.pk]) in listing.content.decode()
    page = client.get(reverse("labelling:unit_inspect", args=[unit.pk]))
    assert page.status_code == 200 and "R-physician_a" in page.content.decode()
    ids = node_ids("2", "C40-C41", "C41")
    refused = client.post(reverse("labelling:unit_inspect", args=[unit.pk]),
                          {"level1": ids[0], "level2": ids[1], "level3": ids[2], "reason": ""})
    assert refused.status_code == 400 and not LabelDecision.objects.exists()
    decided = client.post(reverse("labelling:unit_inspect", args=[unit.pk]),
                          {"level1": ids[0], "level2": ids[1], "level3": ids[2], "reason": "The report says C41."})
    assert decided.status_code == 302
    unit.refresh_from_db()
    assert unit.status == LabelUnit.Status.RESOLVED and LabelDecision.objects.get(unit=unit).node.code == "C41"


def test_it_lets_a_rater_take_an_answer_back_until_an_inspector_decides(client, admin, physician_a) -> None:
    task = assignment_task(admin, [physician_a])
    unit = task.units.get(order=1)
    post_path(login(client, physician_a), unit, ("2", "C40-C41", "C40"))
    response = client.post(reverse("labelling:unit_withdraw", args=[unit.pk]))
    assert response.status_code == 302
    unit.refresh_from_db()
    assert unit.status == LabelUnit.Status.OPEN and not LabelAnswer.objects.exists()
    post_path(client, unit, ("2", "C40-C41", "C41"))
    assert LabelAnswer.objects.get(unit=unit).node.code == "C41"


def test_it_answers_over_the_api_and_refuses_a_second_answer_on_a_full_unit(admin, physician_a, physician_b):
    task = assignment_task(admin, [physician_a, physician_b])
    unit = task.units.get(order=1)
    api = APIClient()
    api.force_authenticate(physician_a)
    url = reverse("labelling_api:unit_answer", args=[unit.pk])
    bad = api.post(url, {"path": node_ids("2", "C40-C41")}, format="json")
    assert bad.status_code == 400 and "path" in bad.json()
    ok = api.post(url, {"path": node_ids("2", "C40-C41", "C41")}, format="json")
    assert ok.status_code == 201 and ok.json()["own_answer"]["path"] == node_ids("2", "C40-C41", "C41")
    api.force_authenticate(physician_b)
    assert api.post(url, {"path": node_ids("2", "C40-C41", "C40")}, format="json").status_code == 409
    assert LabelAnswer.objects.count() == 1


def test_it_guards_every_page_wrong_method_outsider_and_read_only_role(
    client, admin, physician_a, outsider, researcher
) -> None:
    task = assignment_task(admin, [physician_a])
    unit = task.units.get(order=1)
    unit_url = reverse("labelling:unit", args=[unit.pk])
    assert login(client, physician_a).put(unit_url).status_code == 405
    assert client.get(reverse("labelling:task_next", args=[task.pk])).status_code == 405
    assert client.get(reverse("labelling:task_list")).status_code == 200
    assert login(client, outsider).get(unit_url).status_code == 404
    assert client.post(reverse("labelling:task_next", args=[task.pk])).status_code == 404
    assert client.get(reverse("labelling:task_report", args=[task.pk])).status_code == 404
    assert login(client, researcher).get(unit_url).status_code == 403
    assert client.get(reverse("labelling:task_inspection", args=[task.pk])).status_code == 403
    assert client.get(reverse("labelling:task_report", args=[task.pk])).status_code == 200
    api = APIClient()
    api.force_authenticate(outsider)
    assert api.get(reverse("labelling_api:unit", args=[unit.pk])).status_code == 404
    api.force_authenticate(researcher)
    assert api.post(reverse("labelling_api:unit_answer", args=[unit.pk]), {}, format="json").status_code == 403


# --- App. E's table from stored answers, by hand --------------------------------------------------

# The experts' paths for the five cases whose AI paths are builders.AI_PATHS:
# case 1 all right; case 2 all right; case 3 wrong code (C41, AI C40); case 4 wrong cluster and so
# wrong code (C30-C39 / C34); case 5 all right. Level 1: 5/5, level 2: 4/5, level 3: 3/5.
EXPERT_PATHS = [("2", "C40-C41", "C41"), ("6", "G00-G14", "G08"), ("2", "C40-C41", "C41"), ("2", "C30-C39", "C34"),
                ("6", "G00-G14", "G04")]
# Wilson 95% intervals worked by hand: p = k/n, z = 1.959964,
# centre = (p + z²/2n) / (1 + z²/n), half = z / (1 + z²/n) * sqrt(p(1-p)/n + z²/4n²).
WILSON = {5: (0.565518, 1.0), 4: (0.375535, 0.963776), 3: (0.230724, 0.882379)}


def test_it_reproduces_the_accuracy_table_per_level_with_wilson_intervals(client, admin, physician_a) -> None:
    task = assignment_task(admin, [physician_a])
    login(client, physician_a)
    for unit, path in zip(task.units.order_by("order"), EXPERT_PATHS, strict=True):
        assert post_path(client, unit, path).status_code == 302
    report = task_report(task)
    assert report["compared"] == 5
    rows = {row["level"]: row for row in report["levels"]}
    for level, correct in ((1, 5), (2, 4), (3, 3)):
        assert (rows[level]["successes"], rows[level]["n"]) == (correct, 5)
        assert rows[level]["value"] == pytest.approx(correct / 5)
        assert rows[level]["ci"] == pytest.approx(WILSON[correct], abs=1e-6)
    page = login(client, admin).get(reverse("labelling:task_report", args=[task.pk]))
    html = page.content.decode()
    assert page.status_code == 200 and "0.600" in html and "0.231–0.882" in html
    api = APIClient()
    api.force_authenticate(admin)
    assert api.get(reverse("labelling_api:task_report", args=[task.pk])).json()["levels"][1]["successes"] == 4


def test_it_measures_agreement_between_two_experts_per_level(client, admin, physician_a, physician_b) -> None:
    # Level 1: a = 2 6 2 2 6, b = 2 6 2 6 6. p_o = 4/5; Cohen: p_e = .6·.4 + .4·.6 = .48,
    # kappa = (.8 - .48) / .52 = 0.615385; Gwet AC1: pi = (.5, .5), p_e = .5, AC1 = (.8 - .5) / .5 = 0.6.
    task = assignment_task(admin, [physician_a, physician_b], raters_per_unit=2)
    b_paths = [*EXPERT_PATHS[:3], ("6", "G00-G14", "G04"), EXPERT_PATHS[4]]
    for unit, pa, pb in zip(task.units.order_by("order"), EXPERT_PATHS, b_paths, strict=True):
        post_path(login(client, physician_a), unit, pa)
        post_path(login(client, physician_b), unit, pb)
    agreement = {a["level"]: a for a in task_report(task)["expert_agreement"]}
    assert agreement[1]["items"] == 5
    assert agreement[1]["cohen_kappa"]["value"] == pytest.approx(0.615385, abs=1e-6)
    assert agreement[1]["gwet_ac1"]["value"] == pytest.approx(0.6, abs=1e-6)
    assert LabelUnit.objects.get(task=task, order=4).status == LabelUnit.Status.INSPECTION


def test_it_reads_a_unit_page_in_a_fixed_number_of_queries(client, admin, physician_a, django_assert_max_num_queries):
    # The rater's hot page: the same count whatever the taxonomy's size (level 1 only is rendered;
    # levels 2 and 3 come from the picker API as the rater chooses).
    task = assignment_task(admin, [physician_a])
    login(client, physician_a)
    url = reverse("labelling:unit", args=[task.units.get(order=1).pk])
    client.get(url)
    with django_assert_max_num_queries(20):
        assert client.get(url).status_code == 200
