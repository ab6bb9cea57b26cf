"""LiveClin's quality check end to end: a release with case reports and Judge verdicts imports; a
study over the sets that passed the pre-screen runs phase 1 and phase 2 with two physicians; a senior
inspector accepts one set, returns one and rejects another; the funnel, the Judge-vs-physician table
and the validated export are exact for that data."""

import json

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Rank, Role
from annotation.fields import item_fields
from annotation.inspection.services import inspection_accept, inspection_adjudicate, inspection_return
from annotation.models import Assignment, FinalLabel, Inspection, Item, StudyMember
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start
from cases.models import QuestionSet, Release
from cases.services import release_import
from liveclin.quality import quality_report
from liveclin.quality.export import validated_export
from liveclin.quality.loading import release_review
from liveclin.quality.team import team_composition
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def liveclin_record(n: int, *, report: bool = True) -> dict:
    record = {
        "pmc": f"PMC-QC-{n}", "Rarity": "Rare", "Level1": "Chapter 4", "Level2": "Adrenal disorders",
        "exam_creation": {"final_policy": {
            "scenario": f"Scenario {n}: a 29-year-old with episodic headaches and palpitations.",
            "scenario_image_details": [],
            "scenario_table_details": [],
            "mcqs": [
                {"stage": "Diagnosis", "question": f"Set {n}: which diagnosis?", "options": {"A": "Conn", "B": "Pheo"},
                 "correct_answer": "B", "image_details": [], "table_details": []},
                {"stage": "Treatment", "question": f"Set {n}: which drug first?", "options": {"A": "Metoprolol", "B": "Phenoxybenzamine"},
                 "correct_answer": "B",
                 "image_details": [{"caption": f"CAPTION-MARKER-{n} adrenal mass", "type": "CT", "url": f"https://example.org/{n}.png"}],
                 "table_details": []},
            ],
        }},
    }
    if report:
        record["case_report"] = f"# Case report {n}\n\nREPORT-MARKER-{n}: the full source report."
    return record


RECORDS = [liveclin_record(1), liveclin_record(2), liveclin_record(3), liveclin_record(4, report=False)]
SIDE_REPORTS = {"PMC-QC-4": "REPORT-MARKER-4 from the side file"}


def judge_block(factual: bool = True, solvable: bool = True) -> dict:
    return {"factual_validation": {"is_factually_correct": factual, "explanation": "checked"},
            "logical_solvability": {"is_logically_solvable": solvable, "explanation": "deducible"}}


JUDGE = [
    {"pmc": "PMC-QC-1", "judge": [judge_block(), judge_block()]},
    {"pmc": "PMC-QC-2", "judge": [judge_block(), judge_block()]},
    {"pmc": "PMC-QC-3", "judge": [judge_block(), judge_block()]},
    {"pmc": "PMC-QC-4", "judge": [judge_block(False), judge_block()]},
]


def jsonl(records: list[dict]) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def import_release() -> Release:
    report = release_import(fmt="liveclin", data=jsonl(RECORDS), file_name="liveclin_qc.jsonl", dataset_name="LiveClin",
                            release_label="2025H1", case_reports=("reports.json", json.dumps(SIDE_REPORTS).encode()))
    assert report.status == "imported", report.errors
    judged = release_import(fmt="liveclin-judge", data=jsonl(JUDGE), file_name="judge.jsonl", dataset_name="LiveClin",
                            release_label="2025H1-judge", grader_model="o3")
    assert judged.status == "imported", judged.errors
    assert judged.created["grader_decisions"] == 8  # MCQ verdict blocks
    return Release.objects.get(pk=report.release_id)


def labels(item: Item, flaws: dict[tuple[str, int], str]) -> dict[str, dict[str, str]]:
    """Every field "yes", except {(task slug, MCQ order): explanation} which are "no"."""
    out = {}
    for field in item_fields(item):
        flaw = flaws.get((field.task.slug, field.mcq.order))
        out[field.id] = {"label": "no", "comment": flaw} if flaw else {"label": "yes", "comment": ""}
    return out


def rate_all(study, rater, plan: dict[str, dict]) -> None:
    """Through the API in the paper's order: phase 1 (auditor) saved as a draft, then phase 2
    (examinee) on its own response, whose submit carries phase 2's labels only."""
    api = APIClient()
    api.force_authenticate(rater)
    for _ in range(3):
        body = api.post(reverse("annotation_api:claim_next", kwargs={"study_pk": study.pk})).json()
        assert body["phase"]["current"] == "auditor"
        assignment = Assignment.objects.select_related("item__revision__case").get(pk=body["assignment"]["id"])
        wanted = labels(assignment.item, plan.get(assignment.item.revision.case.external_id, {}))
        auditor = {f["id"]: wanted[f["id"]] for f in body["fields"]}
        saved = api.put(reverse("annotation_api:draft", kwargs={"pk": assignment.pk}),
                        {"draft": auditor, "seconds_spent": 40}, format="json")
        assert saved.status_code == 200, saved.content
        examinee = api.get(reverse("annotation_api:assignment_detail", kwargs={"pk": assignment.pk})).json()
        assert examinee["phase"]["current"] == "examinee"
        assert "REPORT-MARKER" not in json.dumps(examinee) and "CAPTION-MARKER" not in json.dumps(examinee)
        submitted = api.post(reverse("annotation_api:submit", kwargs={"pk": assignment.pk}),
                             {"labels": {f["id"]: wanted[f["id"]] for f in examinee["fields"]}, "seconds_spent": 60},
                             format="json")
        assert submitted.status_code == 200, submitted.content


def test_the_release_imports_its_reports_and_captions_apart_from_the_scenario() -> None:
    import_release()
    sets = {qs.revision.case.external_id: qs for qs in QuestionSet.objects.select_related("revision__case")}
    assert sets["PMC-QC-1"].case_report.startswith("# Case report 1")
    assert sets["PMC-QC-1"].report_source == "record"
    assert (sets["PMC-QC-4"].case_report, sets["PMC-QC-4"].report_source) == (
        "REPORT-MARKER-4 from the side file", "side file")
    assert sets["PMC-QC-1"].captions == [{"mcq": 2, "image": 1, "caption": "CAPTION-MARKER-1 adrenal mass"}]
    assert "REPORT-MARKER" not in sets["PMC-QC-1"].scenario


def test_from_import_to_validated_export(admin, physician_a, physician_b, inspector, researcher, tmp_path) -> None:
    release = import_release()
    study = study_create(
        name="LiveClin QC", created_by=admin, task_slugs=["mcq-factual", "mcq-solvability"],
        selection=ItemSelection(kind="question_set", dataset="LiveClin", release_label="2025H1", passed_prescreen=True),
        raters_per_item=2, inspect_all=True, inspect_disagreements=True, min_inspector_rank=Rank.ASSOCIATE_CHIEF,
        show_prescreen=True, seed=7,
    )
    keys = sorted(i.revision.case.external_id for i in study.items.select_related("revision__case"))
    assert keys == ["PMC-QC-1", "PMC-QC-2", "PMC-QC-3"]  # PMC-QC-4 failed the pre-screen
    study_add_members(study=study, users=[physician_a, physician_b], role=StudyMember.Role.RATER, actor=admin)
    junior = make_user("junior", role=Role.INSPECTOR, rank=Rank.ATTENDING)
    study_add_members(study=study, users=[inspector], role=StudyMember.Role.INSPECTOR, actor=admin)
    # Adding the junior is refused (tests/annotation/studies/test_inspector_rank_at_add.py); a membership
    # from before that rule must still not let them decide.
    StudyMember.objects.create(study=study, user=junior, role=StudyMember.Role.INSPECTOR)
    study_start(study=study, actor=admin)

    rate_all(study, physician_a, {
        "PMC-QC-2": {("mcq-factual", 2): "Phenoxybenzamine is not what the report says"},
        "PMC-QC-3": {("mcq-factual", 1): "The report's diagnosis differs"},
    })
    rate_all(study, physician_b, {})
    items = {i.revision.case.external_id: i for i in Item.objects.filter(study=study).select_related("revision__case")}
    assert {i.status for i in items.values()} == {Item.Status.INSPECTION}

    # A junior inspector may not decide anything (the study wants an associate chief at least).
    with pytest.raises(PermissionDenied):
        inspection_accept(item=items["PMC-QC-1"], inspector=junior)
    assert not Inspection.objects.exists() and not FinalLabel.objects.exists()

    inspection_accept(item=items["PMC-QC-1"], inspector=inspector)
    returned = Assignment.objects.get(item=items["PMC-QC-2"], rater=physician_a)
    inspection_return(item=items["PMC-QC-2"], inspector=inspector, assignment=returned,
                      comment="Re-read the treatment section of the report.")
    revision = assignment_claim_next(study=study, rater=physician_a)
    assert revision.pk == returned.pk
    rating_submit(assignment=revision, rater=physician_a, labels=labels(revision.item, {}), seconds_spent=20)
    inspection_accept(item=Item.objects.get(pk=items["PMC-QC-2"].pk), inspector=inspector)
    final = {fid: e["label"] for fid, e in labels(items["PMC-QC-3"], {("mcq-factual", 1): "x"}).items()}
    inspection_adjudicate(item=items["PMC-QC-3"], inspector=inspector, labels=final,
                          reason="The diagnosis contradicts the source report.")

    review = release_review(release)
    report = quality_report(review.sets)
    assert report["funnel"] == {"generated": 4, "screened": 4, "passed_prescreen": 3, "reviewed": 3,
                                "validated": 2, "rejected": 2, "pending": 0}
    assert report["pass_rates"]["all"] == {"decided": 4, "validated": 2, "rate": 0.5}
    assert report["pass_rates"]["judge_approved"] == {"decided": 3, "validated": 2, "rate": pytest.approx(2 / 3)}
    outcomes = {row["key"]: (row["outcome"], row["reasons"]) for row in report["sets"]}
    assert outcomes == {
        "PMC-QC-1": ("validated", []),
        "PMC-QC-2": ("validated", []),
        "PMC-QC-3": ("rejected", ["MCQ 1 factual validation: a physician found a flaw (adjudicated): "
                                  "The diagnosis contradicts the source report."]),
        "PMC-QC-4": ("rejected", ["failed the Judge pre-screen; not reviewed by physicians"]),
    }
    factual, solvability = report["judge_vs_physicians"]
    # Factual: the Judge said yes to all 6 reviewed MCQs; the final labels say no once (PMC-QC-3 Q1).
    # pa = 5/6, pi(yes) = 11/12, pe = 2 * 11/12 * 1/12 = 11/72 -> AC1 = 49/61; Macro-F1 = (10/11 + 0) / 2.
    assert (factual["n"], factual["invalid"]) == (6, 0)
    assert factual["percent_agreement"] == pytest.approx(5 / 6)
    assert factual["ac1"] == pytest.approx(49 / 61)
    assert factual["macro_f1"] == pytest.approx(5 / 11)
    assert factual["macro_f1_first_round"] is None  # physician B never said no: F1(no) undefined
    assert (solvability["n"], solvability["percent_agreement"], solvability["ac1"]) == (6, 1.0, pytest.approx(1.0))

    export = validated_export(review)
    lines = [json.loads(line) for line in export.data.decode().splitlines()]
    assert export.sets == 2 and [line["pmc"] for line in lines] == ["PMC-QC-1", "PMC-QC-2"]
    for line, source in zip(lines, RECORDS[:2], strict=True):
        review_block = line.pop("physician_review")
        assert line == source  # the text exactly as imported
        assert review_block["status"] == "validated"
        assert review_block["quality_check"]["prescreen"] == "passed"
        assert review_block["quality_check"]["outcome"] == "validated"

    api = APIClient()
    api.force_authenticate(researcher)
    assert api.get(reverse("liveclin_api:release_validated_export", args=[release.pk])).content == export.data
    out = tmp_path / "validated.jsonl"
    call_command("liveclin_validated", "--release", str(release.pk), "--output", str(out))
    assert out.read_bytes() == export.data

    annotation, inspection = team_composition(study)
    assert (annotation.people, annotation.senior_share) == (2, 0.0)
    assert (inspection.people, inspection.senior_share) == (1, 1.0)
