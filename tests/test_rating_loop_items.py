"""The rating loop benchmark's items (benchmarks/rating_loop_items.py): LiveMedBench cases like the
demo's longest six-criterion case, in English with a Chinese translation of every field and in
Chinese, none reading like another, imported through the ordinary importer."""

import json
import sys
from pathlib import Path

import pytest

from cases.models import CaseRevision, TextTranslation

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import rating_loop_items  # noqa: E402


@pytest.mark.django_db
def test_it_imports_six_criterion_cases_in_both_languages_none_alike():
    rating_loop_items.import_cases(24)

    revisions = list(CaseRevision.objects.filter(release__label=rating_loop_items.RELEASE).prefetch_related("criteria"))
    assert len(revisions) == 24
    assert {len(r.criteria.all()) for r in revisions} == {6}
    assert len({r.narrative for r in revisions}) == 24
    english = [r for r in revisions if r.language == "en"]
    chinese = [r for r in revisions if r.language.startswith("zh")]
    assert len(english) == len(chinese) == 12
    for revision in english:
        fields = sorted(TextTranslation.objects.filter(revision=revision, language="zh-Hans").values_list("field", flat=True))
        assert fields == ["advice", *["criterion"] * 6, "narrative", "query"]
        narrative = TextTranslation.objects.get(revision=revision, field="narrative").text
        age = revision.narrative.split("is ")[1].split(",")[0]
        assert f"{age}岁" in narrative  # the translation follows its own case's details


def test_it_gives_every_case_of_a_long_run_its_own_text():
    data, _ = rating_loop_items.livemedbench_cases(80)
    assert b"LMB-R080" in data
    assert len({case["narrative"] for case in json.loads(data)}) == 80
