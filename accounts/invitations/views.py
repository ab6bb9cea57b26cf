"""The "Invite people" page: invite one person or a CSV file of people, and the pending invitations
with resend and revoke (admins)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from accounts import access
from accounts.invitations.forms import InviteCSVForm, InviteForm
from accounts.invitations.services import (
    invitation_resend,
    invitation_revoke,
    pending_invitations,
    people_invite_csv,
    person_invite,
)
from accounts.services import AccountData
from medreview.errors import error_messages, flash_error_messages

MAX_CSV_BYTES = 5 * 1024 * 1024


@require_http_methods(["GET", "POST"])
def people(request: HttpRequest) -> HttpResponse:
    access.check_can_manage_accounts(request.user)
    action = request.POST.get("action") if request.method == "POST" else None
    invite_form = InviteForm(request.POST if action == "invite" else None)
    csv_form = InviteCSVForm(request.POST if action == "csv" else None, request.FILES if action == "csv" else None)
    base_url = request.build_absolute_uri("/")
    if action == "invite" and invite_form.is_valid():
        data = invite_form.cleaned_data
        try:
            user, link = person_invite(data=AccountData(
                username=data["username"], email=data["email"], role=data["role"], rank=data["rank"],
                specialties=invite_form.all_specialties(), languages=tuple(data["languages"]),
                first_name=data["first_name"], last_name=data["last_name"],
            ), base_url=base_url, by=request.user)
        except ValidationError as exc:
            for message in error_messages(exc):
                invite_form.add_error(None, message)
        else:
            messages.success(request, _("Invitation e-mailed to %(email)s: account %(username)s, pseudonym "
                                        "%(pseudonym)s.") % {"email": user.email, "username": user.get_username(),
                                                             "pseudonym": user.profile.pseudonym})
            return redirect("accounts:people")
    if action == "csv" and csv_form.is_valid():
        upload = csv_form.cleaned_data["file"]
        if upload.size > MAX_CSV_BYTES:
            csv_form.add_error("file", _("%(file)s: larger than 5 MB.") % {"file": upload.name})
        else:
            result = people_invite_csv(data=upload.read(), base_url=base_url, by=request.user)
            if not result.errors:
                messages.success(request, ngettext("%(count)d invitation sent.", "%(count)d invitations sent.",
                                                   len(result.invited)) % {"count": len(result.invited)})
                return redirect("accounts:people")
            for error in result.errors:
                csv_form.add_error(None, _("%(file)s, %(error)s") % {"file": upload.name, "error": error})
    status = 400 if request.method == "POST" else 200
    return render(request, "accounts/people.html", {
        "invite_form": invite_form, "csv_form": csv_form, "pending": list(pending_invitations()),
    }, status=status)


@require_http_methods(["POST"])
def people_resend(request: HttpRequest, username: str) -> HttpResponse:
    user = access.access_account_for_management(request.user, username)
    try:
        invitation_resend(user=user, base_url=request.build_absolute_uri("/"), by=request.user)
    except ValidationError as exc:
        flash_error_messages(request, exc)
    else:
        messages.success(request, _("A new invitation was sent to %(username)s; the earlier link no longer "
                                    "works.") % {"username": user.get_username()})
    return redirect("accounts:people")


@require_http_methods(["POST"])
def people_revoke(request: HttpRequest, username: str) -> HttpResponse:
    user = access.access_account_for_management(request.user, username)
    try:
        invitation_revoke(user=user, by=request.user)
    except ValidationError as exc:
        flash_error_messages(request, exc)
    else:
        messages.success(request, _("The invitation of %(username)s is revoked: its link no longer works and "
                                    "the account is deactivated.") % {"username": user.get_username()})
    return redirect("accounts:people")
