"""A translation-consistency study (LiveClin Appendix H): three physicians compare two Chinese
translations of each field side by side, without the original; the report gives the consistency
rate with its 95% Wilson interval (pooled, per rater, per field type) and AC1 between them.

Fixture: 2 cases x 5 translated fields (narrative, query, advice, 2 criteria) = 10 fields, 3 raters.
Inconsistent: case-1 criterion 1 (raters A and C), case-2 query (rater C). Expected by hand:
pooled 27/30 = 0.9, Wilson (0.743789, 0.965400); A 9/10 (0.595850, 0.982124), B 10/10, C 8/10;
criterion 10/12, query 5/6, narrative and advice 6/6; AC1: pa = (8 + 1/3 + 1/3) / 10 = 0.866667,
pi = (0.9, 0.1), pe = 2 * 0.9 * 0.1 = 0.18, AC1 = (0.866667 - 0.18) / 0.82 = 0.837398.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from agreement.reports.tables.translation import report_as_dict, translation_consistency_report
from annotation.catalogue import TRANSLATION_CONSISTENCY
from annotation.fields import item_fields
from annotation.models import Study
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from cases.translations import translations_import
from tests.annotation.builders import running_study
from tests.conftest import make_user
from tests.factories import make_case, make_release

pytestmark = pytest.mark.django_db

ZH = {  # (o3, professional) per field; the second case's query differs in meaning
    "narrative": ("患者发热伴咳嗽三天。", "患者发热、咳嗽已三天。"),
    "query": ("我需要用抗生素吗？", "需要服用抗生素吗？"),
    "advice": ("可能是病毒感染，注意休息、多喝水。", "很可能为病毒感染：休息并多饮水。"),
    "criterion1": ("指出该病最可能为病毒性", "说明该病很可能由病毒引起"),
    "criterion2": ("建议气促时就医", "建议出现呼吸急促时就诊"),
}


def _records(case_id: str) -> list[dict]:
    records = []
    for name, texts in ZH.items():
        field = "criterion" if name.startswith("criterion") else name
        extra = {"criterion": int(name[-1])} if field == "criterion" else {}
        for variant, text in zip(("o3", "professional"), texts, strict=True):
            records.append({"case_id": case_id, "field": field, "language": "zh-Hans", "text": text,
                            "variant": variant, "source": "machine" if variant == "o3" else "human", **extra})
    return records


def _study(admin, raters) -> Study:
    release = make_release(dataset_name="LiveClin", label="2025H1")
    for case_id in ("c1", "c2"):
        make_case(release=release, external_id=case_id, criteria=[("Says viral", 5, "Accuracy"),
                                                                     ("Advises care if breathless", 5, "Safety")])
    translations_import(dataset="LiveClin", release="2025H1", records=_records("c1") + _records("c2"),
                        file_name="zh.json", user=None)
    return running_study(admin, raters=raters, tasks=[TRANSLATION_CONSISTENCY.slug], dataset="LiveClin",
                         raters_per_item=3)


INCONSISTENT = {"A": {("c1", "criterion", 1)}, "B": set(), "C": {("c1", "criterion", 1), ("c2", "query", 0)}}


def _rate_everything(study: Study, rater, name: str) -> None:
    while (assignment := assignment_claim_next(study=study, rater=rater)) is not None:
        case_id = assignment.item.revision.case.external_id
        labels = {}
        for field in item_fields(assignment.item):
            first, second = field.translations
            order = field.translations[0].revision.criteria.get(pk=int(field.key.split(":")[2])).order \
                if first.field == "criterion" else 0
            bad = (case_id, first.field, order) in INCONSISTENT[name]
            labels[field.id] = {"label": "inconsistent" if bad else "consistent",
                                "comment": "剂量描述不同" if bad else ""}
            assert second.text != first.text
        rating_submit(assignment=assignment, rater=rater, labels=labels, seconds_spent=40)


@pytest.fixture
def three_physicians(db):
    return {name: make_user(f"phys_{name}", role="physician", languages=["zh"]) for name in "ABC"}


def test_each_rater_sees_two_translations_per_field_and_no_original(admin, three_physicians):
    study = _study(admin, list(three_physicians.values()))
    assignment = assignment_claim_next(study=study, rater=three_physicians["A"])
    fields = item_fields(assignment.item)
    assert len(fields) == 5
    assert {f.translations[0].variant for f in fields} == {"o3"}
    assert {f.translations[1].variant for f in fields} == {"professional"}


def test_an_inconsistent_verdict_needs_an_explanation(admin, three_physicians):
    from django.core.exceptions import ValidationError

    study = _study(admin, list(three_physicians.values()))
    assignment = assignment_claim_next(study=study, rater=three_physicians["A"])
    labels = {f.id: {"label": "inconsistent", "comment": ""} for f in item_fields(assignment.item)}
    with pytest.raises(ValidationError):
        rating_submit(assignment=assignment, rater=three_physicians["A"], labels=labels, seconds_spent=5)


def test_the_report_gives_the_exact_rate_ci_and_ac1(client, admin, researcher, three_physicians):
    study = _study(admin, list(three_physicians.values()))
    for name, rater in three_physicians.items():
        _rate_everything(study, rater, name)
    result = translation_consistency_report(study)
    assert (result.pooled.consistent, result.pooled.n) == (27, 30)
    assert result.pooled.value == pytest.approx(0.9)
    assert result.pooled.ci == pytest.approx((0.743789, 0.965400), abs=1e-6)
    per_rater = {k: (v.consistent, v.n) for k, v in result.per_rater.items()}
    assert per_rater == {"R-phys_A": (9, 10), "R-phys_B": (10, 10), "R-phys_C": (8, 10)}
    assert result.per_rater["R-phys_A"].ci == pytest.approx((0.595850, 0.982124), abs=1e-6)
    per_type = {k: (v.consistent, v.n) for k, v in result.per_field_type.items()}
    assert per_type == {"advice": (6, 6), "criterion": (10, 12), "narrative": (6, 6), "query": (5, 6)}
    assert result.ac1.pa == pytest.approx(0.866667, abs=1e-6)
    assert result.ac1.pe == pytest.approx(0.18)
    assert result.ac1.value == pytest.approx(0.837398, abs=1e-6)
    # The same numbers over the API, for researchers.
    api = APIClient()
    api.force_authenticate(researcher)
    body = api.get(reverse("agreement_api:study_translation_consistency", kwargs={"pk": study.pk})).json()
    assert body == {"study": study.pk, **report_as_dict(result)}


def test_the_command_prints_the_same_report(admin, three_physicians):
    from io import StringIO

    from django.core.management import call_command

    study = _study(admin, list(three_physicians.values()))
    for name, rater in three_physicians.items():
        _rate_everything(study, rater, name)
    out = StringIO()
    call_command("translation_consistency_report", "--study", str(study.pk), stdout=out)
    text = out.getvalue()
    assert "consistent 90.0% (27/30; 95% CI 74.4-96.5)" in text
    assert "rater R-phys_C: 80.0% (8/10" in text and "Gwet's AC1 between raters: 0.837" in text


def test_the_report_page_shows_the_numbers_to_researchers_only(client, admin, researcher, physician_a, three_physicians):
    from tests.conftest import login

    study = _study(admin, list(three_physicians.values()))
    for name, rater in three_physicians.items():
        _rate_everything(study, rater, name)
    url = reverse("agreement:study_translation_consistency", kwargs={"pk": study.pk})
    page = login(client, researcher).get(url).content.decode()
    assert "90%" in page and "0.744–0.965" in page and "0.837" in page and "R-phys_C" in page
    client.force_login(physician_a)
    assert client.get(url).status_code in (403, 404)
