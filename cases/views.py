"""Pages for imports (admins) and for browsing releases and cases (researchers and admins)."""

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from cases import access, selectors, services
from cases.forms import ImportUploadForm
from cases.models import ImportFormat
from cases.services import DEFAULT_DATASETS, DEFAULT_GRADER_MODEL

PAGE_SIZE = 50


@require_http_methods(["GET", "POST"])
def import_upload(request: HttpRequest) -> HttpResponse:
    """Upload a file; it is validated at once (a dry run) and shown before the admin confirms."""
    access.check_can_import(request.user)
    form = ImportUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        fmt = form.cleaned_data["format"]
        job = services.import_job_create(
            user=request.user, fmt=fmt, data=upload.read(), file_name=upload.name,
            dataset_name=form.cleaned_data["dataset"].strip() or DEFAULT_DATASETS[ImportFormat(fmt)],
            release_label=form.cleaned_data["release_label"].strip(),
            model_name=form.cleaned_data["model_name"].strip(),
            grader_model=form.cleaned_data["grader_model"].strip() or DEFAULT_GRADER_MODEL,
            taxonomy=form.cleaned_data["taxonomy"].strip(),
        )
        return redirect("cases:import_job", pk=job.pk)
    jobs = access.access_import_jobs_for_view(request.user)[:10]
    return render(request, "cases/import_upload.html", {"form": form, "jobs": jobs})


@require_http_methods(["GET"])
def import_job(request: HttpRequest, pk: int) -> HttpResponse:
    job = access.access_import_job_for_view(request.user, pk)
    return render(request, "cases/import_job.html", {"job": job})


@require_http_methods(["GET"])
def import_job_progress(request: HttpRequest, pk: int) -> HttpResponse:
    """The htmx-polled fragment; it stops polling once the job is no longer queued or running."""
    job = access.access_import_job_for_view(request.user, pk)
    return render(request, "cases/_import_progress.html", {"job": job})


@require_http_methods(["POST"])
def import_confirm(request: HttpRequest, pk: int) -> HttpResponse:
    job = access.access_import_job_for_confirm(request.user, pk)
    services.import_job_confirm(job=job)
    return redirect("cases:import_job", pk=job.pk)


@require_http_methods(["GET"])
def release_list(request: HttpRequest) -> HttpResponse:
    datasets = selectors.datasets_with_releases(
        access.access_datasets_for_browsing(request.user), access.access_releases_for_browsing(request.user)
    )
    return render(request, "cases/release_list.html", {"datasets": datasets})


@require_http_methods(["GET"])
def release_detail(request: HttpRequest, pk: int) -> HttpResponse:
    release = access.access_release_for_browsing(request.user, pk)
    page = Paginator(selectors.release_revisions(release), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "cases/release_detail.html", {"release": release, "page": page})


@require_http_methods(["GET"])
def case_detail(request: HttpRequest, pk: int) -> HttpResponse:
    case = access.access_case_for_browsing(request.user, pk)
    revisions = selectors.case_revisions(case)
    return render(request, "cases/case_detail.html", {"case": case, "revisions": revisions})
