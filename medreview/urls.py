from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts.language.views import set_language
from accounts.views import home
from liveclin import urls as liveclin_urls
from medreview import views

# django.contrib.admin.apps.SimpleAdminConfig (settings): every app's admin module, registered here.
admin.autodiscover()

urlpatterns = [
    path("", home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/login/", auth_views.LoginView.as_view(extra_context={"oidc_enabled": settings.OIDC_ENABLED}),
         name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", include("accounts.urls")),
    path("admin/", admin.site.urls),
    path("i18n/language/", set_language, name="set_language"),
    path("i18n/catalog.js", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("data/", include("cases.urls")),
    path("review/labels/", include((liveclin_urls.labelling_urlpatterns, "labelling"))),
    path("review/consolidations/", include((liveclin_urls.consolidation_urlpatterns, "consolidation"))),
    path("review/", include("annotation.urls")),
    path("reports/", include("agreement.urls")),
    path("reports/", include((liveclin_urls.urlpatterns, "liveclin"))),
    path("graders/", include("graders.urls")),
    path("api/cases/", include("cases.api_urls")),
    path("api/review/labels/", include((liveclin_urls.labelling_api_urlpatterns, "labelling_api"))),
    path("api/review/consolidations/", include((liveclin_urls.consolidation_api_urlpatterns, "consolidation_api"))),
    path("api/review/", include("annotation.api_urls")),
    path("api/reports/", include("agreement.api_urls")),
    path("api/reports/", include((liveclin_urls.api_urlpatterns, "liveclin_api"))),
    path("api/graders/", include("graders.api_urls")),
    path("api/accounts/", include("accounts.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file: no inline script (CSP).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]
if settings.OIDC_ENABLED:
    # Single sign-on: /oidc/authenticate/ starts it, /oidc/callback/ is the redirect URI to register.
    urlpatterns.append(path("oidc/", include("mozilla_django_oidc.urls")))

# Every refusal of every app ends on one page that says why, in the user's language, with a way back.
handler403 = "medreview.views.forbidden"
