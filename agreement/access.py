"""Who may read agreement reports, and the only functions that fetch report objects for a user.

Reports show every rater's labels side by side, so only researchers and admins read them:
physicians and inspectors get 403 (they must never see other raters' labels before inspection);
a reader asking for a study or release that does not exist gets 404.
"""

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from annotation import access as review_access
from annotation.models import Study
from cases.models import Release
from medreview.roles import AnyUser, is_researcher


def require_report_reader(user: AnyUser) -> None:
    if not user.is_authenticated:
        raise PermissionDenied("Sign in to read reports.")
    if not is_researcher(user):
        raise PermissionDenied("Agreement reports are for researchers and admins.")


def studies_for_reader(user: AnyUser) -> QuerySet[Study]:
    require_report_reader(user)
    return Study.objects.all()


def study_for_reader(user: AnyUser, pk: int) -> Study:
    """Researchers and admins only (403 otherwise), then review's own read check (404 if unknown).

    `annotation.access.study_for_reader` also admits a study's members for progress pages; reports
    are stricter because they show every rater's labels side by side.
    """
    require_report_reader(user)
    return review_access.study_for_reader(user, pk)


def releases_for_reader(user: AnyUser) -> QuerySet[Release]:
    require_report_reader(user)
    return Release.objects.select_related("dataset")


def release_for_reader(user: AnyUser, pk: int) -> Release:
    require_report_reader(user)
    return get_object_or_404(Release.objects.select_related("dataset"), pk=pk)
