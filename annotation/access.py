"""The only functions that fetch protected review rows for a user; pages, API and services all use them.

Naming: `access_<thing>_for_<purpose>(user, ...)` fetches; `check_can_<action>(user, ...)` only
decides. Rules: an object the user may not see answers 404 (Http404), never 403, so its existence
does not leak; a read-only role (researcher) attempting a write answers 403 (PermissionDenied).
"""

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from accounts.models import Role
from accounts.roles import AnyUser, rank_at_least, rank_name, user_role
from annotation.models import Assignment, Curation, Item, Study, StudyMember
from medreview.db.precompiled import PrecompiledQuery


def _deny_read_only(user: AnyUser) -> None:
    if not user.is_authenticated:
        raise Http404("Not found.")
    if user_role(user) == Role.RESEARCHER:
        raise PermissionDenied(_("Researchers have read-only access and cannot rate or inspect."))


# --- permission checks (no row fetched) ----------------------------------------------------------


def check_can_manage_studies(user: AnyUser, message: str = "") -> None:
    """Create, start, close, add items and members: admins only (403). `message`: already translated."""
    if user_role(user) != Role.ADMIN:
        raise PermissionDenied(message or _("Only admins manage studies."))


def check_can_inspect_study(user: AnyUser, study: Study) -> None:
    """Services' check before an inspection write: admins, or the study's inspectors of at least the
    study's minimum rank (403 otherwise)."""
    role = user_role(user)
    if role == Role.ADMIN:
        return
    if role == Role.RESEARCHER or not StudyMember.objects.filter(
        study=study,
        user=user,
        role=StudyMember.Role.INSPECTOR,
    ).exists():
        raise PermissionDenied(_("You are not an inspector of this study."))
    check_inspector_rank(user, study)


def check_inspector_rank(user: AnyUser, study: Study) -> None:
    """LiveClin Sec. 3.4: senior physicians inspect. Admins are not held to a rank."""
    if user_role(user) != Role.ADMIN and not rank_at_least(user, study.min_inspector_rank):
        raise PermissionDenied(_("This study is inspected by %(rank)s physicians or more senior.")
                               % {"rank": rank_name(study.min_inspector_rank)})


def check_can_decide_item(user: AnyUser, item: Item) -> None:
    """Before an inspection decision (accept, adjudicate, return): `check_can_inspect_study`, and
    never on an item the user rated: another inspector must decide it (403)."""
    check_can_inspect_study(user, item.study)
    if Assignment.objects.filter(
        item=item,
        rater_id=user.pk,
        state__in=Assignment.RATED_STATES,
    ).exists():
        raise PermissionDenied(_("You rated this item; another inspector must decide it."))


def check_can_write_assignment(user: AnyUser, assignment: Assignment) -> None:
    """Only the assignment's own rater saves, submits or skips it (403)."""
    if assignment.rater_id != user.pk:
        raise PermissionDenied(_("This is another rater's assignment."))


def check_can_read_own_queue(user: AnyUser) -> None:
    """The rater queue is a rater's own work; researchers have none (403)."""
    if user_role(user) == Role.RESEARCHER:
        raise PermissionDenied(_("Researchers do not rate."))


def check_can_read_inspection_queue(user: AnyUser) -> None:
    """Researchers read reports, never the inspection queue (403)."""
    if user_role(user) == Role.RESEARCHER:
        raise PermissionDenied(_("Researchers do not inspect."))


# --- fetches -------------------------------------------------------------------------------------


def access_studies_for_listing(user: AnyUser) -> QuerySet[Study]:
    """Studies the user may list: admins and researchers all; others those they are a member of."""
    role = user_role(user)
    if role in (Role.ADMIN, Role.RESEARCHER):
        return Study.objects.all()
    if role is None:
        return Study.objects.none()
    return Study.objects.filter(memberships__user=user).distinct()


def access_study_for_listing(user: AnyUser, pk: int) -> Study:
    """One study by the list's rule: researchers, admins and the study's own members (any role).

    `agreement.access` reads reports with a stricter rule (researchers and admins only).
    """
    study = access_studies_for_listing(user).filter(pk=pk).first()
    if study is None:
        raise Http404("Not found.")
    return study


def access_study_for_management(user: AnyUser, pk: int) -> Study:
    role = user_role(user)
    if role == Role.RESEARCHER:
        if Study.objects.filter(pk=pk).exists():
            raise PermissionDenied(_("Researchers cannot manage studies."))
        raise Http404("Not found.")
    if role != Role.ADMIN:
        raise Http404("Not found.")
    try:
        return Study.objects.get(pk=pk)
    except Study.DoesNotExist as exc:
        raise Http404("Not found.") from exc


# The claim's and the rating pages' reads run on every step of every rater: compiled once per process.
_STUDY_FOR_RATING: PrecompiledQuery[Study] = PrecompiledQuery(
    lambda pk, user_id: Study.objects.filter(
        pk=pk,
        memberships__user_id=user_id,
        memberships__role=StudyMember.Role.RATER,
    ).order_by("pk")[:1]
)


def access_study_for_rating(user: AnyUser, pk: int) -> Study:
    _deny_read_only(user)
    study = _STUDY_FOR_RATING.first(pk=int(pk), user_id=user.pk)
    if study is None:
        raise Http404("Not found.")
    return study


def _own_assignment(*joined: str) -> PrecompiledQuery[Assignment]:
    return PrecompiledQuery(
        lambda pk, rater_id: Assignment.objects.select_related("item", "item__study", "item__revision", *joined)
        # The source record as imported can be large and no rating screen shows it.
        .defer("item__revision__raw", "item__revision__extra")
        .filter(pk=pk, rater_id=rater_id)
    )


_OWN_ASSIGNMENT = _own_assignment()
_OWN_ASSIGNMENT_WITH_CASE = _own_assignment("item__revision__case", "item__revision__case__dataset")


def access_assignment_for_rating(user: AnyUser, pk: int, *, with_case: bool = False) -> Assignment:
    """The user's own assignment with its item, study and case text. `with_case`: also the case and
    its dataset, which the rating page names (two queries fewer there); the API and the other writes
    do without the two joins, which cost more to plan than to run."""
    _deny_read_only(user)
    assignment = (_OWN_ASSIGNMENT_WITH_CASE if with_case else _OWN_ASSIGNMENT).first(pk=int(pk), rater_id=user.pk)
    if assignment is None:
        raise Http404("Not found.")
    return assignment


def access_item_for_inspection(user: AnyUser, pk: int) -> Item:
    _deny_read_only(user)
    items = Item.objects.select_related("study", "revision", "revision__case", "response", "response_b")
    if user_role(user) == Role.ADMIN:
        item = items.filter(pk=pk).first()
    else:
        item = items.filter(
            pk=pk,
            study__memberships__user=user,
            study__memberships__role=StudyMember.Role.INSPECTOR,
        ).first()
    if item is None:
        raise Http404("Not found.")
    _deny_own_open_item(user, item)
    check_inspector_rank(user, item.study)
    return item


def _live_assignments_on_open_items(user: AnyUser) -> QuerySet[Assignment]:
    """The user's assignments that still count (claimed, drafted, submitted and editable, returned)
    on items that still collect ratings: the items whose other ratings the user must not see."""
    return Assignment.objects.filter(
        rater_id=user.pk,
        item__status=Item.Status.OPEN,
    ).exclude(state__in=(Assignment.State.EXPIRED, Assignment.State.SKIPPED))


def _deny_own_open_item(user: AnyUser, item: Item, message: str = "") -> None:
    """A user who also rates this item sees no one's labels while it still collects ratings:
    reading the other rater's labels and comments first would bias their own."""
    if item.status != Item.Status.OPEN:
        return
    if _live_assignments_on_open_items(user).filter(item=item).exists():
        raise PermissionDenied(message or _("You rate this item: inspect it once its ratings are in."))


def access_item_ids_blinded_for_export(user: AnyUser, study_ids: list[int] | None = None) -> frozenset[int]:
    """Items (of these studies; None: of any) that every label export leaves out for this user
    (issue 22): those they hold a live assignment on while the item is open. Every reader, admins too."""
    if not user.is_authenticated:
        return frozenset()
    rows = _live_assignments_on_open_items(user)
    if study_ids is not None:
        rows = rows.filter(item__study_id__in=study_ids)
    return frozenset(rows.values_list("item_id", flat=True))


def check_can_export_events(user: AnyUser, study: Study) -> None:
    """The audit trail is exported whole (its hash chain verifies only so), and its EDITED events
    carry labels and comments: not to someone who still rates an open item of the study (403)."""
    if user.is_authenticated and _live_assignments_on_open_items(user).filter(item__study=study).exists():
        raise PermissionDenied(_("You still rate open items of this study: export its audit trail once "
                                 "their ratings are in."))


def access_study_for_inspection(user: AnyUser, pk: int) -> Study:
    _deny_read_only(user)
    studies = Study.objects.all()
    if user_role(user) != Role.ADMIN:
        studies = studies.filter(
            memberships__user=user,
            memberships__role=StudyMember.Role.INSPECTOR,
        )
    study = studies.filter(pk=pk).first()
    if study is None:
        raise Http404("Not found.")
    return study


def access_studies_for_progress(user: AnyUser) -> QuerySet[Study]:
    """The studies whose progress, effort, cost and audit trail a user may read: admins and researchers
    every study, inspectors the studies they inspect; physicians none (403, saying who may)."""
    role = user_role(user)
    if role in (Role.ADMIN, Role.RESEARCHER):
        return Study.objects.all()
    if role == Role.INSPECTOR:
        return Study.objects.filter(memberships__user=user, memberships__role=StudyMember.Role.INSPECTOR).distinct()
    raise PermissionDenied(_("Effort, cost and audit trails are for admins, researchers and a study's inspectors."))


def access_study_for_progress(user: AnyUser, pk: int) -> Study:
    """Study progress shows every rater's throughput: admins, researchers and the study's inspectors."""
    role = user_role(user)
    if role in (Role.ADMIN, Role.RESEARCHER):
        studies = Study.objects.all()
    elif role is None:
        studies = Study.objects.none()
    else:
        studies = Study.objects.filter(
            memberships__user=user,
            memberships__role=StudyMember.Role.INSPECTOR,
        )
    study = studies.filter(pk=pk).first()
    if study is None:
        raise Http404("Not found.")
    return study


# --- after review: exports, item history, curations (docs/curation.md) ---------------------------


def check_can_curate(user: AnyUser) -> None:
    """Curating a release writes a new release: admins only (403)."""
    if user_role(user) != Role.ADMIN:
        raise PermissionDenied(_("Only admins curate releases."))


def check_can_see_real_names(user: AnyUser) -> None:
    """Exports show actors by pseudonym; real user names are for admins who ask (403 otherwise)."""
    if user_role(user) != Role.ADMIN:
        raise PermissionDenied(_("Only admins may export real user names."))


def access_study_for_export(user: AnyUser, pk: int) -> Study:
    """Label and audit-trail exports and the effort report: the readers of the study's progress."""
    return access_study_for_progress(user, pk)


def access_item_for_history(user: AnyUser, pk: int) -> Item:
    """An item's full history (raters by name): admins and the inspectors of its study."""
    items = Item.objects.select_related("study", "revision", "revision__case")
    role = user_role(user)
    if role == Role.ADMIN:
        item = items.filter(pk=pk).first()
    elif role in (Role.PHYSICIAN, Role.INSPECTOR):
        item = items.filter(
            pk=pk,
            study__memberships__user=user,
            study__memberships__role=StudyMember.Role.INSPECTOR,
        ).first()
    else:
        item = None
    if item is None:
        raise Http404("Not found.")
    _deny_own_open_item(user, item, _("You rate this item: its history opens once its ratings are in."))
    return item


def access_curations_for_management(user: AnyUser) -> QuerySet[Curation]:
    """Curations: admins (researchers 403, everyone else 404, as for managing studies)."""
    role = user_role(user)
    if role == Role.RESEARCHER:
        raise PermissionDenied(_("Researchers cannot curate releases."))
    if role != Role.ADMIN:
        raise Http404("Not found.")
    return Curation.objects.all()


def access_curation_for_management(user: AnyUser, pk: int) -> Curation:
    curation = access_curations_for_management(user).filter(pk=pk).first()
    if curation is None:
        raise Http404("Not found.")
    return curation
