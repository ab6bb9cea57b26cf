"""The review API (/api/review/, namespace `annotation_api`): every workflow's own `urls.py`, gathered."""

from annotation.inspection import urls as inspection
from annotation.outcomes import urls as outcomes
from annotation.rating import urls as rating
from annotation.studies import urls as studies

app_name = "annotation_api"

urlpatterns = [
    *studies.api_urlpatterns, *rating.api_urlpatterns, *inspection.api_urlpatterns, *outcomes.api_urlpatterns,
]
