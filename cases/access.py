"""The only functions that fetch protected benchmark rows for a user; HTML views and the API both
use them.

Benchmark data (cases, releases) is browsed by researchers and admins; imports are admin-only.
An object the user may not see answers 404; a page or write the user's role may not use answers 403.
Names follow `access_<thing>_for_<purpose>`; `check_can_<action>` is a role check without a row.
"""

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from accounts.roles import AnyUser, is_admin, is_researcher
from cases.models import Case, Dataset, ImportJob, Release


def check_can_import(user: AnyUser) -> None:
    """Imports (upload page, import API) are for admins only."""
    if not is_admin(user):
        raise PermissionDenied(_("Only admins import data."))


def check_can_browse(user: AnyUser) -> None:
    if not is_researcher(user):  # researcher or admin
        raise PermissionDenied(_("Only researchers and admins browse benchmark data."))


def access_datasets_for_browsing(user: AnyUser) -> QuerySet[Dataset]:
    check_can_browse(user)
    return Dataset.objects.all()


def access_releases_for_browsing(user: AnyUser) -> QuerySet[Release]:
    check_can_browse(user)
    return Release.objects.select_related("dataset", "imported_by")


def access_release_for_browsing(user: AnyUser, pk: int) -> Release:
    if not is_researcher(user):
        raise Http404("Not found.")
    return get_object_or_404(Release.objects.select_related("dataset"), pk=pk)


def access_case_for_browsing(user: AnyUser, pk: int) -> Case:
    if not is_researcher(user):
        raise Http404("Not found.")
    return get_object_or_404(Case.objects.select_related("dataset", "current_revision"), pk=pk)


def access_import_jobs_for_view(user: AnyUser) -> QuerySet[ImportJob]:
    check_can_import(user)
    return ImportJob.objects.select_related("created_by")


def access_import_job_for_view(user: AnyUser, pk: int) -> ImportJob:
    """Admins see every import job; anyone else does not learn that the job exists (404)."""
    if not is_admin(user):
        raise Http404("Not found.")
    return get_object_or_404(ImportJob.objects.select_related("created_by", "release"), pk=pk)


def access_import_job_for_confirm(user: AnyUser, pk: int) -> ImportJob:
    """A researcher confirming an import is a read-only role on a write (403); others as for view."""
    if is_researcher(user) and not is_admin(user):
        raise PermissionDenied(_("Researchers have read-only access."))
    return access_import_job_for_view(user, pk)
