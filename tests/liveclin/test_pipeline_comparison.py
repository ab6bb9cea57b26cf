"""LiveClin Table 1 on hand-computed data: each generation pipeline's physician-validated pass rate
with its Wilson interval, the pass rate on the sets the Judge approved, and McNemar's test on the
case reports two pipelines share; the report page and API over releases."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from cases.models import Dataset, Release
from liveclin.quality import FACTUAL, SOLVABILITY, FinalCheck, McqReview, SetReview
from liveclin.quality import pipelines as P
from liveclin.quality.rules import physician_verdict
from tests.conftest import login

OK, FLAW = FinalCheck("yes", "consensus"), FinalCheck("no", "adjudicated", "wrong dose")


def review(key: str, passed: bool | None, *, judge: bool | None = None) -> SetReview:
    """A one-MCQ set: physicians passed it (True), found a flaw (False), or are still at it (None)."""
    final = {} if passed is None else {FACTUAL: OK if passed else FLAW, SOLVABILITY: OK}
    judged = {} if judge is None else {FACTUAL: judge, SOLVABILITY: True}
    return SetReview(key, int(key), [McqReview(position=1, judge=judged, final=final)], screened=judge is not None,
                     review_status="inspection" if passed is None else "resolved")


def test_it_counts_physicians_alone_for_the_validated_pass_rate() -> None:
    assert physician_verdict(review("1", True)) is True
    assert physician_verdict(review("2", False)) is False
    assert physician_verdict(review("3", None)) is None
    # The Judge flagged it, physicians passed it: Table 1's accuracy is the physicians'.
    assert physician_verdict(review("4", True, judge=False)) is True


# Ten case reports. Generator passes 1-6 (6/10); Generator-Critic passes every one but 3 (9/10) and
# has an 11th still in review. Only the Critic's sets were screened: the Judge approved 1-8, on which
# physicians passed 7 of 8. Paired on 1-10: only the Generator passed 3 (1 set), only the Critic
# passed 7-10 (4 sets): difference (1 - 4) / 10 = -0.3; exact McNemar p = 2 · (C(5,0) + C(5,1)) / 2^5 = 0.375.
GENERATOR = [review(str(k), k <= 6) for k in range(1, 11)]
CRITIC = [review(str(k), k != 3, judge=k <= 8) for k in range(1, 11)] + [review("11", None, judge=True)]
WILSON = {(6, 10): (0.312674, 0.83182), (9, 10): (0.59585, 0.982124), (7, 8): (0.529112, 0.977583)}


@pytest.fixture
def reviews(monkeypatch):
    by_release = {"generator": GENERATOR, "generator-critic": CRITIC}
    monkeypatch.setattr(P, "release_review", lambda release: SimpleNamespace(sets=by_release[release.label]))


def test_it_reproduces_the_pipeline_table_by_hand(reviews) -> None:
    table = P.pipeline_table([SimpleNamespace(label="generator", pk=1), SimpleNamespace(label="generator-critic", pk=2)])
    generator, critic = table["pipelines"]
    assert (generator["pass_rate"]["successes"], generator["pass_rate"]["n"], generator["pending"]) == (6, 10, 0)
    assert generator["pass_rate"]["ci"] == pytest.approx(WILSON[6, 10], abs=1e-6)
    assert generator["judge_approved"] is None  # not screened
    assert (critic["pass_rate"]["successes"], critic["pass_rate"]["n"], critic["pending"]) == (9, 10, 1)
    assert critic["pass_rate"]["ci"] == pytest.approx(WILSON[9, 10], abs=1e-6)
    assert (critic["judge_approved"]["successes"], critic["judge_approved"]["n"]) == (7, 8)
    assert critic["judge_approved"]["ci"] == pytest.approx(WILSON[7, 8], abs=1e-6)
    [pair] = table["pairs"]
    assert (pair["a"], pair["b"], pair["n"], pair["a_only"], pair["b_only"]) == ("generator", "generator-critic", 10, 1, 4)
    assert pair["difference"] == pytest.approx(-0.3)
    assert (pair["method"], pair["statistic"]) == ("exact", 1.0)
    assert pair["p_value"] == pytest.approx(0.375)


@pytest.fixture
def releases(db) -> list[Release]:
    dataset = Dataset.objects.create(name="LiveClin")
    return [Release.objects.create(dataset=dataset, label=label, format="liveclin", file_name=f"{label}.jsonl",
                                   sha256=label) for label in ("generator", "generator-critic")]


@pytest.mark.django_db
def test_it_shows_the_table_on_its_page_and_api(client, reviews, releases, researcher) -> None:
    params = {"release": [r.pk for r in releases]}
    page = login(client, researcher).get(reverse("liveclin:pipeline_comparison"), params)
    html = page.content.decode()
    assert page.status_code == 200 and "0.313–0.832" in html and "0.3750" in html
    api = APIClient()
    api.force_authenticate(researcher)
    body = api.get(reverse("liveclin_api:pipeline_comparison"), params).json()
    assert [p["pipeline"] for p in body["pipelines"]] == ["generator", "generator-critic"]


@pytest.mark.django_db
def test_it_refuses_fewer_than_two_releases_and_guards_the_page(client, reviews, releases, physician_a, researcher):
    one = {"release": [releases[0].pk]}
    response = login(client, researcher).get(reverse("liveclin:pipeline_comparison"), one)
    assert response.status_code == 400 and "at least two releases" in response.content.decode()
    api = APIClient()
    api.force_authenticate(researcher)
    assert "release" in api.get(reverse("liveclin_api:pipeline_comparison"), one).json()
    assert client.post(reverse("liveclin:pipeline_comparison")).status_code == 405
    assert client.get(reverse("liveclin:pipeline_comparison"), {"release": [releases[0].pk, 9999]}).status_code == 404
    # Physicians do not read reports (the agreement reports' rule).
    assert login(client, physician_a).get(reverse("liveclin:pipeline_comparison"),
                                          {"release": [r.pk for r in releases]}).status_code == 403
