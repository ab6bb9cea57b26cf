"""A user picks the interface language in the top bar; it is remembered on the profile and falls
back to the browser's Accept-Language; the shipped scales and tasks read in that language."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from annotation.catalogue import NARRATIVE_QUALITY, TRANSLATION_CONSISTENCY
from annotation.models import ScaleCategory, TaskType
from tests.conftest import login

pytestmark = pytest.mark.django_db


def test_it_follows_the_browsers_accept_language_before_any_choice(client, physician_a):
    login(client, physician_a)
    response = client.get(reverse("home"), headers={"accept-language": "zh-CN,zh;q=0.9"}, follow=True)
    assert response["Content-Language"] == "zh-hans"
    response = client.get(reverse("home"), headers={"accept-language": "en-GB"}, follow=True)
    assert response["Content-Language"] == "en"


def test_the_choice_is_remembered_on_the_profile_and_wins_over_the_browser(client, physician_a):
    login(client, physician_a)
    response = client.post(reverse("set_language"), {"language": "zh-hans", "next": "/review/"})
    assert response.status_code == 302 and response["Location"] == "/review/"
    physician_a.profile.refresh_from_db()
    assert physician_a.profile.language == "zh-hans"
    # Another browser (no cookie) that asks for English still gets the profile's Chinese.
    client.cookies.clear()
    login(client, physician_a)
    response = client.get(reverse("home"), headers={"accept-language": "en"}, follow=True)
    assert response["Content-Language"] == "zh-hans"


def test_an_unknown_language_or_a_foreign_next_changes_nothing(client, physician_a):
    login(client, physician_a)
    response = client.post(reverse("set_language"), {"language": "xx", "next": "https://evil.example/"})
    assert response["Location"] == "/"
    physician_a.profile.refresh_from_db()
    assert physician_a.profile.language == ""


def test_the_sign_in_page_can_switch_language_before_signing_in(client):
    response = client.post(reverse("set_language"), {"language": "zh-hans", "next": "/accounts/login/"})
    assert response.status_code == 302
    assert client.get("/accounts/login/")["Content-Language"] == "zh-hans"


def test_the_javascript_catalogue_is_served(client, physician_a):
    login(client, physician_a)
    response = client.get(reverse("javascript-catalog"))
    assert response.status_code == 200 and b"gettext" in response.content


def test_every_shipped_scale_and_task_reads_in_chinese():
    for task in TaskType.objects.filter(slug__in=[NARRATIVE_QUALITY.slug, TRANSLATION_CONSISTENCY.slug]):
        assert task.translations["zh-hans"]["name"]
    missing = [str(c) for c in ScaleCategory.objects.all() if not c.translations.get("zh-hans", {}).get("label")]
    assert missing == []
    task = TaskType.objects.get(slug=NARRATIVE_QUALITY.slug)
    category = task.scale.categories.get(value="2")
    with translation.override("zh-hans"):
        assert (task.shown_name, category.shown_label) == ("患者叙述与提问质量", "完全合格")
        assert category.shown_description.startswith("病史清晰")
    with translation.override("en"):
        assert (task.shown_name, category.shown_label) == ("Patient narrative & query quality", "Perfect")
