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
