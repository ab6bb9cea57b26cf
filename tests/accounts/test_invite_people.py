"""What an admin does with people from the browser (issue 24): invite one person or a CSV file,
resend and revoke pending invitations; the Django admin edits a profile with the same list controls."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.models import Profile
from tests.conftest import login

pytestmark = pytest.mark.django_db

User = get_user_model()


def _invite(**overrides) -> dict:
    data = {"action": "invite", "email": "li.wei@hospital.example", "role": "physician", "rank": "attending",
            "specialties": [], "other_specialties": "Cardiology", "languages": ["en", "zh"]}
    data.update(overrides)
    return data


def _link(message) -> str:
    return re.search(r"http://testserver(/accounts/invitation/\S+)", message.body).group(1)


def test_it_invites_a_person_with_lists_and_a_generated_pseudonym(client, admin):
    response = login(client, admin).post(reverse("accounts:people"), _invite())
    assert response.status_code == 302
    user = User.objects.get(email="li.wei@hospital.example")
    assert user.username == "li.wei" and not user.has_usable_password()
    profile = user.profile
    assert (profile.role, profile.rank, profile.specialties, profile.languages) == (
        "physician", "attending", ["Cardiology"], ["en", "zh"])
    assert re.fullmatch(r"R-[0-9a-f]{8}", profile.pseudonym)
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["li.wei@hospital.example"]
    page = client.get(reverse("accounts:people")).content.decode()
    assert "<td>li.wei</td>" in page and profile.pseudonym in page  # listed as pending


def test_it_offers_the_languages_and_known_specialties_as_choices(client, admin, physician_a):
    Profile.objects.filter(user=physician_a).update(specialties=["Nephrology"])
    page = login(client, admin).get(reverse("accounts:people")).content.decode()
    assert 'value="Nephrology"' in page and 'value="zh"' in page and 'value="en"' in page


def test_it_refuses_an_e_mail_address_another_account_has(client, admin, physician_a):
    User.objects.filter(pk=physician_a.pk).update(email="taken@hospital.example")
    response = login(client, admin).post(reverse("accounts:people"), _invite(email="taken@hospital.example"))
    assert response.status_code == 400
    assert "an account with taken@hospital.example already exists" in response.content.decode()
    assert User.objects.filter(email__iexact="taken@hospital.example").count() == 1 and not mail.outbox


def test_it_invites_everyone_of_a_csv_file(client, admin):
    csv = (b"username,email,role,rank,specialties,languages\n"
           b"ana,ana@h.example,physician,,Cardiology;Nephrology,en;es\n"
           b"bo,bo@h.example,inspector,chief,,zh\n")
    response = login(client, admin).post(reverse("accounts:people"), {
        "action": "csv", "file": SimpleUploadedFile("people.csv", csv, content_type="text/csv")})
    assert response.status_code == 302
    assert sorted(m.to[0] for m in mail.outbox) == ["ana@h.example", "bo@h.example"]
    assert User.objects.get(username="bo").profile.rank == "chief"


def test_it_refuses_a_csv_file_with_a_bad_row_naming_file_line_and_column(client, admin):
    csv = b"username,email,role\nana,ana@h.example,physician\nbo,bo@h.example,surgeon\n"
    response = login(client, admin).post(reverse("accounts:people"), {
        "action": "csv", "file": SimpleUploadedFile("people.csv", csv, content_type="text/csv")})
    assert response.status_code == 400
    assert "people.csv, line 3, column role" in response.content.decode()
    assert not User.objects.filter(username__in=["ana", "bo"]).exists() and not mail.outbox


def test_it_resends_an_invitation_and_voids_the_earlier_link(client, admin):
    login(client, admin).post(reverse("accounts:people"), _invite())
    first = _link(mail.outbox[0])
    response = client.post(reverse("accounts:people_resend", args=["li.wei"]))
    assert response.status_code == 302 and len(mail.outbox) == 2
    client.logout()
    assert "has been used or has expired" in client.get(first, follow=True).content.decode()
    assert "has been used or has expired" not in client.get(_link(mail.outbox[1]), follow=True).content.decode()


def test_it_revokes_an_invitation(client, admin):
    login(client, admin).post(reverse("accounts:people"), _invite())
    link = _link(mail.outbox[0])
    assert client.post(reverse("accounts:people_revoke", args=["li.wei"])).status_code == 302
    user = User.objects.get(username="li.wei")
    assert not user.is_active
    assert "<td>li.wei</td>" not in client.get(reverse("accounts:people")).content.decode()
    client.logout()
    assert "has been used or has expired" in client.get(link, follow=True).content.decode()


def test_it_does_not_revoke_an_account_that_signed_in(client, admin, physician_a):
    response = login(client, admin).post(reverse("accounts:people_revoke", args=[physician_a.username]),
                                         follow=True)
    assert "has no pending invitation" in response.content.decode()
    physician_a.refresh_from_db()
    assert physician_a.is_active


def test_it_keeps_the_people_pages_to_admins(client, physician_a, inspector, researcher):
    for user in (physician_a, inspector, researcher):
        login(client, user)
        assert client.get(reverse("accounts:people")).status_code == 403
        assert client.post(reverse("accounts:people"), _invite()).status_code == 403
        assert client.post(reverse("accounts:people_revoke", args=[physician_a.username])).status_code == 403
    assert not User.objects.filter(email="li.wei@hospital.example").exists()


def test_it_answers_404_for_an_unknown_account_and_405_for_wrong_methods(client, admin):
    login(client, admin)
    assert client.post(reverse("accounts:people_resend", args=["nobody"])).status_code == 404
    assert client.get(reverse("accounts:people_resend", args=["nobody"])).status_code == 405
    assert client.delete(reverse("accounts:people")).status_code == 405


def test_it_edits_languages_in_the_django_admin_from_a_list(client, physician_a):
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw-root-2026"))
    url = reverse("admin:auth_user_change", args=[physician_a.pk])
    page = client.get(url).content.decode()
    assert 'name="profile-0-languages"' in page and 'type="checkbox"' in page and 'value="zh"' in page
    assert reverse("accounts:people") == client.get(reverse("admin:auth_user_add"))["Location"]


def test_it_stores_the_admin_profile_lists_as_lists(physician_a):
    from accounts.invitations.forms import ProfileAdminForm

    form = ProfileAdminForm({"role": "inspector", "rank": "chief", "languages": ["en", "zh"], "specialties": []},
                            instance=physician_a.profile)
    assert form.is_valid(), form.errors
    form.save()
    physician_a.profile.refresh_from_db()
    assert physician_a.profile.languages == ["en", "zh"] and physician_a.profile.role == "inspector"
    assert not ProfileAdminForm({"role": "physician", "languages": ["klingon"]}, instance=physician_a.profile).is_valid()
