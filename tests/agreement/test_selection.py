"""One Selection builder for the report page's filter form and the API's query parameters."""

from __future__ import annotations

import pytest

from agreement.forms import ReportFilterForm
from agreement.selection import Selection, selection_from_params, split_pseudonyms
from agreement.serializers import ReportQuerySerializer

PARAMS = {"language": "en", "month": "2025-06", "stratify_by": "specialty", "group_a": "R-01, R-02",
          "group_b": "R-03 R-04", "axis": "accuracy"}


def test_it_splits_pseudonyms_on_commas_and_whitespace():
    assert split_pseudonyms(" R-01,R-02  R-03,, ") == ("R-01", "R-02", "R-03")
    assert split_pseudonyms(None) == ()


def test_it_builds_the_selection_from_parameters():
    selection = selection_from_params({**PARAMS, "task": "grader-reliability", "grader": 7, "theme": ""},
                                      study_id=3)
    assert selection == Selection(
        study_id=3, tasks=("grader-reliability",), graders=(7,),
        filters=(("language", "en"), ("month", "2025-06"), ("axis", "accuracy")), stratify_by="specialty",
        group_a=("R-01", "R-02"), group_b=("R-03", "R-04"),
    )


def test_the_form_and_the_api_build_the_same_selection(db):
    form = ReportFilterForm(PARAMS)
    assert form.is_valid(), form.errors
    query = ReportQuerySerializer(data=PARAMS)
    assert query.is_valid(), query.errors
    assert form.selection(study_id=1) == query.selection(study_id=1) == selection_from_params(PARAMS, study_id=1)


@pytest.mark.parametrize("groups", [{"group_a": "R-01"}, {"group_b": "R-02"}])
def test_both_refuse_one_expert_group_alone(db, groups):
    assert not ReportFilterForm(groups).is_valid()
    assert not ReportQuerySerializer(data=groups).is_valid()
