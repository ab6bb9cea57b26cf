"""LiveClin question sets (English) translated into Chinese: MCQ stems, options and the scenario
are read side by side with the original; a translation-consistency study runs on question sets."""

from __future__ import annotations

import pytest

from agreement.reports.tables.translation import translation_consistency_report
from annotation.catalogue import TRANSLATION_CONSISTENCY
from annotation.fields import item_fields
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from cases.translations import translations_import
from tests.conftest import login
from tests.liveclin.builders import import_liveclin, liveclin_study

pytestmark = pytest.mark.django_db


def _records(variant: str, stem: str) -> list[dict]:
    return [
        {"case_id": "PMC-QC-1", "field": "scenario", "language": "zh-Hans", "variant": variant,
         "text": "情境 1：29 岁患者，阵发性头痛伴心悸。"},
        {"case_id": "PMC-QC-1", "field": "mcq_stem", "mcq": 1, "language": "zh-Hans", "variant": variant,
         "text": stem},
        {"case_id": "PMC-QC-1", "field": "mcq_option", "mcq": 1, "option": "B", "language": "zh-Hans",
         "variant": variant, "text": "选项 B1"},
    ]


def test_an_examinee_reads_the_mcq_in_english_and_chinese_side_by_side(client, admin, physician_a, physician_b):
    import_liveclin(1)
    translations_import(dataset="LiveClin", release="2025H1", records=_records("o3", "第 1 组第 1 题：应选哪一项？"),
                        file_name="zh.jsonl", user=None)
    study = liveclin_study(admin, [physician_a, physician_b], tasks=("mcq-solvability",))
    assignment = assignment_claim_next(study=study, rater=physician_a)
    page = login(client, physician_a).get(f"/review/assignments/{assignment.pk}/").content.decode()
    assert '<div class="longtext" lang="zh-Hans">情境 1：29 岁患者' in page
    assert 'lang="zh-Hans">第 1 组第 1 题：应选哪一项？</div>' in page
    assert 'lang="zh-Hans">选项 B1</div>' in page
    assert 'lang="en">Set 1, question 1: which option?</div>' in page


def test_translation_consistency_runs_on_question_sets(admin, physician_a, physician_b):
    import_liveclin(1)
    translations_import(dataset="LiveClin", release="2025H1",
                        records=_records("o3", "第 1 组第 1 题：应选哪一项？") + _records("professional", "第1组第1题：选哪个？"),
                        file_name="zh.jsonl", user=None)
    study = liveclin_study(admin, [physician_a, physician_b], tasks=(TRANSLATION_CONSISTENCY.slug,))
    for rater, stem_label in ((physician_a, "consistent"), (physician_b, "inconsistent")):
        assignment = assignment_claim_next(study=study, rater=rater)
        fields = item_fields(assignment.item)
        assert sorted(f.key.split(":")[0] + ":" + f.translations[0].field for f in fields) == [
            "translation:mcq_option", "translation:mcq_stem", "translation:scenario"]
        labels = {f.id: {"label": stem_label if f.translations[0].field == "mcq_stem" else "consistent",
                         "comment": "题干含义不同" if stem_label == "inconsistent" else ""} for f in fields}
        rating_submit(assignment=assignment, rater=rater, labels=labels, seconds_spent=20)
    result = translation_consistency_report(study)
    assert {k: (v.consistent, v.n) for k, v in result.per_field_type.items()} == {
        "mcq_option": (2, 2), "mcq_stem": (1, 2), "scenario": (2, 2)}
    assert (result.pooled.consistent, result.pooled.n) == (5, 6)
