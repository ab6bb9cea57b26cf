"""Forms of the study pages: creating a study, adding members and items.
"""

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from accounts.models import Rank, Role
from annotation.models import ItemKind, StudyMember, TaskType
from annotation.models.translated import TextDisplay
from cases.models import Dataset, Difficulty, Register
from medreview.text import split_values


def _people(*roles: str) -> QuerySet:
    return (
        get_user_model()
        .objects.filter(is_active=True, profile__role__in=roles)
        .select_related("profile")
        .order_by("username")
    )


class TaskChoiceField(forms.ModelMultipleChoiceField):
    """Task types named in the reader's language."""

    def label_from_instance(self, obj: TaskType) -> str:
        return obj.shown_name


class SelectionForm(forms.Form):
    """Which cases / responses / question sets a study reviews (services.ItemSelection)."""

    kind = forms.ChoiceField(choices=ItemKind.choices, initial=ItemKind.CASE, label=_("Items are"))
    dataset = forms.ModelChoiceField(
        queryset=Dataset.objects.all(), required=False, to_field_name="name", empty_label=_("Any dataset"),
        label=_("Dataset"),
    )
    release_label = forms.CharField(required=False, max_length=100, label=_("Release label"))
    model_names = forms.CharField(
        required=False, label=_("Models (comma-separated)"), help_text=_("For response and pair items.")
    )
    specialties = forms.CharField(required=False, label=_("Specialties (comma-separated)"))
    themes = forms.CharField(required=False, label=_("Themes (comma-separated)"))
    difficulty = forms.ChoiceField(choices=[("", _("Any"))] + Difficulty.choices, required=False, label=_("Difficulty"))
    register = forms.ChoiceField(choices=[("", _("Any"))] + Register.choices, required=False, label=_("Register"))
    language = forms.CharField(required=False, max_length=16, label=_("Language"), help_text=_("e.g. en or zh"))
    sample_n = forms.IntegerField(required=False, min_value=1, label=_("Random sample of N"))
    seed = forms.IntegerField(required=False, label=_("Seed"), help_text=_("Recorded with the study; random when empty"))
    passed_prescreen = forms.BooleanField(
        required=False, label=_("Only question sets that passed the Judge pre-screen (LiveClin)")
    )
    validated = forms.BooleanField(required=False, label=_("Only validated question sets (LiveClin)"))

    def selection_kwargs(self) -> dict:
        data = self.cleaned_data
        dataset = data.get("dataset")
        return {
            "dataset": dataset.name if dataset else None,
            "release_label": data.get("release_label") or None,
            "kind": ItemKind(data["kind"]),
            "model_names": list(split_values(data.get("model_names") or "", ",\n")),
            "specialties": list(split_values(data.get("specialties") or "", ",\n")),
            "themes": list(split_values(data.get("themes") or "", ",\n")),
            "difficulty": data.get("difficulty") or None,
            "register": data.get("register") or None,
            "language": data.get("language") or None,
            "sample_n": data.get("sample_n"),
            "seed": data.get("seed"),
            "passed_prescreen": bool(data.get("passed_prescreen")),
            "validated": bool(data.get("validated")),
        }


class StudyCreateForm(SelectionForm):
    name = forms.CharField(max_length=200, label=_("Name"))
    tasks = TaskChoiceField(
        queryset=TaskType.objects.all(), to_field_name="slug", widget=forms.CheckboxSelectMultiple, label=_("Tasks")
    )
    raters_per_item = forms.IntegerField(min_value=1, max_value=20, initial=2, label=_("Raters per item"))
    raters = forms.ModelMultipleChoiceField(
        queryset=_people(Role.PHYSICIAN, Role.INSPECTOR), required=False, widget=forms.CheckboxSelectMultiple,
        label=_("Raters"),
    )
    inspectors = forms.ModelMultipleChoiceField(
        queryset=_people(Role.INSPECTOR, Role.ADMIN), required=False, widget=forms.CheckboxSelectMultiple,
        label=_("Inspectors"),
    )
    inspect_all = forms.BooleanField(required=False, label=_("Inspect every item"))
    inspect_disagreements = forms.BooleanField(required=False, initial=True, label=_("Inspect disagreements"))
    inspect_share = forms.FloatField(
        min_value=0, max_value=1, initial=0.0, label=_("Random share to inspect (0..1)")
    )
    required_specialties = forms.CharField(required=False, label=_("Rater specialties (any of, comma-separated)"))
    required_languages = forms.CharField(required=False, label=_("Rater languages (comma-separated)"))
    guidelines = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 5}), label=_("Guidelines"),
                                 help_text=_("Markdown"))
    deadline = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"}), label=_("Deadline")
    )
    lease_minutes = forms.IntegerField(min_value=1, max_value=24 * 60, initial=30, label=_("Lease minutes"))
    show_prescreen = forms.BooleanField(
        required=False, label=_("Show the pre-screen"), help_text=_("LiveClin: the Judge's verdicts beside each question")
    )
    min_inspector_rank = forms.ChoiceField(
        choices=[("", _("Any inspector"))] + Rank.choices, required=False, label=_("Minimum inspector rank")
    )
    text_display = forms.ChoiceField(
        choices=TextDisplay.choices, initial=TextDisplay.AUTO, required=False, label=_("Case text raters read"),
        help_text=_("Original, translation, or both side by side (auto: both for bilingual raters)"),
    )
    translation_language = forms.CharField(
        max_length=16, initial="zh-Hans", required=False, label=_("Translation language (BCP 47)")
    )
    start = forms.BooleanField(required=False, initial=True, label=_("Start the study now"))

    field_order = ["name", "tasks", "kind", "dataset", "release_label", "model_names"]


class AddMembersForm(forms.Form):
    users = forms.ModelMultipleChoiceField(
        queryset=_people(Role.PHYSICIAN, Role.INSPECTOR, Role.ADMIN), widget=forms.CheckboxSelectMultiple,
        label=_("Users"),
    )
    role = forms.ChoiceField(choices=StudyMember.Role.choices, initial=StudyMember.Role.RATER, label=_("Role"))


class AddItemsForm(SelectionForm):
    pass


def split_list(text: str) -> list[str]:
    return list(split_values(text, ",\n"))
