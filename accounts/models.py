"""People: a user's role, rank, specialties and languages, and the pseudonym researchers see.

The table predates this app (it was created by `annotation` as `annotation_profile`) and keeps
its name so that moving the model moved no data.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Role(models.TextChoices):
    PHYSICIAN = "physician", _("Physician")
    INSPECTOR = "inspector", _("Inspector (senior physician)")
    RESEARCHER = "researcher", _("Researcher")
    ADMIN = "admin", pgettext_lazy("role", "Admin")


class Rank(models.TextChoices):
    ATTENDING = "attending", _("Attending")
    ASSOCIATE_CHIEF = "associate_chief", _("Associate Chief")
    CHIEF = "chief", _("Chief")


class Profile(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.PHYSICIAN)
    specialties = models.JSONField(default=list, blank=True)
    languages = models.JSONField(default=list, blank=True, help_text='e.g. ["en", "zh"]')
    rank = models.CharField(max_length=16, choices=Rank.choices, blank=True)
    pseudonym = models.CharField(
        max_length=32, unique=True, help_text="Stable name under which researchers see this rater"
    )
    language = models.CharField(
        max_length=16, blank=True, choices=settings.LANGUAGES,
        help_text="Interface language chosen in the top bar (empty: the browser's Accept-Language)",
    )

    class Meta:
        db_table = "annotation_profile"

    def __str__(self) -> str:
        return f"{self.user} ({self.get_role_display()})"


class OIDCIdentity(models.Model):
    """A person at an identity provider, bound to one account: single sign-on finds the account by
    the ID token's (`iss`, `sub`), never by a name or an e-mail the provider lets people choose.

    Made when single sign-on creates a new account (`linked_by` empty), or by an admin's explicit
    mapping of an existing account (admin, `accounts link-oidc`, API), never by matching names.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oidc_identities")
    issuer = models.CharField(max_length=500, help_text="The provider's `iss`, e.g. https://login.hospital.example")
    subject = models.CharField(max_length=255, help_text="The person's `sub` at that provider (case-sensitive)")
    linked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The admin who mapped an existing account; empty when sign-on created the account",
    )
    linked_at = models.DateTimeField(auto_now_add=True)
    last_sign_in = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "single sign-on identity"
        verbose_name_plural = "single sign-on identities"
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="oidc_identity_unique_subject"),
            # One identity per provider and account: a second would be a second person.
            models.UniqueConstraint(fields=["user", "issuer"], name="oidc_identity_one_per_issuer"),
        ]

    def __str__(self) -> str:
        return f"{self.subject} at {self.issuer}"
