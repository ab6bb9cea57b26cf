"""Forms of the study pages: creating a study, adding members and items.
"""

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from accounts.invitations.choices import language_choices, specialty_choices
from accounts.models import Rank, Role
from annotation.models import ItemKind, StudyMember, TaskType
from annotation.models.translated import TextDisplay
from annotation.studies.setup import CURRENCIES, tasks_for_kind
from cases.models import Dataset, Difficulty, Register, Release
from medreview.i18n.widgets import UserTextSelect
from medreview.text import split_values


def _people(*roles: str) -> QuerySet:
    return (
        get_user_model()
        .objects.filter(is_active=True, profile__role__in=roles)
        .select_related("profile")
        .order_by("username")
    )


def _person_label(user: Any) -> str:
    """Name and rank, so that the inspectors' ranks can be checked while choosing (the study's minimum
    rank is enforced on creation)."""
    profile = getattr(user, "profile", None)
    rank = profile.get_rank_display() if profile is not None and profile.rank else ""
    name = user.get_full_name() or user.get_username()
    return f"{name} · {rank}" if rank else name
class TaskChoiceField(forms.ModelMultipleChoiceField):
    """Task types named in the reader's language."""

    def label_from_instance(self, obj: TaskType) -> str:
        return obj.shown_name


class SelectionForm(forms.Form):
    """Which cases / responses / question sets a study reviews (services.ItemSelection)."""

    kind = forms.ChoiceField(choices=ItemKind.choices, initial=ItemKind.CASE, label=_("Items are"))
    dataset = forms.ModelChoiceField(
        queryset=Dataset.objects.all(), required=False, to_field_name="name", empty_label=_("Any dataset"),
        label=_("Dataset"), widget=UserTextSelect,
    )
    # Picked from the imported releases (of the chosen dataset): a typed label once matched nothing.
    release_label = forms.ChoiceField(required=False, label=_("Release"), widget=UserTextSelect)
    model_names = forms.CharField(
        required=False, label=_("Models (comma-separated)"), help_text=_("For response and pair items.")
    )
    specialties = forms.CharField(required=False, label=_("Specialties (comma-separated)"))
    themes = forms.CharField(required=False, label=_("Themes (comma-separated)"))
    difficulty = forms.ChoiceField(choices=[("", _("Any"))] + Difficulty.choices, required=False,
                                   label=_("Difficulty"))
    register = forms.ChoiceField(choices=[("", _("Any"))] + Register.choices, required=False, label=_("Register"))
    language = forms.CharField(required=False, max_length=16, label=_("Language"), help_text=_("e.g. en or zh"))
    sample_n = forms.IntegerField(required=False, min_value=1, label=_("Random sample of N"))
    seed = forms.IntegerField(required=False, label=_("Seed"), help_text=_("Recorded with the study; random when empty"))
    passed_prescreen = forms.BooleanField(
        required=False, label=_("Only question sets that passed the Judge pre-screen (LiveClin)")
    )
    validated = forms.BooleanField(required=False, label=_("Only validated question sets (LiveClin)"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["release_label"].choices = release_choices(self._raw("dataset"))

    def _raw(self, name: str) -> str:
        """The submitted (or initial) value of a field, before validation: what the lists depend on."""
        if self.is_bound:
            return str(self.data.get(self.add_prefix(name)) or "")
        value = self.initial.get(name, self.fields[name].initial)
        return str(value or "")

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


def release_choices(dataset: str) -> list[tuple[str, str]]:
    releases = Release.objects.order_by("dataset__name", "label")
    if dataset:
        releases = releases.filter(dataset__name=dataset)
    labels = list(dict.fromkeys(releases.values_list("label", flat=True)))
    return [("", _("Any release"))] + [(label, label) for label in labels]


class StudyCreateForm(SelectionForm):
    name = forms.CharField(max_length=200, label=_("Study name"))
    # Only the tasks that rate the chosen item kind are offered (`tasks_for_kind`); the service
    # refuses a mismatch anyway, in words.
    tasks = TaskChoiceField(
        queryset=TaskType.objects.all(), to_field_name="slug", widget=forms.CheckboxSelectMultiple,
        label=_("Tasks"),
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
    required_specialties = forms.MultipleChoiceField(
        required=False, widget=forms.SelectMultiple(attrs={"size": 5}), label=_("Rater specialties (any of)"),
        help_text=_("Empty: any rater"),
    )
    required_languages = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label=_("Rater languages"),
        help_text=_("A rater must read one of them; empty: any rater"),
    )
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
    group_a = forms.ModelMultipleChoiceField(
        queryset=_people(Role.PHYSICIAN, Role.INSPECTOR), required=False, widget=forms.CheckboxSelectMultiple,
        label=_("Expert group A"), help_text=_("Raters only; each item gets raters of both groups"),
    )
    group_b = forms.ModelMultipleChoiceField(
        queryset=_people(Role.PHYSICIAN, Role.INSPECTOR), required=False, widget=forms.CheckboxSelectMultiple,
        label=_("Expert group B"),
    )
    calibration_percent = forms.IntegerField(
        required=False, min_value=0, max_value=100, label=_("Calibration: admit automatically at (%)"),
        help_text=_("Share of calibration labels matching the expected answer; empty: an admin admits"),
    )
    hourly_rate = forms.DecimalField(
        required=False, min_value=0, max_digits=8, decimal_places=2, label=_("Hourly rate"),
        help_text=_("Cost of one hour of active review, for the effort and cost report"),
    )
    currency = forms.ChoiceField(choices=[(c, c) for c in CURRENCIES], initial="USD", required=False,
                                 label=_("Currency"))
    start = forms.BooleanField(required=False, initial=True, label=_("Start the study now"))

    field_order = ["name", "kind", "dataset", "release_label", "model_names"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["required_specialties"].choices = specialty_choices()
        self.fields["required_languages"].choices = language_choices()
        for name in ("raters", "inspectors", "group_a", "group_b"):
            self.fields[name].label_from_instance = _person_label
        kind = self._raw("kind") or ItemKind.CASE
        if kind in ItemKind.values:
            # Any task validates here, so a mismatch reaches the service and its plain sentence; the list
            # shows the fitting tasks and any chosen one that does not fit (so the message names what is seen).
            chosen = set(self.data.getlist(self.add_prefix("tasks"))) if self.is_bound else set()
            shown = [t for t in TaskType.objects.order_by("pk") if t in set(tasks_for_kind(kind)) or t.slug in chosen]
            self.fields["tasks"].widget.choices = [(t.slug, t.shown_name) for t in shown]

    def clean(self) -> dict:
        data = super().clean()
        both = set(data.get("group_a") or []) & set(data.get("group_b") or [])
        if both:
            self.add_error("group_b", _("%(people)s cannot be in both groups.") % {
                "people": ", ".join(sorted(u.get_username() for u in both))})
        return data

    def groups(self) -> dict:
        data = self.cleaned_data
        return {**{u: "A" for u in data.get("group_a") or []}, **{u: "B" for u in data.get("group_b") or []}}


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
