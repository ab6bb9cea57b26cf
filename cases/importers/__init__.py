"""One parser per import format: bytes in, plain dataclasses and every problem out."""

from cases.importers import generic, healthbench, liveclin, liveclin_judge, livemedbench
from cases.importers.base import (
    ImportIssue,
    ParsedCase,
    ParsedCriterion,
    ParsedDecision,
    ParsedGrade,
    ParsedMCQ,
    ParsedQuestionSet,
    ParsedResponse,
    Parser,
    ParseResult,
)

PARSERS: dict[str, Parser] = {
    "livemedbench": livemedbench.parse_cases,
    "livemedbench-responses": livemedbench.parse_responses,
    "livemedbench-grades": livemedbench.parse_grades,
    "liveclin": liveclin.parse,
    "liveclin-judge": liveclin_judge.parse_release,
    "healthbench": healthbench.parse,
    "generic": generic.parse,
}


def parse(fmt: str, data: bytes, file_name: str) -> ParseResult:
    """Parse `data`; never raises for bad input (problems are in `.issues`)."""
    try:
        parser = PARSERS[fmt]
    except KeyError:
        return ParseResult(
            kind="cases",
            issues=[ImportIssue(None, "format", f"unknown format {fmt!r}; expected one of {', '.join(PARSERS)}", file_name)],
        )
    return parser(data, file_name)


__all__ = [
    "PARSERS", "ImportIssue", "ParseResult", "ParsedCase", "ParsedCriterion", "ParsedDecision",
    "ParsedGrade", "ParsedMCQ", "ParsedQuestionSet", "ParsedResponse", "parse",
]
