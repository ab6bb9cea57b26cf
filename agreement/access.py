"""Who may read agreement reports, and the only functions that fetch report objects for a user.

Reports show every rater's labels side by side, so only researchers and admins read them:
physicians and inspectors get 403 (they must never see other raters' labels before inspection);
a reader asking for a study or release that does not exist gets 404.

The rule is agreement's own, on purpose stricter than annotation's read access (which also admits a
study's members to its progress pages): a study's physicians and inspectors never read its report.
"""

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.roles import AnyUser, is_researcher

# Re-exported: a report reader who also rates sees no open item's labels in the raw-label exports.
from annotation.access import access_item_ids_blinded_for_export as access_item_ids_blinded_for_export
from annotation.models import Study
from cases.models import Release


class IsReportReader(BasePermission):
    message = "Agreement reports are for researchers and admins."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return is_researcher(request.user)


#: The API's permission classes for every report endpoint.
PERMISSIONS = [IsAuthenticated, IsReportReader]


def require_report_reader(user: AnyUser) -> None:
    """403 unless the user reads reports (researchers and admins); anonymous users are asked to sign in."""
    if not user.is_authenticated:
        raise PermissionDenied(_("Sign in to read reports."))
    if not is_researcher(user):
        raise PermissionDenied(_("Agreement reports are for researchers and admins."))


def access_studies_for_report(user: AnyUser) -> QuerySet[Study]:
    require_report_reader(user)
    return Study.objects.all()


def access_study_for_report(user: AnyUser, pk: int) -> Study:
    """Researchers and admins only (403 otherwise), any study (404 if unknown)."""
    require_report_reader(user)
    study = Study.objects.filter(pk=pk).first()
    if study is None:
        raise Http404(_("Not found."))
    return study


def access_releases_for_report(user: AnyUser) -> QuerySet[Release]:
    require_report_reader(user)
    return Release.objects.select_related("dataset")


def access_release_for_report(user: AnyUser, pk: int) -> Release:
    require_report_reader(user)
    return get_object_or_404(Release.objects.select_related("dataset"), pk=pk)
