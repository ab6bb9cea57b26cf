"""The file responses of the label and audit-trail exports, shared by the pages and the API.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.roles import AnyUser
from annotation import access
from annotation.models import Study
from annotation.outcomes import label_exports
from annotation.outcomes.audit import (
    HEAD_HEADER,
    chain_head,
    event_records,
    events_csv,
    events_jsonl,
    head_header,
)
from annotation.outcomes.selectors import field_outcomes, study_effort
from annotation.outcomes.services import study_record_export


def history_url(item_id: int) -> str:
    return reverse("annotation:item_history", args=[item_id])


def check_label_format(fmt: str) -> None:
    if fmt not in label_exports.FORMATS:
        raise Http404(_("Unknown format."))


def wants_calibration(query: Mapping[str, str]) -> bool:
    """`?calibration=1` (or true/yes): include calibration items' labels, marked calibration=true."""
    return (query.get("calibration") or "").lower() in ("1", "true", "yes")


def labels_response(user: AnyUser, studies: list[Study], fmt: str, name: str, *,
                    calibration: bool = False) -> HttpResponse:
    """The label export `user` may read: items they still rate while open are left out (issue 22)."""
    check_label_format(fmt)
    content_type, extension = label_exports.FORMATS[fmt]
    hidden = access.access_item_ids_blinded_for_export(user, [s.pk for s in studies])
    rows = label_exports.label_rows((o for o in field_outcomes(studies) if o.item_id not in hidden),
                                    calibration=calibration)
    heads = [chain_head(s) for s in studies]
    response: HttpResponse
    if fmt == "xlsx":
        response = HttpResponse(label_exports.labels_xlsx(rows, [study_effort(s) for s in studies], heads=heads),
                                content_type=content_type)
    else:
        lines: Iterator[str] = label_exports.labels_csv(rows) if fmt == "csv" else label_exports.labels_jsonl(rows)
        response = StreamingHttpResponse(lines, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}.{extension}"'
    response[HEAD_HEADER] = head_header(heads)
    return response


def events_response(user: AnyUser, study_pk: int, fmt: str, *, real_names: bool, via: str) -> HttpResponse:
    """The audit trail; real names only for admins who ask (403 for anyone else asking)."""
    study = access.access_study_for_export(user, study_pk)
    if fmt not in ("jsonl", "csv"):
        raise Http404(_("Unknown format."))
    if real_names:
        access.check_can_see_real_names(user)
    access.check_can_export_events(user, study)
    study_record_export(study=study, actor=user, what="events", fmt=fmt, real_names=real_names, via=via)
    records = event_records(study, real_names=real_names)
    head = chain_head(study)
    lines = events_jsonl(records) if fmt == "jsonl" else events_csv(records, real_names=real_names)
    content_type = "application/x-ndjson; charset=utf-8" if fmt == "jsonl" else "text/csv; charset=utf-8"
    response = StreamingHttpResponse(lines, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="study-{study.pk}-events.{fmt}"'
    response[HEAD_HEADER] = head_header([head])
    return response
