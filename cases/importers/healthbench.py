"""OpenAI HealthBench: JSONL of `{prompt: [{role, content}], rubrics: [{criterion, points, tags}],
example_tags, prompt_id}`.

The conversation is kept as turns. The narrative is every user turn joined by blank lines (so a
multi-turn conversation reads as the patient's whole story) and the query (`core_request`) is the
last user turn. `axis:` tags fill a criterion's axis, `theme:` tags the case's themes.
"""

from __future__ import annotations

from typing import Any

from cases.importers.base import (
    Issues,
    ParsedCase,
    ParsedCriterion,
    ParseResult,
    Record,
    check_duplicate,
    iter_jsonl,
)

KNOWN_KEYS = {"prompt_id", "prompt", "rubrics", "example_tags", "ideal_completions_data"}
ROLES = {"system", "user", "assistant", "developer"}
AXES = {
    "accuracy": "Accuracy",
    "completeness": "Completeness",
    "communication_quality": "Communication Quality",
    "context_awareness": "Context Awareness",
    "instruction_following": "Instruction Following",
    "safety": "Safety",
}


def _tag_value(tags: tuple[str, ...], prefix: str) -> list[str]:
    return [t.split(":", 1)[1] for t in tags if t.startswith(prefix + ":")]


def _conversation(rec: Record) -> list[dict[str, str]]:
    # A turn that is not an object is kept as an empty turn (its error is noted), so the
    # conversation-level checks below see every turn the file has.
    conversation = []
    for sub in rec.items("prompt", required=True, if_empty="the conversation has no turns"):
        role = sub.text("role", required=True)
        content = sub.text("content", required=True)
        if role and role not in ROLES:
            sub.error("role", f"unknown role {role!r}; expected one of {', '.join(sorted(ROLES))}")
        conversation.append({"role": role, "content": content})
    return conversation


def _criterion(sub: Record) -> ParsedCriterion:
    text = sub.text("criterion", required=True, non_empty=True)
    tags = sub.text_list("tags")
    axes = _tag_value(tags, "axis")
    axis = AXES.get(axes[0], axes[0].replace("_", " ").title()) if axes else ""
    return ParsedCriterion(text=text.strip(), points=sub.points(), axis=axis, tags=tags)


def _case(rec: Record, external_id: str, conversation: list[dict[str, str]], item: Any) -> ParsedCase:
    user_turns = [t["content"] for t in conversation if t["role"] == "user"]
    if conversation and not user_turns:
        rec.error("prompt", "the conversation has no user turn")
    criteria = tuple(_criterion(sub) for sub in rec.items("rubrics", required=True) if sub.ok)
    example_tags = rec.text_list("example_tags")
    ideal = rec.obj.get("ideal_completions_data")
    advice = ideal.get("ideal_completion", "") if isinstance(ideal, dict) else ""
    extra = rec.unknown_keys(KNOWN_KEYS)
    if example_tags:
        extra["example_tags"] = list(example_tags)
    if ideal is not None:
        extra["ideal_completions_data"] = ideal
    return ParsedCase(
        record=rec.record,
        external_id=external_id,
        narrative="\n\n".join(user_turns),
        core_request=user_turns[-1] if user_turns else "",
        doctor_advice=advice if isinstance(advice, str) else "",
        conversation=conversation,
        themes=tuple(_tag_value(example_tags, "theme")),
        source="HealthBench",
        extra=extra,
        raw=item,
        criteria=criteria,
    )


def parse(data: bytes, file_name: str) -> ParseResult:
    issues = Issues(file_name)
    result = ParseResult(kind="cases")
    seen: dict[str, int] = {}
    for line, item in iter_jsonl(data, issues):
        result.records += 1
        rec = Record(item, line, issues)
        if not rec.ok:
            continue
        external_id = rec.identifier("prompt_id")
        check_duplicate(seen, external_id, line, issues, "prompt_id")
        result.cases.append(_case(rec, external_id, _conversation(rec), item))
    result.issues = issues.items
    return result
