from django.urls import path

from cases import api

app_name = "cases_api"

urlpatterns = [
    path("datasets/", api.DatasetListAPI.as_view(), name="dataset_list"),
    path("imports/", api.ImportAPI.as_view(), name="import"),
    path("taxonomies/", api.TaxonomyListAPI.as_view(), name="taxonomy_list"),
    path("taxonomies/<int:pk>/nodes/", api.TaxonomyNodeListAPI.as_view(), name="taxonomy_nodes"),
]
