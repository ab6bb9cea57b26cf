"""Issue 21: criterion rows worded by the criterion's sign, in English and Chinese.

Every criterion row asks LiveMedBench Table 10's question; a penalty criterion reads as what it
checks ("A valid check? Penalises a response that: Recommends antibiotics −5 pts"), with Table 10's
full question as its tooltip; on grader reliability
"met" on a penalty criterion plainly means the error is present. The stored labels are unchanged.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotation.models import Rating
from annotation.rating.services.queue import assignment_claim_next
from tests.annotation.builders import form_data, labels_for, make_running_study, running_study
from tests.conftest import login
from tests.factories import make_case, make_release, make_response

PENALTY_LEAD = {"en": "A valid check? Penalises a response that:", "zh-hans": "是否为有效检查项？对做出以下行为的回答扣分："}
REWARD_LEAD = {"en": "A valid check? Rewards a response that:", "zh-hans": "是否为有效检查项？对做出以下行为的回答加分："}
VALIDITY_QUESTION = {"en": "Is this a medically necessary, correct check for this case?",
                     "zh-hans": "这是否是针对本病例在医学上必要且正确的检查项？"}
PENALTY_AGREE = {"en": "Agree: it is right to penalise a response for this.", "zh-hans": "同意：回答若有此行为就应扣分。"}
PENALTY_MET = {"en": "Met = the response makes this error:", "zh-hans": "满足 = 回答犯了以下错误："}


def _page(client, user, language: str, pk: int) -> str:
    login(client, user)
    return client.get(reverse("annotation:rate", args=[pk]), HTTP_ACCEPT_LANGUAGE=language).content.decode()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_it_asks_the_papers_question_and_shows_penalties_as_what_they_check(client, admin, physician_a,
                                                                           physician_b, language):
    study = make_running_study(admin, [physician_a, physician_b], cases=1)
    a = assignment_claim_next(study=study, rater=physician_a)
    page = _page(client, physician_a, language, a.pk)
    assert page.count(VALIDITY_QUESTION[language]) == 3  # one per criterion row
    assert PENALTY_LEAD[language] in page and REWARD_LEAD[language] in page
    assert page.count(PENALTY_AGREE[language]) == 1  # the one penalty criterion
    assert re.search(re.escape(PENALTY_LEAD[language]) + r'</span>\s*<span class="field-label"[^>]*>Recommends antibiotics',
                     page)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_it_words_met_on_a_penalty_criterion_as_the_error_being_present(client, admin, physician_a, language):
    revision = make_case(release=make_release())
    make_response(revision)
    study = running_study(admin, raters=[physician_a], tasks=["grader-reliability"], kind="response",
                          raters_per_item=1)
    a = assignment_claim_next(study=study, rater=physician_a)
    page = _page(client, physician_a, language, a.pk)
    assert page.count(PENALTY_MET[language]) == 1  # one penalty criterion among three


def test_it_stores_the_same_labels_as_before(client, admin, physician_a, physician_b):
    study = make_running_study(admin, [physician_a, physician_b], cases=1)
    a = assignment_claim_next(study=study, rater=physician_a)
    labels = labels_for(a, {"narrative-quality": "2", "criterion-validity": "disagree"})
    login(client, physician_a).post(reverse("annotation:rate", args=[a.pk]), form_data(labels))
    stored = set(Rating.objects.filter(assignment=a, task__slug="criterion-validity").values_list("label", flat=True))
    assert stored == {"disagree"}
