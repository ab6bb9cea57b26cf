from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET

from accounts.models import Role
from accounts.roles import user_role


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Send each role to its own dashboard."""
    role = user_role(request.user)
    if role == Role.ADMIN:
        return redirect("annotation:admin_dashboard")
    if role == Role.RESEARCHER:
        return redirect("agreement:report_index")
    if role == Role.INSPECTOR:
        return redirect("annotation:inspector_dashboard")
    return redirect("annotation:physician_dashboard")


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
