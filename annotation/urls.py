"""The review pages (/review/, namespace `annotation`): every workflow's own `urls.py`, gathered."""

from annotation.inspection import urls as inspection
from annotation.outcomes import urls as outcomes
from annotation.rating import urls as rating
from annotation.studies import urls as studies

app_name = "annotation"

urlpatterns = [*rating.urlpatterns, *studies.urlpatterns, *inspection.urlpatterns, *outcomes.urlpatterns]
