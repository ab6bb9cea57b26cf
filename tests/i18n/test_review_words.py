"""Issue 23, phase 2: the review workflows' words in the reader's language, Python side: durations,
why an item waits, the reasons the code records in the audit trail, a LiveClin set's outcome
reasons, a curation's actions and meanings; what a person typed keeps its own language."""

from __future__ import annotations

from datetime import UTC, datetime

from django.template import Context, Template
from django.utils import timezone, translation

from annotation.inspection.display import shown_reason
from annotation.outcomes.curation.words import shown_notes
from annotation.templatetags.review import seconds
from liveclin.quality import words
from liveclin.quality.rules import PENDING, REJECTED, Outcome, Reason


def test_it_writes_durations_in_the_readers_language() -> None:
    with translation.override("zh-hans"):
        assert (seconds(69), seconds(42), seconds(3725)) == ("1 分 09 秒", "42 秒", "1 小时 02 分")
    with translation.override("en"):
        assert (seconds(69), seconds(42), seconds(3725)) == ("1 min 09 s", "42 s", "1 h 02 min")


def test_it_names_why_an_item_waits_and_the_codes_reasons_in_the_readers_language() -> None:
    with translation.override("zh-hans"):
        sent = shown_reason("disagreement, sampled", ["disagreement", "sampled"])
        assert sent.reasons == ("意见分歧", "抽样审核") and not sent.text
        assert shown_reason("Raters agreed").text == "标注医师意见一致" and shown_reason("Raters agreed").lang == ""
        typed = shown_reason("Please read the criterion again.")
        assert (typed.text, typed.lang) == ("Please read the criterion again.", "en")


def test_it_keeps_the_quality_checks_english_reasons_and_shows_them_in_chinese() -> None:
    flaw = Reason("physician_flaw", 2, "factual", source="adjudicated", detail="剂量与报告不符")
    waiting = Reason("in_review", detail="inspection", missing=((1, "factual"), (1, "solvability")))
    rejected, pending = Outcome.because(REJECTED, [flaw]), Outcome.because(PENDING, [waiting])
    assert rejected.reasons == ("MCQ 2 factual validation: a physician found a flaw (adjudicated): 剂量与报告不符",)
    assert pending.reasons == ("in review (inspection); no final label yet: MCQ 1 factual validation, "
                               "MCQ 1 logical solvability",)
    with translation.override("zh-hans"):
        shown = words.shown_reason(flaw)
        assert (shown.text, shown.detail, shown.detail_lang) == (
            "题2 事实核查：医师发现问题（由审核医师设定）", "剂量与报告不符", "zh")
        assert words.shown_reason(waiting).text == "复核中（待审核）；尚无最终标注：题1 事实核查、题1 逻辑可解性核查"


def test_it_shows_a_curations_actions_and_meanings_in_the_readers_language() -> None:
    manifest = {"items": [{"case": "LMB-1", "what": "criterion 3", "action": "dropped",
                           "reason": "criterion-rejected", "history": []}]}
    with translation.override("zh-hans"):
        note = shown_notes(manifest)[0]
    assert (note.what, note.action, note.meaning, note.code) == (
        "评分标准 3", "已删除", "该评分标准的最终有效性标注否定了它", "criterion-rejected")


def test_it_writes_an_events_time_as_a_chinese_reader_expects() -> None:
    when = datetime(2026, 11, 25, 22, 9, tzinfo=UTC)
    template = Template('{{ when|date:"SHORT_DATETIME_FORMAT" }}')
    with translation.override("zh-hans"), timezone.override(UTC):
        assert template.render(Context({"when": when})) == "11月25日 22:09"
