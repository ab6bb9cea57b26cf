"""Forms of the review pages. The rating form itself is built from `item_fields` in the view."""

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from accounts.models import Role
from annotation.models import ItemKind, StudyMember, TaskType
from cases.models import Dataset, Difficulty, Register


def _people(*roles: str) -> QuerySet:
    return (
        get_user_model()
        .objects.filter(is_active=True, profile__role__in=roles)
        .select_related("profile")
        .order_by("username")
    )


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


class SelectionForm(forms.Form):
    """Which cases / responses / question sets a study reviews (services.ItemSelection)."""

    kind = forms.ChoiceField(choices=ItemKind.choices, initial=ItemKind.CASE, label="Items are")
    dataset = forms.ModelChoiceField(
        queryset=Dataset.objects.all(), required=False, to_field_name="name", empty_label="Any dataset"
    )
    release_label = forms.CharField(required=False, max_length=100, label="Release label")
    model_names = forms.CharField(
        required=False, label="Models (comma-separated)", help_text="For response and pair items."
    )
    specialties = forms.CharField(required=False, label="Specialties (comma-separated)")
    themes = forms.CharField(required=False, label="Themes (comma-separated)")
    difficulty = forms.ChoiceField(choices=[("", "Any")] + Difficulty.choices, required=False)
    register = forms.ChoiceField(choices=[("", "Any")] + Register.choices, required=False)
    language = forms.CharField(required=False, max_length=16, help_text="e.g. en or zh")
    sample_n = forms.IntegerField(required=False, min_value=1, label="Random sample of N")
    seed = forms.IntegerField(required=False, help_text="Recorded with the study; random when empty")

    def selection_kwargs(self) -> dict:
        data = self.cleaned_data
        dataset = data.get("dataset")
        return {
            "dataset": dataset.name if dataset else None,
            "release_label": data.get("release_label") or None,
            "kind": ItemKind(data["kind"]),
            "model_names": _split(data.get("model_names") or ""),
            "specialties": _split(data.get("specialties") or ""),
            "themes": _split(data.get("themes") or ""),
            "difficulty": data.get("difficulty") or None,
            "register": data.get("register") or None,
            "language": data.get("language") or None,
            "sample_n": data.get("sample_n"),
            "seed": data.get("seed"),
        }


class StudyCreateForm(SelectionForm):
    name = forms.CharField(max_length=200)
    tasks = forms.ModelMultipleChoiceField(
        queryset=TaskType.objects.all(), to_field_name="slug", widget=forms.CheckboxSelectMultiple
    )
    raters_per_item = forms.IntegerField(min_value=1, max_value=20, initial=2)
    raters = forms.ModelMultipleChoiceField(
        queryset=_people(Role.PHYSICIAN, Role.INSPECTOR), required=False, widget=forms.CheckboxSelectMultiple
    )
    inspectors = forms.ModelMultipleChoiceField(
        queryset=_people(Role.INSPECTOR, Role.ADMIN), required=False, widget=forms.CheckboxSelectMultiple
    )
    inspect_all = forms.BooleanField(required=False, label="Inspect every item")
    inspect_disagreements = forms.BooleanField(required=False, initial=True, label="Inspect disagreements")
    inspect_share = forms.FloatField(
        min_value=0, max_value=1, initial=0.0, label="Random share to inspect (0..1)"
    )
    required_specialties = forms.CharField(required=False, label="Rater specialties (any of, comma-separated)")
    required_languages = forms.CharField(required=False, label="Rater languages (comma-separated)")
    guidelines = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 5}), help_text="Markdown")
    deadline = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    lease_minutes = forms.IntegerField(min_value=1, max_value=24 * 60, initial=30)
    start = forms.BooleanField(required=False, initial=True, label="Start the study now")

    field_order = ["name", "tasks", "kind", "dataset", "release_label", "model_names"]


class AddMembersForm(forms.Form):
    users = forms.ModelMultipleChoiceField(
        queryset=_people(Role.PHYSICIAN, Role.INSPECTOR, Role.ADMIN), widget=forms.CheckboxSelectMultiple
    )
    role = forms.ChoiceField(choices=StudyMember.Role.choices, initial=StudyMember.Role.RATER)


class AddItemsForm(SelectionForm):
    pass


class SkipForm(forms.Form):
    reason = forms.CharField(max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))


def split_list(text: str) -> list[str]:
    return _split(text)
