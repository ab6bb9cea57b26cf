"""The rating loop's items: LiveMedBench cases like the demo's longest case with six criteria.

Built from the demo files, not written out again: even-numbered cases are LMB-D002 (English, six
criteria, with its professional Chinese translation of every field, so a bilingual rater reads both
side by side), odd-numbered ones LMB-D005 (a Chinese post, six criteria). Each copy gets its own
case id, post time and patient details (age, temperature, days), so no two items read the same and
the benchmark can tell the next case from the previous one (no two of the first 80 cases read the
same; case ids always differ).
"""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta
from pathlib import Path

DEMO_DATA = Path(__file__).resolve().parent.parent / "demo" / "data"
ENGLISH, CHINESE = "LMB-D002", "LMB-D005"  # the demo's six-criterion cases, English and Chinese
DATASET = "LiveMedBench"
RELEASE = "bench-rating-loop"
FILE_NAME = "rating_loop_cases.json"

_AGES_ZH = ["2岁", "3岁", "4岁", "5岁", "7岁", "8岁", "9岁"]
_FEVERS_ZH = ["38.5度", "38.8度", "39度", "39.3度", "39.6度"]
_DAYS_ZH = ["一天", "两天", "三天"]


def _variant(i: int) -> dict[str, str]:
    """Patient details of copy i: the English copies differ for i < 40, the Chinese ones for i < 105."""
    return {
        "age": str(50 + i % 40),
        "age_zh": _AGES_ZH[i % len(_AGES_ZH)],
        "fever_zh": _FEVERS_ZH[(i // len(_AGES_ZH)) % len(_FEVERS_ZH)],
        "days_zh": _DAYS_ZH[(i // (len(_AGES_ZH) * len(_FEVERS_ZH))) % len(_DAYS_ZH)],
    }


def livemedbench_cases(count: int) -> tuple[bytes, list[dict]]:
    """`count` cases as a LiveMedBench release file, and the Chinese translations of the English ones."""
    demo = {case["case_id"]: case for case in json.loads((DEMO_DATA / "livemedbench_cases.json").read_text("utf-8"))}
    translations = [t for t in json.loads((DEMO_DATA / "translations_zh.json").read_text("utf-8"))
                    if t["case_id"] == ENGLISH and t["variant"] == "professional"]
    start = datetime(2025, 3, 1, 8, 0)
    cases, records = [], []
    for i in range(count):
        case_id = f"LMB-R{i + 1:03d}"
        details = _variant(i // 2)
        case = copy.deepcopy(demo[ENGLISH if i % 2 == 0 else CHINESE])
        case["case_id"] = case_id
        case["post_time"] = (start + timedelta(hours=7 * i)).isoformat()
        if i % 2 == 0:
            case["narrative"] = case["narrative"].replace("is 71", f"is {details['age']}")
            for record in translations:
                record = {**record, "case_id": case_id}
                if record["field"] == "narrative":
                    record["text"] = record["text"].replace("71岁", f"{details['age']}岁")
                records.append(record)
        else:
            case["narrative"] = (case["narrative"].replace("6岁", details["age_zh"])
                                 .replace("39度", details["fever_zh"]).replace("两天", details["days_zh"]))
        cases.append(case)
    return json.dumps(cases, ensure_ascii=False).encode(), records


def import_cases(count: int) -> None:
    """Import the cases and their translations (Django set up, the demo data loaded)."""
    from cases.services import release_import
    from cases.translations import translations_import

    data, records = livemedbench_cases(count)
    report = release_import(fmt="livemedbench", data=data, file_name=FILE_NAME, dataset_name=DATASET,
                            release_label=RELEASE)
    if not report.ok:
        raise SystemExit("generated cases refused: " + "; ".join(map(str, report.errors)))
    translations_import(dataset=DATASET, release=RELEASE, records=records, file_name=FILE_NAME, user=None)
