"""The report filter form: which labels a report covers and how its tables are broken down."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from agreement.selection import (
    GROUPS_INCOMPLETE,
    MAX_TAU,
    STRATA,
    Selection,
    groups_incomplete,
    month_error,
    selection_from_params,
)
from annotation.models import Study
from cases.models import Difficulty, Register
from graders.models import GraderRun
from medreview.i18n.widgets import UserTextSelect


class ReportFilterForm(forms.Form):
    task = forms.ChoiceField(required=False, label=_("Task"))
    model = forms.ChoiceField(required=False, label=_("Model"), widget=UserTextSelect)
    grader = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, label=_("Grader"),
                                    widget=UserTextSelect)
    specialty = forms.CharField(required=False, max_length=200, label=_("Specialty"))
    theme = forms.CharField(required=False, max_length=200, label=_("Theme"))
    language = forms.CharField(required=False, max_length=16, label=_("Language"), help_text=_("e.g. en, zh"))
    difficulty = forms.ChoiceField(required=False, choices=[("", _("any")), *Difficulty.choices],
                                   label=_("Difficulty"))
    register = forms.ChoiceField(required=False, choices=[("", _("any")), *Register.choices], label=_("Register"))
    month = forms.RegexField(required=False, regex=r"^\d{4}-\d{2}$", label=_("Month"),
                             help_text=_("post time, YYYY-MM"),
                             error_messages={"invalid": _("Enter a month as YYYY-MM, e.g. 2025-06.")})
    axis = forms.CharField(required=False, max_length=100, label=_("Axis"))
    stratify_by = forms.ChoiceField(required=False, label=_("Break down by"),
                                    choices=[("", _("nothing")), *STRATA.items()])
    group_by = forms.ChoiceField(required=False, label=_("Expert groups"),
                                 choices=[("", _("the study's groups if it has any, else the pseudonyms below")),
                                          ("rank", _("attending vs senior rank")),
                                          ("study", _("the study's groups A and B"))])
    group_a = forms.CharField(required=False, max_length=2000, label=_("Group A pseudonyms"))
    group_b = forms.CharField(required=False, max_length=2000, label=_("Group B pseudonyms"))
    tau = forms.IntegerField(required=False, min_value=1, max_value=MAX_TAU, label=_("CACS threshold τ"),
                             help_text=_("blank: calibrated from physician-written responses, or 10 of 30 scaled"))
    tau_model = forms.CharField(required=False, max_length=200, label=_("Physician-written responses (model name)"),
                                help_text=_("calibrates τ from the physicians' labels on these responses"))

    def __init__(self, *args: Any, study: Study | None = None, models: list[str] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        tasks = [(t.slug, t.shown_name) for t in study.tasks.all()] if study is not None else []
        self.fields["task"].choices = [("", _("all tasks")), *tasks]
        self.fields["model"].choices = [("", _("all models")), *[(m, m) for m in models or []]]
        self.fields["grader"].choices = [("", _("all graders")), *GraderRun.objects.values_list("pk", "name")]

    def clean_month(self) -> str:
        value = self.cleaned_data.get("month") or ""
        if value and (problem := month_error(value)):
            raise forms.ValidationError(problem)
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if groups_incomplete(data):
            raise forms.ValidationError(GROUPS_INCOMPLETE)
        return data

    def selection(self, **scope: Any) -> Selection:
        """The Selection for valid data; `scope` is study_id= or release_id=."""
        return selection_from_params(self.cleaned_data, **scope)
