"""Grader pages: configs (admin), grading jobs (admin and researcher). Thin: access, then a service."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from graders import access, selectors, services
from graders.forms import GraderConfigForm, GradingJobForm
from graders.models import GraderConfig


def _form_errors(form: GraderConfigForm, exc: ValidationError) -> None:
    if hasattr(exc, "error_dict"):
        for field, errors in exc.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
    else:
        form.add_error(None, exc.messages)


@require_http_methods(["GET"])
def config_list(request: HttpRequest) -> HttpResponse:
    configs = access.access_grader_configs_for_edit(request.user)
    return render(request, "graders/config_list.html", {"configs": configs})


def _config_form(request: HttpRequest, config: GraderConfig | None) -> HttpResponse:
    form = GraderConfigForm(request.POST or None, instance=config)
    if request.method == "POST" and form.is_valid():
        text, version = form.prompt_values()
        try:
            saved = services.grader_config_save(
                config=config, data=form.config_data(), prompt_text=text, prompt_version=version, user=request.user
            )
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(request, _("Saved grader %(name)s (prompt %(version)s).") % {"name": saved.name, "version": saved.prompt.version})
            return redirect("graders:config_list")
    return render(request, "graders/config_form.html", {"form": form, "config": config})


@require_http_methods(["GET", "POST"])
def config_create(request: HttpRequest) -> HttpResponse:
    access.check_can_manage_graders(request.user)
    return _config_form(request, None)


@require_http_methods(["GET", "POST"])
def config_edit(request: HttpRequest, pk: int) -> HttpResponse:
    config = access.access_grader_config_for_edit(request.user, pk)
    return _config_form(request, config)


@require_http_methods(["GET"])
def job_list(request: HttpRequest) -> HttpResponse:
    jobs = selectors.with_selection_names(selectors.job_list(access.access_grading_jobs_for_view(request.user))[:200])
    return render(request, "graders/job_list.html", {"jobs": jobs})


@require_http_methods(["GET", "POST"])
def job_create(request: HttpRequest) -> HttpResponse:
    configs = access.access_grader_configs_for_view(request.user)
    form = GradingJobForm(request.POST or None, configs=configs, initial={"config": request.GET.get("config")})
    if request.method == "POST" and form.is_valid():
        try:
            job = services.grading_job_create(
                config=form.cleaned_data["config"], selection=form.selection_value(), created_by=request.user,
                parallel_tasks=form.cleaned_data["parallel_tasks"],
            )
        except ValidationError as exc:
            form.add_error(None, exc.messages)
        else:
            messages.success(request, _("Grading job %(job)s queued: %(total)s decisions to make.") % {"job": job.pk, "total": job.total})
            if not job.config.key_available:
                messages.warning(
                    request, _("%(variable)s is not set in the web process: make sure the workers have it.") % {"variable": job.config.api_key_env},
                )
            return redirect("graders:job_detail", pk=job.pk)
    return render(request, "graders/job_form.html", {"form": form, "configs": configs})


@require_http_methods(["GET"])
def job_detail(request: HttpRequest, pk: int) -> HttpResponse:
    job = selectors.with_selection_names([access.access_grading_job_for_view(request.user, pk)])[0]
    problems = selectors.job_problem_answers(job)
    return render(request, "graders/job_detail.html", {"job": job, "problems": problems})


@require_http_methods(["GET"])
def job_progress(request: HttpRequest, pk: int) -> HttpResponse:
    job = access.access_grading_job_for_view(request.user, pk)
    return render(request, "graders/_job_progress.html", {"job": job})


def _job_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    job = access.access_grading_job_for_view(request.user, pk)
    service = {
        "cancel": services.grading_job_cancel,
        "resume": services.grading_job_resume,
        "retry_failed": services.grading_job_retry_failed,
    }[action]
    try:
        job = service(job=job)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, _("Job %(job)s: %(status)s.") % {"job": job.pk, "status": job.get_status_display()})
    return redirect("graders:job_detail", pk=job.pk)


@require_http_methods(["POST"])
def job_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    return _job_action(request, pk, "cancel")


@require_http_methods(["POST"])
def job_resume(request: HttpRequest, pk: int) -> HttpResponse:
    return _job_action(request, pk, "resume")


@require_http_methods(["POST"])
def job_retry_failed(request: HttpRequest, pk: int) -> HttpResponse:
    return _job_action(request, pk, "retry_failed")
