from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from medreview import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("data/", include("cases.urls")),
    path("review/", include("annotation.urls")),
    path("reports/", include("agreement.urls")),
    path("graders/", include("graders.urls")),
    path("api/cases/", include("cases.api_urls")),
    path("api/review/", include("annotation.api_urls")),
    path("api/reports/", include("agreement.api_urls")),
    path("api/graders/", include("graders.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]
