"""Test settings: production settings with a throwaway key and tasks run in-process.

DATABASE_URL still chooses the database, so CI runs the same suite on PostgreSQL.
"""

import os

# Settings refuse to start without a secret key outside DEBUG; tests otherwise run like production.
os.environ.setdefault("SECRET_KEY", "medreview-test-suite-key")
os.environ.setdefault("TASKS_BACKEND", "immediate")
os.environ.setdefault("MEDREVIEW_DEV_TOOLS", "1")  # the fake OpenAI endpoint and its command

from medreview.settings import *  # noqa: E402,F403
from medreview.settings import STORAGES  # noqa: E402

STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast personas
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
