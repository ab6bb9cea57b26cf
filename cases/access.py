"""The only functions that fetch protected benchmark rows for a user; HTML views and the API both
use them.

Benchmark data (cases, releases) is browsed by researchers and admins; imports are admin-only.
An object the user may not see answers 404; a page or write the user's role may not use answers 403.
"""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404

from cases.models import Case, Dataset, ImportJob, Release
from medreview.roles import is_admin, is_researcher

AnyUser = AbstractBaseUser | AnonymousUser


def require_importer(user: AnyUser) -> None:
    """Imports (upload page, import API) are for admins only."""
    if not is_admin(user):
        raise PermissionDenied("Only admins import data.")


def datasets_for_user(user: AnyUser) -> QuerySet[Dataset]:
    if not is_researcher(user):
        raise PermissionDenied("Only researchers and admins browse benchmark data.")
    return Dataset.objects.all()


def releases_for_user(user: AnyUser) -> QuerySet[Release]:
    if not is_researcher(user):
        raise PermissionDenied("Only researchers and admins browse benchmark data.")
    return Release.objects.select_related("dataset", "imported_by")


def release_for_user(user: AnyUser, pk: int) -> Release:
    if not is_researcher(user):
        raise Http404("Not found.")
    return get_object_or_404(Release.objects.select_related("dataset"), pk=pk)


def case_for_user(user: AnyUser, pk: int) -> Case:
    if not is_researcher(user):
        raise Http404("Not found.")
    return get_object_or_404(Case.objects.select_related("dataset", "current_revision"), pk=pk)


def import_job_for_user(user: AnyUser, pk: int, *, write: bool = False) -> ImportJob:
    """Admins see every import job. A researcher trying to confirm one is a read-only role on a
    write (403); anyone else does not learn that the job exists (404)."""
    if write and not is_admin(user) and is_researcher(user):
        raise PermissionDenied("Researchers have read-only access.")
    if not is_admin(user):
        raise Http404("Not found.")
    return get_object_or_404(ImportJob.objects.select_related("created_by", "release"), pk=pk)


def import_jobs_for_user(user: AnyUser) -> QuerySet[ImportJob]:
    require_importer(user)
    return ImportJob.objects.select_related("created_by")
