"""An admin imports translations of a release's case text: stored per field with language and
source; refused whole with located errors; an empty or non-Chinese text is kept as invalid and
never shown."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from cases.models import TextTranslation
from cases.translations import language_problem, shown_translations
from tests.i18n.builders import NARRATIVE_EN, chinese_case, english_translations, import_translations

pytestmark = pytest.mark.django_db


def test_it_attaches_each_translation_to_its_field_of_the_release_revision():
    revision = chinese_case()
    result = import_translations(english_translations())
    assert (result.created, result.unchanged, result.invalid) == (4, 0, 0)
    criterion = revision.criteria.get(order=1)
    keys = set(TextTranslation.objects.values_list("key", flat=True))
    assert keys == {"narrative", "query", "advice", f"criterion:{criterion.pk}"}
    shown = shown_translations(revision.pk, "en")
    assert shown["narrative"].text == NARRATIVE_EN
    assert shown["narrative"].source == TextTranslation.Source.HUMAN
    assert shown["advice"].source == TextTranslation.Source.HUMAN


def test_it_is_a_no_op_the_second_time():
    chinese_case()
    import_translations(english_translations())
    again = import_translations(english_translations())
    assert (again.created, again.unchanged) == (0, 4)


def test_it_refuses_the_whole_file_with_located_errors():
    chinese_case()
    records = english_translations() + [
        {"case_id": "lmb-1", "field": "prognosis", "language": "en", "text": "x"},
        {"case_id": "no-such-case", "field": "narrative", "language": "en", "text": "x"},
        {"case_id": "lmb-1", "field": "criterion", "criterion": 9, "language": "en", "text": "x"},
    ]
    with pytest.raises(ValidationError) as exc:
        import_translations(records)
    messages = exc.value.messages
    assert "tr.json, record 5, field field: unknown field 'prognosis'" in messages[0]
    assert "record 6, field case_id: unknown case 'no-such-case'" in messages[1]
    assert "record 7, field criterion: no criterion 9" in messages[2]
    assert TextTranslation.objects.count() == 0


def test_it_refuses_an_unknown_release():
    with pytest.raises(ValidationError):
        import_translations(english_translations(), label="v999")


@pytest.mark.parametrize(("text", "problem"), [
    ("", "empty"), ("   ", "empty"), ("Fever and cough for three days.", "not Chinese"),
    ("发热伴咳嗽三天，CRP 12 mg/L。", ""), ("建议口服 amoxicillin 500 mg tid", ""),
])
def test_it_knows_a_chinese_translation_from_an_empty_or_english_one(text, problem):
    assert language_problem(text, "zh-Hans") == problem


def test_an_invalid_chinese_translation_is_stored_but_never_shown():
    revision = chinese_case(external_id="lmb-2")
    # An English case translated into Chinese: one good, one that came back in English.
    result = import_translations([
        {"case_id": "lmb-2", "field": "narrative", "language": "zh-Hans", "text": "发热三天。"},
        {"case_id": "lmb-2", "field": "query", "language": "zh-Hans", "text": "Do I need antibiotics?"},
    ])
    assert result.invalid == 1
    bad = TextTranslation.objects.get(key="query")
    assert (bad.status, bad.problem) == (TextTranslation.Status.INVALID, "not Chinese")
    assert set(shown_translations(revision.pk, "zh-Hans")) == {"narrative"}
