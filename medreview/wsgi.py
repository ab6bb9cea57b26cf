import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "medreview.settings")
application = get_wsgi_application()

# Load the URL map, and with it every view module (pandas, scipy, matplotlib, openai: about 2 s),
# when the worker starts rather than on its first request: otherwise the first report a researcher
# opens after a deploy or a worker restart waits for the imports. runserver does the same through
# its system checks.
from django.urls import get_resolver  # noqa: E402

get_resolver().url_patterns  # noqa: B018
