from django import forms
from django.utils.translation import gettext_lazy as _

from cases.models import ImportFormat
from cases.services import DEFAULT_GRADER_MODEL, NEEDS_MODEL


class ImportUploadForm(forms.Form):
    format = forms.ChoiceField(choices=ImportFormat.choices, label=_("Format"))
    file = forms.FileField(label=_("File"), help_text=_("JSON, JSONL or CSV, UTF-8"))
    dataset = forms.CharField(
        max_length=100, required=False, label=_("Dataset"),
        help_text=_("Default: LiveMedBench, LiveClin, HealthBench or ClinConsensus"),
    )
    release_label = forms.CharField(max_length=100, required=False, label=_("Release label"),
                                    help_text=_("e.g. v202601 (default: file name)"))
    model_name = forms.CharField(max_length=200, required=False, label=_("Model name"),
                                 help_text=_("Responses and grades: the model that answered"))
    grader_model = forms.CharField(max_length=200, required=False, initial=DEFAULT_GRADER_MODEL,
                                   label=_("Grader model"), help_text=_("Grades: the grader model"))
    taxonomy = forms.CharField(max_length=101, required=False, label=_("Taxonomy"),
                               help_text=_("AI labels: the taxonomy of case labels, key or key@version (default: liveclin)"))

    def clean(self) -> dict:
        cleaned = super().clean()
        if cleaned.get("format") in NEEDS_MODEL and not (cleaned.get("model_name") or "").strip():
            self.add_error("model_name", _("This format needs the name of the model that answered."))
        return cleaned
