"""The rating screens' own words in the reader's language (issue 23): a criterion's points, the
Judge's pre-screen verdict, the case's language in the footer, and the LiveClin case report and
captions tagged with their own `lang` (the rendered-page test cannot see "en", "s" or a tag)."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from annotation.models import Study
from annotation.rating.services.queue import assignment_claim_next
from annotation.templatetags.review import criterion_points

pytestmark = pytest.mark.django_db


def _page(language: str, study_name: str) -> str:
    call_command("load_demo", stdout=io.StringIO())
    rater = get_user_model().objects.get(username="physician1")
    assignment = assignment_claim_next(study=Study.objects.get(name=study_name), rater=rater)
    client = Client(headers={"accept-language": language})
    client.force_login(rater)
    response = client.get(f"/review/assignments/{assignment.pk}/")
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize(("language", "positive", "negative", "one"), [
    ("zh-hans", "+6 分", "-7 分", "+1 分"), ("en", "+6 pts", "-7 pts", "+1 pt")])
def test_it_says_a_criterions_points_in_the_readers_language(language, positive, negative, one) -> None:
    with translation.override(language):
        assert (criterion_points(6), criterion_points(-7), criterion_points(1)) == (positive, negative, one)


@pytest.mark.parametrize(("language", "points", "footer"), [("zh-hans", "分</span>", r"· (?:英语|中文)</p>"),
                                                             ("en", "pts</span>", r"· (?:English|Chinese)</p>")])
def test_it_shows_points_and_the_case_language_in_words_on_a_case_item(language, points, footer) -> None:
    page = _page(language, "Demo: LiveMedBench human validation")
    assert re.search(r'class="badge (?:penalty|reward)"[^>]*>[+-]\d+ ' + re.escape(points), page)
    assert re.search(footer, page) and not re.search(r"· (?:en|zh)</p>", page)
    if language == "zh-hans":
        assert " pts<" not in page


@pytest.mark.parametrize(("language", "verdicts"), [("zh-hans", ("：是", "：否", "：不明确")),
                                                    ("en", (": yes", ": no", ": unclear"))])
def test_it_tags_the_liveclin_report_and_translates_the_judges_verdict(language, verdicts) -> None:
    page = _page(language, "Demo: LiveClin question sets")
    prescreens = re.findall(r'<span class="badge">([^<]*)</span>', page.split('class="prescreen', 1)[1])
    assert prescreens and any(p.strip().endswith(verdicts) for p in prescreens), prescreens
    assert "预筛: yes" not in page and "预筛: no" not in page
    assert re.search(r'<div class="markdown case-report" lang="en">', page)
    assert re.search(r'<li>[^<]*<span lang="en">', page.split('class="captions', 1)[1])
    assert all('lang="' in f for f in re.findall(r"<figcaption[^>]*>", page))
