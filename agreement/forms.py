"""The report filter form: which labels a report covers and how its tables are broken down."""

from __future__ import annotations

import re
from typing import Any

from django import forms

from agreement.selectors import STRATA, Selection
from annotation.models import Study
from cases.models import Difficulty, GraderRun, Register


def _split(value: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in re.split(r"[,\s]+", value or "") if p.strip())


class ReportFilterForm(forms.Form):
    task = forms.ChoiceField(required=False, label="Task")
    model = forms.ChoiceField(required=False, label="Model")
    grader = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, label="Grader")
    specialty = forms.CharField(required=False, max_length=200)
    theme = forms.CharField(required=False, max_length=200)
    language = forms.CharField(required=False, max_length=16, help_text="e.g. en, zh")
    difficulty = forms.ChoiceField(required=False, choices=[("", "any"), *Difficulty.choices])
    register = forms.ChoiceField(required=False, choices=[("", "any"), *Register.choices])
    month = forms.RegexField(required=False, regex=r"^\d{4}-\d{2}$", help_text="post time, YYYY-MM",
                             error_messages={"invalid": "Enter a month as YYYY-MM, e.g. 2025-06."})
    axis = forms.CharField(required=False, max_length=100)
    stratify_by = forms.ChoiceField(required=False, label="Break down by",
                                    choices=[("", "nothing"), *STRATA.items()])
    group_by = forms.ChoiceField(required=False, label="Expert groups",
                                 choices=[("", "from the pseudonyms below"), ("rank", "attending vs senior rank")])
    group_a = forms.CharField(required=False, max_length=2000, label="Group A pseudonyms")
    group_b = forms.CharField(required=False, max_length=2000, label="Group B pseudonyms")

    def __init__(self, *args: Any, study: Study | None = None, models: list[str] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        tasks = list(study.tasks.values_list("slug", "name")) if study is not None else []
        self.fields["task"].choices = [("", "all tasks"), *tasks]
        self.fields["model"].choices = [("", "all models"), *[(m, m) for m in models or []]]
        self.fields["grader"].choices = [("", "all graders"), *GraderRun.objects.values_list("pk", "name")]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if bool(_split(data.get("group_a", ""))) != bool(_split(data.get("group_b", ""))):
            raise forms.ValidationError("Give pseudonyms for both expert groups, or for neither.")
        return data

    def selection(self, **scope: Any) -> Selection:
        """The Selection for valid data; `scope` is study_id= or release_id=."""
        data = self.cleaned_data
        filters = tuple(
            (name, str(data[name]))
            for name in ("specialty", "theme", "language", "difficulty", "register", "month", "axis", "model")
            if data.get(name)
        )
        return Selection(
            **scope,
            tasks=(data["task"],) if data.get("task") else (),
            graders=(data["grader"],) if data.get("grader") else (),
            filters=filters,
            stratify_by=data.get("stratify_by") or "",
            group_by=data.get("group_by") or "",
            group_a=_split(data.get("group_a", "")),
            group_b=_split(data.get("group_b", "")),
        )
