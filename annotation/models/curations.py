"""A curated release built from a release and the final labels of chosen studies.
"""

from django.conf import settings
from django.db import models

from annotation.models.studies import Study
from cases.models import Release


class Curation(models.Model):
    """A curated release: a release and the final labels of chosen studies, written in the benchmark's
    own format under MEDIA_ROOT/curations/<name>/ with a manifest (docs/curation.md)."""

    name = models.CharField(max_length=100, unique=True, help_text="e.g. v202601-reviewed")
    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="curations")
    format = models.CharField(max_length=32)
    studies = models.ManyToManyField(Study, related_name="curations")
    rules = models.JSONField(default=dict, blank=True)
    manifest = models.JSONField(default=dict, blank=True)
    files = models.JSONField(default=dict, blank=True, help_text="file name -> SHA-256")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return self.name
