"""Bilingual test data: a Chinese LiveMedBench-style case with English translations, imported
through the real translation import."""

from __future__ import annotations

from cases.models import CaseRevision
from cases.translations import translations_import
from tests.factories import make_case, make_release

NARRATIVE_ZH = "患者男，45岁，发热伴咳嗽三天，体温最高38.5℃，无胸痛。"
QUERY_ZH = "需要吃抗生素吗？"
ADVICE_ZH = "考虑病毒感染可能大，建议休息、多饮水，如出现气促及时就诊。"
CRITERIA_ZH = [("指出该病最可能为病毒感染", 8, "Accuracy"), ("建议出现气促时就医", 6, "Safety"),
               ("推荐使用抗生素", -5, "Safety")]

NARRATIVE_EN = "Male, 45, three days of fever and cough, highest temperature 38.5 °C, no chest pain."


def chinese_case(*, dataset: str = "LiveMedBench", label: str = "v202601", external_id: str = "lmb-1") -> CaseRevision:
    release = make_release(dataset_name=dataset, label=label)
    return make_case(release=release, external_id=external_id, narrative=NARRATIVE_ZH, core_request=QUERY_ZH,
                     doctor_advice=ADVICE_ZH, criteria=CRITERIA_ZH, language="zh")


def english_translations(external_id: str = "lmb-1", variant: str = "professional") -> list[dict]:
    return [
        {"case_id": external_id, "field": "narrative", "language": "en", "text": NARRATIVE_EN, "variant": variant,
         "source": "human"},
        {"case_id": external_id, "field": "query", "language": "en", "text": "Do I need antibiotics?",
         "variant": variant, "source": "human"},
        {"case_id": external_id, "field": "advice", "language": "en", "variant": variant, "source": "human",
         "text": "Most likely viral: rest, drink plenty of fluids, and see a doctor if short of breath."},
        {"case_id": external_id, "field": "criterion", "criterion": 1, "language": "en", "variant": variant,
         "text": "States that the illness is most likely viral"},
    ]


def import_translations(records: list[dict], *, dataset: str = "LiveMedBench", label: str = "v202601"):
    return translations_import(dataset=dataset, release=label, records=records, file_name="tr.json", user=None)
