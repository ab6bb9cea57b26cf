"""Items named for people (issue 11, issue 21): "Case LMB-0042", "Question set on case LMB-0042",
"A response to case LMB-0042 (item 14)"; never the internal key ("response:2") and never a model
name (blinding)."""

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.inspection.display import ShownReason, shown_reason
from annotation.models import Item, ItemKind

register = template.Library()

# Translated when a title is made, in the reader's language. Several responses (and pairs) share a
# case, so their titles also carry the item's number, which tells them apart without naming the
# model (raters are blinded to it) and without an internal key such as "response:20" (issue 21).
_KIND = {
    ItemKind.CASE: gettext_noop("Case %(case)s"),
    ItemKind.RESPONSE: gettext_noop("A response to case %(case)s (item %(number)s)"),
    ItemKind.PAIR: gettext_noop("Two responses to case %(case)s (item %(number)s)"),
    ItemKind.QUESTION_SET: gettext_noop("Question set on case %(case)s"),
}


@register.filter(name="item_title")
def item_title(item: Item) -> str:
    """Needs `item.revision.case` loaded (the rater queue and rating page select it)."""
    case = item.revision.case.external_id if item.revision_id else ""
    return _(_KIND.get(item.kind, gettext_noop("Item %(number)s"))) % {"case": case, "number": item.pk}


@register.filter(name="shown_reason")
def event_shown_reason(event: object) -> ShownReason:
    """A review event's or final label's recorded reason as the page shows it (see `shown_reason`)."""
    data = getattr(event, "data", None) or {}
    return shown_reason(getattr(event, "reason", "") or "", data.get("why") if isinstance(data, dict) else None)


@register.filter(name="item_status_name")
def item_status_name(status: str) -> str:
    """An item status code ("inspection") as the reader's language names it."""
    try:
        return str(Item.Status(status).label)
    except ValueError:
        return status
