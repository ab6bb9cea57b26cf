"""Forms of the grader pages."""

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.models import Study
from cases.models import Dataset, Release
from graders.kinds import prompts
from graders.models import GraderConfig, GraderKind


class GraderConfigForm(forms.ModelForm):
    base_url = forms.URLField(
        max_length=500, assume_scheme="https", help_text=_("OpenAI-compatible endpoint, e.g. http://host:8000/v1")
    )
    prompt_version = forms.CharField(
        max_length=100, required=False,
        help_text=_("A changed prompt text needs a new version (versions are immutable). Empty: v1."),
    )
    prompt_text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 16}), required=False,
        help_text=_("System prompt, a line <<<USER>>>, then the user prompt. Empty: the built-in prompt for the kind."),
    )
    axes_text = forms.CharField(
        required=False, label=_("Axes (Likert judge)"),
        help_text=_("Comma-separated; empty: the MEDIC axes ") + ", ".join(prompts.LIKERT_AXES),
    )

    class Meta:
        model = GraderConfig
        fields = [
            "name", "kind", "base_url", "model", "temperature", "max_tokens", "concurrency", "timeout_seconds",
            "max_attempts", "backoff_base_seconds", "price_input_per_1k", "price_output_per_1k", "api_key_env",
            "structured_output",
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["prompt_version"].initial = self.instance.prompt.version
            self.fields["prompt_text"].initial = self.instance.prompt.text
            self.fields["axes_text"].initial = ", ".join(self.instance.axes or [])

    def clean_api_key_env(self) -> str:
        value = self.cleaned_data["api_key_env"].strip()
        if value.lower().startswith(("sk-", "sk_")) or len(value) > 64:
            raise forms.ValidationError("This looks like a key. Enter the NAME of the environment variable instead.")
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


class GradingJobForm(forms.Form):
    SELECTION_CHOICES = [("study", "A study"), ("release", "A release"), ("models", "Models' responses in a dataset")]

    config = forms.ModelChoiceField(queryset=GraderConfig.objects.none(), label=_("Grader"))
    selection = forms.ChoiceField(choices=SELECTION_CHOICES, widget=forms.RadioSelect, initial="release")
    study = forms.ModelChoiceField(queryset=Study.objects.order_by("-created_at"), required=False)
    release = forms.ModelChoiceField(queryset=Release.objects.select_related("dataset"), required=False)
    dataset = forms.ModelChoiceField(queryset=Dataset.objects.all(), required=False)
    models = forms.CharField(required=False, help_text=_("Model names, comma-separated (empty: all models)"))
    parallel_tasks = forms.IntegerField(
        min_value=1, max_value=16, initial=2,
        help_text=_("Background tasks sharing the job (one per worker you run); each uses concurrency / this"),
    )

    def __init__(self, *args: Any, configs: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["config"].queryset = configs

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        kind = data.get("selection")
        if kind == "study" and not data.get("study"):
            self.add_error("study", "Choose the study to grade.")
        elif kind == "release" and not data.get("release"):
            self.add_error("release", "Choose the release to grade.")
        elif kind == "models" and not data.get("dataset"):
            self.add_error("dataset", "Choose the dataset whose responses to grade.")
        return data

    def selection_value(self) -> dict[str, Any]:
        data = self.cleaned_data
        if data["selection"] == "study":
            return {"study": data["study"].pk}
        if data["selection"] == "release":
            return {"release": data["release"].pk}
        models = [m.strip() for m in data.get("models", "").split(",") if m.strip()]
        return {"dataset": data["dataset"].pk, "models": models}
