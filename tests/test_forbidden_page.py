"""Issue 20: every 403 page says why, in the user's language, escaped, with a way back; one template
(templates/403.html) serves every app."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory
from django.urls import reverse

from accounts.models import Profile
from tests.conftest import login

pytestmark = pytest.mark.django_db


def test_a_403_page_says_why_and_links_back(client, physician_a):
    response = login(client, physician_a).get(reverse("annotation:inspector_dashboard"),
                                              HTTP_REFERER="http://testserver/review/")
    assert response.status_code == 403
    page = response.content.decode()
    assert 'id="forbidden-reason"' in page and "Only inspectors inspect items." in page
    assert 'href="/review/"' in page  # back where the user came from


def test_a_403_page_speaks_the_users_language(client, researcher):
    Profile.objects.filter(user=researcher).update(language="zh-hans")
    response = login(client, researcher).get(reverse("annotation:inspector_dashboard"))
    assert response.status_code == 403
    page = response.content.decode()
    assert "Only inspectors inspect items." not in page
    assert "只有审核医师" in page


def test_a_403_page_never_links_back_to_another_site(rf: RequestFactory, physician_a):
    request = rf.get("/review/inspection/", HTTP_REFERER="https://evil.example/phish")
    request.user = physician_a
    from medreview.views import forbidden

    page = forbidden(request, PermissionDenied("No.")).content.decode()
    assert "evil.example" not in page and 'href="/"' in page


def test_a_403_page_escapes_the_reason(rf: RequestFactory, physician_a):
    from medreview import urls
    from medreview.views import forbidden

    assert urls.handler403 == "medreview.views.forbidden"  # every app's refusals end here
    request = rf.get("/review/")
    request.user = physician_a
    page = forbidden(request, PermissionDenied('<script>alert("x")</script> is not yours')).content.decode()
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page
