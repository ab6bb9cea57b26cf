"""Label-task addresses: pages under /review/labels/ (namespace `labelling`), API under
/api/review/labels/ (namespace `labelling_api`); `liveclin.urls` hands them to the URL map."""

from django.urls import path

from liveclin.labelling import api, views

urlpatterns = [
    path("", views.task_list, name="task_list"),
    path("<int:pk>/next/", views.task_next, name="task_next"),
    path("<int:pk>/inspection/", views.task_inspection, name="task_inspection"),
    path("<int:pk>/report/", views.task_report_page, name="task_report"),
    path("units/<int:pk>/", views.unit, name="unit"),
    path("units/<int:pk>/withdraw/", views.unit_withdraw, name="unit_withdraw"),
    path("units/<int:pk>/inspect/", views.unit_inspect, name="unit_inspect"),
]

api_urlpatterns = [
    path("<int:pk>/next/", api.LabelTaskNextAPI.as_view(), name="task_next"),
    path("<int:pk>/report/", api.LabelTaskReportAPI.as_view(), name="task_report"),
    path("units/<int:pk>/", api.LabelUnitAPI.as_view(), name="unit"),
    path("units/<int:pk>/answer/", api.LabelAnswerAPI.as_view(), name="unit_answer"),
    path("units/<int:pk>/decide/", api.LabelDecisionAPI.as_view(), name="unit_decide"),
]
