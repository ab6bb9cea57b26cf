"""Done means: a study with two raters and an inspector, then a curation of its release, for
LiveMedBench, LiveClin and a HealthBench-style release; the files import back; same bytes twice."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.exceptions import ValidationError

from annotation.fields import Field
from annotation.models import AuditChainHead, FinalLabel, Item
from annotation.outcomes.curation.build import build_curation
from annotation.outcomes.selectors import field_outcomes
from cases.exporters import CurationRules
from cases.importers import parse
from cases.release_data import release_cases
from cases.services import release_import
from tests.annotation.outcomes.builders import adjudicate, import_fixture, position, rate_everything, study_on
from tests.factories import make_release

pytestmark = pytest.mark.django_db


def history(item_id: int) -> str:
    return f"/review/items/{item_id}/history/"


# --- LiveMedBench: two raters, an inspector --------------------------------------------------------
# 109002500: both raters reject criterion 2 (unanimous); they split on criterion 5, the inspector rejects it.
# LMB-D003: both rate the narrative 0 (flagged). LMB-D004: all agree, all 2 (untouched).

def lmb_plan(rater: str):
    def plan(case: str, f: Field) -> str:
        if f.task.slug == "criterion-validity":
            if case == "109002500" and position(f) == 2:
                return "disagree"
            if case == "109002500" and position(f) == 5:
                return "disagree" if rater == "b" else "agree"
            return "agree"
        if f.task.slug == "narrative-quality" and case == "LMB-D003":
            return "0"
        return "2"
    return plan


def inspector_lmb(case: str, f: Field) -> str:
    return lmb_plan("b")(case, f)


@pytest.fixture
def lmb_study(admin, physician_a, physician_b, inspector):
    release = import_fixture("livemedbench", "livemedbench_cases.json", dataset="LiveMedBench", label="v202601")
    study = study_on(release, admin, tasks=["narrative-quality", "advice-quality", "criterion-validity"],
                     raters=[physician_a, physician_b], inspectors=[inspector], name="LMB validity")
    rate_everything(study, physician_a, lmb_plan("a"))
    rate_everything(study, physician_b, lmb_plan("b"))
    assert adjudicate(study, inspector, inspector_lmb) == 1
    return release, study


def test_it_release_cases_read_back_hash_to_their_revisions(lmb_study) -> None:
    release, _ = lmb_study
    cases = release_cases(release)
    stored = dict(release.case_revisions.values_list("case__external_id", "content_hash"))
    assert {c.external_id: c.content_hash for c in cases} == stored


def test_it_final_labels_follow_the_ladder(lmb_study) -> None:
    _, study = lmb_study
    outcomes = field_outcomes([study])
    assert len(outcomes) == 3 * (2 + 5)
    rules = {(o.case, o.task, o.position): (o.decision.label, o.decision.rule, o.decision.source) for o in outcomes}
    assert rules[("109002500", "criterion-validity", 5)] == ("disagree", "inspector", "adjudicated")
    assert rules[("109002500", "criterion-validity", 2)] == ("disagree", "inspector", "adjudicated")
    assert rules[("LMB-D003", "narrative-quality", None)] == ("0", "unanimous", "consensus")
    assert all(o.decision.resolved for o in outcomes)
    assert FinalLabel.objects.filter(item__study=study).count() == 21


def test_it_livemedbench_curation_drops_exactly_the_rejected_criteria_and_imports_back(lmb_study) -> None:
    release, study = lmb_study
    built = build_curation(name="v202601-reviewed", release=release, studies=[study], rules=CurationRules(),
                           history_url=history)
    data = built.files["merged_data_rubric.json"]
    source = {c.external_id: c for c in parse("livemedbench", data, "x").cases}
    assert [c.text for c in source["109002500"].criteria] == [
        "Recommends testing for group A streptococcus (rapid antigen test or culture)",
        "Advises urgent care for drooling, inability to swallow or breathing difficulty",
        "Mentions the household contact with strep as raising the likelihood",
    ]
    assert source["LMB-D003"].extra["physician_flags"] == ["narrative-rated-0"]
    assert built.counts == {
        "cases": {"source": 3, "kept": 3, "dropped": 0, "flagged": 1, "reviewed": 3},
        "criteria": {"source": 15, "kept": 13, "dropped": 2, "marked": 0, "reviewed": 15, "unresolved": 0,
                     "not_reviewed": 0},
    }
    item = Item.objects.get(study=study, revision__case__external_id="109002500")
    assert [(n["what"], n["action"], n["history"]) for n in built.manifest["items"][:2]] == [
        ("criterion 2", "dropped", [history(item.pk)]), ("criterion 5", "dropped", [history(item.pk)])]
    assert built.manifest["files"] == [{"name": "merged_data_rubric.json", "bytes": 3817,
                                        "sha256": hashlib.sha256(data).hexdigest()}]
    # The exact bytes docs/curation.md shows the manifest of.
    assert hashlib.sha256(data).hexdigest() == "89554bc16d65b197bda91dffb36992babc949955b848320737149de42bfa5cd2"
    assert built.manifest["source_release"]["sha256"] == release.sha256
    head = AuditChainHead.objects.get(study=study).as_dict()  # issue 22: the chain's head when built
    assert built.manifest["studies"] == [{"id": study.pk, "name": "LMB validity", "items": 3, "resolved_items": 3,
                                          "tasks": ["advice-quality", "criterion-validity", "narrative-quality"],
                                          "audit_chain": {k: head[k] for k in ("seq", "hash", "sealed_at")}}]
    # Imported back into medreview: the only new revisions are the two cases the curation changed.
    report = release_import(fmt="livemedbench", data=data, file_name="merged_data_rubric.json",
                            dataset_name="LiveMedBench", release_label="v202601-reviewed")
    assert (report.status, report.created["cases"], report.created["revisions"], report.unchanged["cases"]) == (
        "imported", 0, 2, 1)
    # Byte for byte on a second run.
    again = build_curation(name="v202601-reviewed", release=release, studies=[study], rules=CurationRules(),
                           history_url=history)
    assert again.files == built.files


def test_it_keep_option_marks_rejected_criteria(lmb_study) -> None:
    release, study = lmb_study
    built = build_curation(name="v1-marked", release=release, studies=[study],
                           rules=CurationRules(keep_rejected_criteria=True, review_block=True), history_url=history)
    records = json.loads(built.files["merged_data_rubric.json"])
    first = next(r for r in records if r["case_id"] == 109002500)
    assert [i.get("physician_validity") for i in first["rubric_items"]] == [None, "disagree", None, None, "disagree"]
    assert first["physician_review"]["criteria"][4] == {"position": 5, "label": "disagree", "rule": "inspector",
                                                        "source": "adjudicated"}


def test_it_a_study_of_another_release_is_refused(lmb_study, admin, physician_a, physician_b, inspector) -> None:
    release, _ = lmb_study
    other = import_fixture("healthbench", "healthbench.jsonl", dataset="HealthBench", label="2025-05")
    other_study = study_on(other, admin, tasks=["criterion-validity"], raters=[physician_a, physician_b],
                           inspectors=[inspector], name="HB validity")
    with pytest.raises(ValidationError) as refused:
        build_curation(name="mixed", release=release, studies=[other_study], rules=CurationRules(),
                       history_url=history)
    assert refused.value.message_dict["studies"] == [
        f"study 'HB validity' (id {other_study.pk}) reviews HealthBench 2025-05, not release LiveMedBench v202601 "
        f"(id {release.pk}); curate each release with its own studies"]


def test_it_resolved_only_refuses_a_study_with_unresolved_items(admin, physician_a, physician_b, inspector) -> None:
    release = import_fixture("livemedbench", "livemedbench_cases.json", dataset="LiveMedBench", label="v202601")
    study = study_on(release, admin, tasks=["criterion-validity"], raters=[physician_a, physician_b],
                     inspectors=[inspector])
    rate_everything(study, physician_a, lmb_plan("a"))
    rate_everything(study, physician_b, lmb_plan("b"))  # criterion 5 of 109002500 waits for inspection
    with pytest.raises(ValidationError) as refused:
        build_curation(name="strict", release=release, studies=[study], rules=CurationRules(resolved_only=True),
                       history_url=history)
    message = refused.value.message_dict["resolved_only"][0]
    assert message.startswith("resolved only: 1 field of 1 item(s) has no final label (first: case '109002500'")
    # Without "resolved only" the unresolved criterion is kept and reported.
    built = build_curation(name="lenient", release=release, studies=[study], rules=CurationRules(),
                           history_url=history)
    assert built.counts["criteria"] == {"source": 15, "kept": 14, "dropped": 1, "marked": 0, "reviewed": 15,
                                        "unresolved": 1, "not_reviewed": 0}


def test_it_bad_names_and_non_case_releases_are_refused(lmb_study) -> None:
    release, study = lmb_study
    with pytest.raises(ValidationError) as refused:
        build_curation(name="../etc", release=release, studies=[study], rules=CurationRules(), history_url=history)
    assert "name" in refused.value.message_dict
    responses = make_release(dataset_name="LiveMedBench", label="v202601", fmt="livemedbench-responses")
    with pytest.raises(ValidationError) as refused:
        build_curation(name="ok", release=responses, studies=[study], rules=CurationRules(), history_url=history)
    assert refused.value.message_dict["release"][0].startswith("release LiveMedBench v202601 is a LiveMedBench model ")
    with pytest.raises(ValidationError) as refused:
        build_curation(name="ok", release=release, studies=[], rules=CurationRules(), history_url=history)
    assert "studies" in refused.value.message_dict


# --- LiveClin: only validated sets -----------------------------------------------------------------
# set 1: all yes. set 2: rater a says MCQ 1 is factually wrong, b disagrees, the inspector agrees with a.
# set 3: rater b finds MCQ 2 unsolvable, the inspector overrules (yes).

def liveclin_plan(rater: str, ids: list[str]):
    def plan(case: str, f: Field) -> str:
        if case == ids[1] and f.task.slug == "mcq-factual" and position(f) == 1 and rater in ("a", "inspector"):
            return "no"
        if case == ids[2] and f.task.slug == "mcq-solvability" and position(f) == 2 and rater == "b":
            return "no"
        return "yes"
    return plan


def test_it_liveclin_curation_keeps_only_validated_sets(admin, physician_a, physician_b, inspector) -> None:
    release = import_fixture("liveclin", "liveclin.jsonl", dataset="LiveClin", label="2025H1")
    ids = [c.external_id for c in release_cases(release)]
    study = study_on(release, admin, tasks=["mcq-factual", "mcq-solvability"], raters=[physician_a, physician_b],
                     inspectors=[inspector], kind="question_set", name="LiveClin QC")
    rate_everything(study, physician_a, liveclin_plan("a", ids))
    rate_everything(study, physician_b, liveclin_plan("b", ids))
    assert adjudicate(study, inspector, liveclin_plan("inspector", ids)) == 2
    built = build_curation(name="2025H1-reviewed", release=release, studies=[study], rules=CurationRules(),
                           history_url=history)
    data = built.files["2025H1-reviewed.jsonl"]
    back = parse("liveclin", data, "x.jsonl").cases
    source = {c.external_id: c for c in release_cases(release)}
    assert [c.external_id for c in back] == [ids[0], ids[2]]
    assert [c.question_set for c in back] == [source[ids[0]].question_set, source[ids[2]].question_set]
    assert built.counts == {
        "question_sets": {"source": 3, "kept": 2, "dropped": 1, "validated": 2, "rejected": 1, "unresolved": 0,
                          "not_reviewed": 0},
        "mcqs": {"source": 10, "kept": 7},
    }
    assert [(n["case"], n["reason"]) for n in built.manifest["items"]] == [(ids[1], "question-set-rejected")]
    summary = json.loads(data.decode().splitlines()[1])["physician_review"]
    assert summary["status"] == "validated"
    assert summary["mcqs"][1]["checks"]["mcq-solvability"] == {"label": "yes", "rule": "inspector",
                                                               "source": "adjudicated"}
    report = release_import(fmt="liveclin", data=data, file_name="x.jsonl", dataset_name="LiveClin-reviewed",
                            release_label="2025H1-reviewed")
    assert (report.status, report.created["cases"], report.created["mcqs"]) == ("imported", 2, 7)
    assert build_curation(name="2025H1-reviewed", release=release, studies=[study], rules=CurationRules(),
                          history_url=history).files == built.files


# --- HealthBench-style ---------------------------------------------------------------------------

def test_it_healthbench_curation_drops_the_rejected_rubric_item(admin, physician_a, physician_b, inspector) -> None:
    release = import_fixture("healthbench", "healthbench.jsonl", dataset="HealthBench", label="2025-05")

    def plan(rater: str):
        def label(case: str, f: Field) -> str:
            if case == "hb-demo-001" and position(f) == 3:
                return "disagree"
            if case == "hb-demo-002" and position(f) == 1 and rater == "a":
                return "disagree"
            return "agree"
        return label

    study = study_on(release, admin, tasks=["criterion-validity"], raters=[physician_a, physician_b],
                     inspectors=[inspector], name="HB validity")
    rate_everything(study, physician_a, plan("a"))
    rate_everything(study, physician_b, plan("b"))
    assert adjudicate(study, inspector, plan("b")) == 1
    built = build_curation(name="hb-reviewed", release=release, studies=[study], rules=CurationRules(),
                           history_url=history)
    back = {c.external_id: c for c in parse("healthbench", built.files["hb-reviewed.jsonl"], "x").cases}
    assert [len(back[k].criteria) for k in ("hb-demo-001", "hb-demo-002", "hb-demo-003")] == [3, 4, 3]
    assert "Advises inducing vomiting" not in [c.text for c in back["hb-demo-001"].criteria]
    assert built.counts["criteria"] == {"source": 11, "kept": 10, "dropped": 1, "marked": 0, "reviewed": 11,
                                        "unresolved": 0, "not_reviewed": 0}
    report = release_import(fmt="healthbench", data=built.files["hb-reviewed.jsonl"], file_name="hb.jsonl",
                            dataset_name="HealthBench", release_label="hb-reviewed")
    assert (report.created["revisions"], report.unchanged["cases"]) == (1, 2)
