"""Accounts without the Django admin: the `accounts` command, the API, CSV bulk import (validated
whole), invitations with a one-time link, deactivation that keeps every label."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.csv_import import parse_accounts_csv
from accounts.models import Profile, Role
from accounts.services import AccountData, account_deactivate, account_save, accounts_import_csv
from annotation.models import Rating
from tests.annotation.builders import claim_and_submit, make_cases, running_study

pytestmark = pytest.mark.django_db
User = get_user_model()

GOOD_CSV = (
    "username,email,role,rank,specialties,languages,first_name,last_name\n"
    "dr.lin,lin@example.org,physician,attending,Cardiology;Nephrology,en;zh,Mei,Lin\n"
    "dr.okafor,okafor@example.org,inspector,chief,Internal Medicine,en,Ada,Okafor\n"
    "r.sand,,researcher,,,,,\n"
)


def test_a_csv_with_one_bad_row_refuses_the_whole_file_with_located_errors() -> None:
    data = GOOD_CSV + "dr.bad,not-an-email,surgeon,professor,,english,,\n"
    report = accounts_import_csv(data=data.encode())
    assert not report.ok
    assert [(e.line, e.column) for e in report.errors] == [(5, "role"), (5, "rank"), (5, "email"), (5, "languages")]
    assert "unknown role 'surgeon'" in report.errors[0].message
    assert User.objects.count() == 0 and Profile.objects.count() == 0


def test_a_good_csv_creates_every_account_with_role_rank_specialties_and_languages() -> None:
    report = accounts_import_csv(data=GOOD_CSV.encode())
    assert report.ok and report.created == ["dr.lin", "dr.okafor", "r.sand"]
    lin = User.objects.select_related("profile").get(username="dr.lin")
    assert (lin.email, lin.first_name, lin.profile.role, lin.profile.rank) == (
        "lin@example.org", "Mei", Role.PHYSICIAN, "attending")
    assert lin.profile.specialties == ["Cardiology", "Nephrology"] and lin.profile.languages == ["en", "zh"]
    assert not lin.has_usable_password()  # set through the invitation link
    assert lin.profile.pseudonym.startswith("R-") and "lin" not in lin.profile.pseudonym
    again = accounts_import_csv(data=GOOD_CSV.replace("attending", "associate_chief").encode())
    assert again.ok and again.created == [] and len(again.updated) == 3
    assert User.objects.get(username="dr.lin").profile.rank == "associate_chief"


@pytest.mark.parametrize(("text", "where"), [
    ("username,role\nDr.Lin,physician\ndr.lin,physician\n", (3, "username")),
    ("username,role\nbad name!,physician\n", (2, "username")),
    ("username,email\nx,x@example.org\n", (1, "role")),
    ("username,role,favourite\nx,physician,tea\n", (1, "favourite")),
    ("username,role\nx,physician,extra\n", (2, None)),
    ("username,role\n", (None, None)),
])
def test_each_csv_problem_names_its_line_and_column(text: str, where: tuple) -> None:
    errors = parse_accounts_csv(text.encode()).errors
    assert errors and (errors[0].line, errors[0].column) == where


def test_not_utf8_and_nul_are_refused() -> None:
    assert parse_accounts_csv(b"username,role\n\xff,physician\n").errors
    assert parse_accounts_csv(b"username,role\nx\x00,physician\n").errors[0].line == 2


def signs_in(username: str, password: str) -> bool:
    """Through the sign-in page, as a person does (the lockout backend needs the request)."""
    client = Client()
    client.post(reverse("login"), {"username": username, "password": password})
    return "_auth_user_id" in client.session


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("accounts", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_the_command_creates_updates_lists_and_deactivates() -> None:
    run("create", "dr.ng", "--role", "physician", "--rank", "attending", "--specialties", "Oncology",
        "--languages", "en;zh", "--email", "ng@example.org")
    run("update", "dr.ng", "--role", "inspector")
    profile = Profile.objects.get(user__username="dr.ng")
    assert (profile.role, profile.rank, profile.specialties, profile.languages) == (
        "inspector", "attending", ["Oncology"], ["en", "zh"])
    with pytest.raises(CommandError, match="exists"):
        run("create", "DR.NG", "--role", "physician")
    run("deactivate", "dr.ng")
    assert "dr.ng\tinspector\tng@example.org (deactivated)" in run("list")


def test_the_command_imports_csv_and_exits_non_zero_on_refusal(tmp_path: Path) -> None:
    bad = tmp_path / "people.csv"
    bad.write_text(GOOD_CSV + "x,,admin,,,,,\nx,,admin,,,,,\n")
    with pytest.raises(SystemExit) as exited:
        call_command("accounts", "import", str(bad), "--json", stdout=(out := io.StringIO()))
    assert exited.value.code == 1
    assert json.loads(out.getvalue())["errors"] == [{"line": 6, "column": "username", "message": "'x' also on line 5"}]
    assert User.objects.count() == 0


def test_an_invitation_link_sets_the_password_once(client: Client) -> None:
    user, _ = account_save(data=AccountData(username="dr.new", role=Role.PHYSICIAN, email="new@example.org"))
    run("invite", "dr.new", "--base-url", "https://review.example.org")
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["new@example.org"]
    link = re.search(r"https://review\.example\.org(/\S+)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)
    assert form.status_code == 200 and b"Choose your password" in form.content
    set_url = form.redirect_chain[-1][0] if form.redirect_chain else link
    done = client.post(set_url, {"new_password1": "a-long-enough-pass-2026", "new_password2": "a-long-enough-pass-2026"})
    assert done.status_code == 302 and done.url == reverse("login")
    assert signs_in("dr.new", "a-long-enough-pass-2026")
    reused = Client().get(link, follow=True)
    assert b"has been used or has expired" in reused.content


def test_deactivation_keeps_every_label_and_stops_sign_in(admin, physician_a, client: Client) -> None:
    make_cases(2)
    study = running_study(admin, raters=[physician_a], tasks=["narrative-quality"])
    claim_and_submit(study, physician_a, "2")
    ratings = Rating.objects.filter(assignment__rater=physician_a).count()
    assert ratings > 0
    account_deactivate(user=physician_a)
    assert Rating.objects.filter(assignment__rater=physician_a).count() == ratings
    assert not signs_in("physician_a", "correct-horse-battery-9")


def api_for(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def test_admins_manage_accounts_through_the_api(admin) -> None:
    api = api_for(admin)
    created = api.post(reverse("accounts_api:account_list"), {
        "username": "dr.api", "role": "physician", "rank": "attending", "specialties": ["Cardiology"],
        "languages": ["en"], "email": "api@example.org"}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["role"] == "physician"
    changed = api.put(reverse("accounts_api:account_detail", args=["dr.api"]),
                      {"role": "inspector", "languages": ["en", "zh"]}, format="json")
    assert changed.status_code == 200 and changed.json()["role"] == "inspector"
    off = api.post(reverse("accounts_api:account_deactivate", args=["dr.api"]))
    assert off.status_code == 200 and off.json()["is_active"] is False
    invited = api.post(reverse("accounts_api:account_invite", args=["dr.api"]))
    assert invited.status_code == 400  # deactivated accounts get no invitation


def test_the_api_refuses_a_csv_with_a_bad_row_and_writes_nothing(admin) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = api_for(admin).post(reverse("accounts_api:account_import"), {
        "file": SimpleUploadedFile("people.csv", (GOOD_CSV + "y,,nurse,,,,,\n").encode())}, format="multipart")
    assert response.status_code == 400
    assert response.json()["errors"][0] == {"line": 5, "column": "role",
                                            "message": "unknown role 'nurse'; expected one of physician, inspector, researcher, admin"}
    assert not User.objects.filter(username="dr.lin").exists()


@pytest.mark.parametrize("persona", ["physician_a", "inspector", "researcher"])
def test_only_admins_reach_the_accounts_api(persona: str, request) -> None:
    api = api_for(request.getfixturevalue(persona))
    assert api.get(reverse("accounts_api:account_list")).status_code == 403
    assert api.post(reverse("accounts_api:account_list"), {"username": "x", "role": "admin"}, format="json").status_code == 403
