"""A physician rating MEDIC Likert axes reads what each score means beside its choices (issue 11)."""

from __future__ import annotations

import re

from django.urls import reverse

from annotation.catalogue import MEDIC_AXES, MEDIC_RUBRICS, rubric_anchors
from annotation.rating.services.queue import assignment_claim_next
from tests.annotation.builders import running_study
from tests.conftest import login
from tests.factories import make_case, make_response


def test_it_reads_the_anchors_of_every_shipped_rubric_axis():
    sections = rubric_anchors(MEDIC_RUBRICS)
    assert len(sections) == len(MEDIC_AXES)
    assert [score for score, _ in sections[0]] == ["1", "2", "3", "4", "5"]
    assert sections[1][0][1].startswith("The response fails to address potential risks")


def test_it_shows_each_scores_meaning_beside_the_choices_of_a_likert_axis(client, admin, physician_a):
    make_response(make_case(narrative="Headache for a week."), model_name="m-anchors", text="Rest.")
    study = running_study(admin, raters=[physician_a], tasks=["likert-medic"], kind="response")
    assignment = assignment_claim_next(study=study, rater=physician_a)
    login(client, physician_a)
    page = client.get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    assert "see the axis rubric" not in page
    for axis, anchors in zip(MEDIC_AXES, rubric_anchors(MEDIC_RUBRICS), strict=True):
        field = re.search(r'<fieldset[^>]*data-field-id="likert-medic\|axis:' + re.escape(axis) + r'".*?</fieldset>',
                          page, re.S)
        assert field, axis
        for score, meaning in anchors:
            assert meaning.replace("'", "&#x27;") in field.group(0), (axis, score)


def test_it_shows_the_anchors_in_chinese_in_the_chinese_interface(client, admin, physician_a):
    make_response(make_case(narrative="Headache for a week."), model_name="m-anchors", text="Rest.")
    study = running_study(admin, raters=[physician_a], tasks=["likert-medic"], kind="response")
    assignment = assignment_claim_next(study=study, rater=physician_a)
    login(client, physician_a)
    page = client.get(reverse("annotation:rate", args=[assignment.pk]), HTTP_ACCEPT_LANGUAGE="zh-Hans").content
    assert "回答未涉及潜在风险或禁忌证" in page.decode()
