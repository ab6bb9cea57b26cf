"""ClinConsensus' tau as the paper defines it (Sec. 4.3), end to end through the report.

Hand-computed data set: one physician-written response with 30 criteria, judged by two physicians
who each mark 9 of 30 met but swap one criterion (A: 1-9, B: 1-8 and 10). The paper counts the
decisions themselves: 18 of 60 met, 0.3 x 30 = 9 hits -> tau = 9. A per-criterion consensus where
a 1-1 tie counts as not met would give 8 criteria met -> tau = 8. A model's response with 10 of 30
criteria met (rubric grader) then scores CACS@9 = (10 - 9 + 1) / (30 - 9 + 1) = 2/22, not CACS@8 =
3/23.
"""

from __future__ import annotations

import pytest

from agreement.reports import build_report
from agreement.selectors import Selection
from annotation.models import StudyMember
from graders.models import GraderDecision, GraderRun
from tests.agreement.builders import ensure_task, make_study, rate, response_item
from tests.factories import make_case, make_response

N = 30
PHYSICIAN_WRITTEN = "physician-written"


@pytest.fixture
def calibration_study(physician_a, physician_b):
    study = make_study(tasks=("grader-reliability",))
    task = ensure_task("grader-reliability")
    revision = make_case(criteria=[(f"Criterion {k}", 5, "Completeness") for k in range(1, N + 1)])
    criteria = list(revision.criteria.order_by("order"))
    written = response_item(study, make_response(revision, model_name=PHYSICIAN_WRITTEN))
    met_by = {physician_a: set(range(1, 10)), physician_b: set(range(1, 9)) | {10}}
    for rater, met in met_by.items():
        for position, criterion in enumerate(criteria, start=1):
            rate(written, rater, task, "met" if position in met else "not_met",
                 field_key=f"criterion:{criterion.pk}", criterion=criterion)
    model = make_response(revision, model_name="model-x")
    response_item(study, model)
    run = GraderRun.objects.create(name="Strict judge", kind="rubric-grader", grader_model="gpt-5.1")
    GraderDecision.objects.bulk_create(
        GraderDecision(run=run, response=model, criterion=c, verdict="met" if k <= 10 else "not_met")
        for k, c in enumerate(criteria, start=1)
    )
    return study, run


def test_it_calibrates_tau_from_the_physicians_decisions_not_from_a_consensus(calibration_study):
    study, _run = calibration_study
    report = build_report(Selection(study_id=study.pk, tau_model=PHYSICIAN_WRITTEN))
    cal = report.table("tau_calibration").frame.iloc[0]
    assert cal["tau"] == 9  # the consensus rule would give 8
    assert cal["mean_hits"] == pytest.approx(9.0)
    assert (cal["n_decisions"], cal["n_hits"]) == (60, 18)
    assert cal["hit_rate"] == pytest.approx(0.3)
    assert report.table("tau_distribution").frame.to_dict("records") == [{"hits": 9, "responses": 1}]
    assert "decisions" in report.table("tau_calibration").note


def test_it_scores_cacs_at_the_calibrated_tau(calibration_study):
    study, run = calibration_study
    report = build_report(Selection(study_id=study.pk, tau_model=PHYSICIAN_WRITTEN))
    coverage = report.table("coverage").frame
    assert set(coverage["tau"]) == {9}
    graded = coverage[coverage["scorer"] == f"Strict judge (#{run.pk})"].iloc[0]
    assert graded["model"] == "model-x"
    assert graded["cacs"] == pytest.approx(2 / 22)  # CACS@8 would be 3 / 23
    assert graded["pass_rate"] == 1.0
    assert PHYSICIAN_WRITTEN not in set(coverage["model"])
    assert report.table("coverage").title.endswith("CACS@9 (ClinConsensus)")


def test_it_shows_the_expert_groups_decision_rate_like_the_calibration(calibration_study, physician_a, physician_b):
    study, _run = calibration_study
    StudyMember.objects.create(study=study, user=physician_a, role=StudyMember.Role.RATER, group="A")
    StudyMember.objects.create(study=study, user=physician_b, role=StudyMember.Role.RATER, group="B")
    # No group_by: a study with groups shows its group tables without being asked.
    report = build_report(Selection(study_id=study.pk, tau_model=PHYSICIAN_WRITTEN))
    groups = report.table("expert_groups").frame.set_index("scope")
    written = groups.loc[PHYSICIAN_WRITTEN]
    assert (written["positive_rate_a"], written["positive_rate_b"]) == (pytest.approx(9 / 30), pytest.approx(9 / 30))
    both = (written["positive_rate_a"] + written["positive_rate_b"]) / 2
    assert both == pytest.approx(report.table("tau_calibration").frame.iloc[0]["hit_rate"])


def test_the_rank_correlation_tables_carry_p_values(calibration_study):
    study, _run = calibration_study
    report = build_report(Selection(study_id=study.pk, tau=9))
    for key in ("ranking_stability_cacs", "ranking_stability"):
        table = report.table(key)
        assert table is not None, key
        assert {"spearman_p", "kendall_p"} <= set(table.frame.columns), key


def test_the_command_line_calibrates_tau_too(calibration_study, capsys):
    import json

    from django.core.management import call_command

    study, _run = calibration_study
    call_command("agreement_report", "--study", str(study.pk), "--format", "json", "--tau-model", PHYSICIAN_WRITTEN)
    tables = json.loads(capsys.readouterr().out)["tables"]
    assert tables["tau_calibration"]["rows"][0]["tau"] == 9
    call_command("agreement_report", "--study", str(study.pk), "--format", "json", "--tau", "12")
    assert {r["tau"] for r in json.loads(capsys.readouterr().out)["tables"]["coverage"]["rows"]} == {12}
