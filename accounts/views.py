"""Account pages anyone with a valid invitation link may open: choose a password."""

from django.contrib.auth.views import PasswordResetConfirmView
from django.urls import reverse_lazy

from accounts.services import invitation_tokens


class InvitationView(PasswordResetConfirmView):
    """The invitation link: Django's password-reset confirmation with its own token salt, so an
    invitation token is not a password-reset token and works once (it hashes the password)."""

    token_generator = invitation_tokens
    template_name = "registration/invitation.html"
    success_url = reverse_lazy("login")
    post_reset_login = False
    reset_url_token = "set-password"  # noqa: S105 (a URL segment, not a password)
