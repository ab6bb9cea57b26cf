"""Forms of the grader pages."""

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.fields import axis_label
from annotation.models import Study
from cases.models import Dataset, Release
from graders.kinds import prompts
from graders.models import GraderConfig, GraderKind
from medreview.i18n.widgets import UserTextSelect
from medreview.text import script_language


class GraderConfigForm(forms.ModelForm):
    base_url = forms.URLField(
        max_length=500, assume_scheme="https", label=_("Endpoint"),
        help_text=_("OpenAI-compatible endpoint, e.g. http://host:8000/v1"),
    )
    prompt_version = forms.CharField(
        max_length=100, required=False, label=_("Prompt version"),
        help_text=_("A changed prompt text needs a new version (versions are immutable). Empty: v1."),
    )
    prompt_text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 16}), required=False, label=_("Prompt text"),
        help_text=_("System prompt, a line <<<USER>>>, then the user prompt. Empty: the built-in prompt for the kind."),
    )
    axes_text = forms.CharField(required=False, label=_("Axes (Likert judge)"))

    class Meta:
        model = GraderConfig
        fields = [
            "name", "kind", "base_url", "model", "temperature", "max_tokens", "concurrency", "timeout_seconds",
            "max_attempts", "backoff_base_seconds", "price_input_per_1k", "price_output_per_1k", "api_key_env",
            "structured_output",
        ]
        labels = {
            "name": _("Name"), "kind": _("Kind"), "model": _("Model"), "temperature": _("Temperature"),
            "max_tokens": _("Max tokens"), "concurrency": _("Concurrency"), "timeout_seconds": _("Timeout (seconds)"),
            "max_attempts": _("Max attempts"), "backoff_base_seconds": _("Backoff base (seconds)"),
            "price_input_per_1k": _("Price per 1,000 input tokens"),
            "price_output_per_1k": _("Price per 1,000 output tokens"), "api_key_env": _("API key variable"),
            "structured_output": _("Structured output"),
        }
        help_texts = {
            "model": _("Model name sent to the endpoint"),
            "concurrency": _("Most requests in flight for one job, across all workers"),
            "max_attempts": _("Calls per decision before it is recorded as failed"),
            "backoff_base_seconds": _("Retry n waits a random time in [0, base × 2ⁿ] (exponential backoff, full jitter)"),
            "price_input_per_1k": "", "price_output_per_1k": "",
            "api_key_env": _("Name of the environment variable holding the API key (the key is never stored)"),
            "structured_output": _("Ask for JSON-schema structured output (falls back to parsing if rejected)"),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        axes = gettext(", ").join(axis_label(axis) for axis in prompts.LIKERT_AXES)
        self.fields["axes_text"].help_text = gettext("Comma-separated; empty: the MEDIC axes %(axes)s") % {"axes": axes}
        if self.instance.pk:
            self.fields["prompt_version"].initial = self.instance.prompt.version
            self.fields["prompt_text"].initial = self.instance.prompt.text
            self.fields["axes_text"].initial = ", ".join(self.instance.axes or [])
        # The prompt and the names are what an admin wrote: they keep their own language on the page.
        for name in ("name", "model", "prompt_text", "axes_text"):
            value = self.initial.get(name, self.fields[name].initial)
            if language := script_language(str(value or "")):
                self.fields[name].widget.attrs["lang"] = language

    def clean_api_key_env(self) -> str:
        value = self.cleaned_data["api_key_env"].strip()
        if value.lower().startswith(("sk-", "sk_")) or len(value) > 64:
            raise forms.ValidationError(_("This looks like a key. Enter the NAME of the environment variable instead."))
        return value

    def prompt_values(self) -> tuple[str, str]:
        kind = self.cleaned_data["kind"]
        text = self.cleaned_data.get("prompt_text", "").strip()
        version = self.cleaned_data.get("prompt_version", "").strip()
        if not text:
            return prompts.DEFAULT_PROMPTS[kind], version or prompts.DEFAULT_VERSION
        return text, version or prompts.DEFAULT_VERSION

    def config_data(self) -> dict[str, Any]:
        data = {name: self.cleaned_data[name] for name in self.Meta.fields}
        axes = [a.strip() for a in self.cleaned_data.get("axes_text", "").split(",") if a.strip()]
        data["axes"] = axes if data["kind"] == GraderKind.LIKERT_JUDGE else []
        return data


def release_choices() -> list[tuple[str, list[tuple[int, str]]]]:
    """Releases grouped by what their file held (in the reader's language); each option names only
    the dataset, label and model (in their own language) with the import date and id that make it unique."""
    groups: dict[str, list[tuple[int, str]]] = {}
    for release in Release.objects.select_related("dataset").order_by("format", "dataset__name", "-imported_at"):
        date = f" · {release.imported_at:%Y-%m-%d}" if release.imported_at else ""
        groups.setdefault(str(release.get_format_display()), []).append(
            (release.pk, f"{release.names}{date} (#{release.pk})"))
    return list(groups.items())


class GradingJobForm(forms.Form):
    SELECTION_CHOICES = [("study", _("A study")), ("release", _("A release")),
                         ("models", _("Models' responses in a dataset"))]

    config = forms.ModelChoiceField(queryset=GraderConfig.objects.none(), label=_("Grader"), widget=UserTextSelect)
    selection = forms.ChoiceField(choices=SELECTION_CHOICES, widget=forms.RadioSelect, initial="release",
                                  label=_("What to grade"))
    study = forms.ModelChoiceField(queryset=Study.objects.order_by("-created_at"), required=False, label=_("Study"),
                                   widget=UserTextSelect)
    release = forms.TypedChoiceField(coerce=int, empty_value=None, required=False, label=_("Release"),
                                     widget=UserTextSelect)
    dataset = forms.ModelChoiceField(queryset=Dataset.objects.all(), required=False, label=_("Dataset"),
                                     widget=UserTextSelect)
    models = forms.CharField(required=False, label=_("Models"),
                             help_text=_("Model names, comma-separated (empty: all models)"))
    parallel_tasks = forms.IntegerField(
        min_value=1, max_value=16, initial=2, label=_("Parallel tasks"),
        help_text=_("Background tasks sharing the job (one per worker you run); each uses concurrency / this"),
    )

    def __init__(self, *args: Any, configs: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["config"].queryset = configs
        for name in ("config", "study", "dataset"):
            self.fields[name].empty_label = "—"
        self.fields["release"].choices = [("", "—"), *release_choices()]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        kind = data.get("selection")
        if kind == "study" and not data.get("study"):
            self.add_error("study", _("Choose the study to grade."))
        elif kind == "release" and not data.get("release"):
            self.add_error("release", _("Choose the release to grade."))
        elif kind == "models" and not data.get("dataset"):
            self.add_error("dataset", _("Choose the dataset whose responses to grade."))
        return data

    def selection_value(self) -> dict[str, Any]:
        data = self.cleaned_data
        if data["selection"] == "study":
            return {"study": data["study"].pk}
        if data["selection"] == "release":
            return {"release": data["release"]}
        models = [m.strip() for m in data.get("models", "").split(",") if m.strip()]
        return {"dataset": data["dataset"].pk, "models": models}
