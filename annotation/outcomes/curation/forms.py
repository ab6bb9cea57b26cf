"""The curation form of the admin page."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.models import Study
from annotation.outcomes.curation.build import NAME_PATTERN
from cases import exporters
from cases.models import Release
from medreview.i18n.widgets import UserTextSelect, UserTextSelectMultiple


class CurationForm(forms.Form):
    name = forms.RegexField(regex=NAME_PATTERN, max_length=100, label=_("Name"), help_text=_("e.g. v202601-reviewed"),
                            error_messages={"invalid": _("Letters, digits, '.', '_' and '-' only.")})
    release = forms.ModelChoiceField(queryset=Release.objects.filter(format__in=list(exporters.WRITERS))
                                     .select_related("dataset").order_by("dataset__name", "-imported_at"),
                                     label=_("Release"), widget=UserTextSelect)
    studies = forms.ModelMultipleChoiceField(queryset=Study.objects.order_by("-created_at"), label=_("Studies"),
                                             widget=UserTextSelectMultiple,
                                             help_text=_("Their final labels are applied; they must review this release"))
    keep_rejected = forms.BooleanField(required=False, label=_("Keep rejected criteria, marked in the file (physician_validity)"))
    review_block = forms.BooleanField(required=False, label=_("Add a physician_review block to each case"))
    resolved_only = forms.BooleanField(required=False, label=_("Resolved only: refuse if any field has no final label"))
