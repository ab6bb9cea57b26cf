from django.urls import path  # noqa: F401

app_name = "annotation_api"

urlpatterns: list = []
