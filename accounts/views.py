"""Account pages: home (each role to its own dashboard) and the invitation link (choose a password)."""

from django.contrib.auth.views import PasswordResetConfirmView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse_lazy
from django.views.decorators.http import require_GET

from accounts.models import Role
from accounts.roles import user_role
from accounts.services import invitation_tokens


class InvitationView(PasswordResetConfirmView):
    """The invitation link: Django's password-reset confirmation with its own token salt, so an
    invitation token is not a password-reset token and works once (it hashes the password)."""

    token_generator = invitation_tokens
    template_name = "registration/invitation.html"
    success_url = reverse_lazy("login")
    post_reset_login = False
    reset_url_token = "set-password"  # noqa: S105 (a URL segment, not a password)


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Send each role to its own dashboard."""
    role = user_role(request.user)
    if role == Role.ADMIN:
        return redirect("annotation:admin_dashboard")
    if role == Role.RESEARCHER:
        return redirect("agreement:report_index")
    if role == Role.INSPECTOR:
        return redirect("annotation:inspector_dashboard")
    return redirect("annotation:physician_dashboard")
