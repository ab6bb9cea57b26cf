from django.urls import path  # noqa: F401

app_name = "agreement_api"

urlpatterns: list = []
