"""Test settings: production settings with a throwaway key and tasks run in-process.

DATABASE_URL still chooses the database, so CI runs the same suite on PostgreSQL.
"""

import os

# Settings refuse to start without a secret key outside DEBUG; tests otherwise run like production.
os.environ.setdefault("SECRET_KEY", "medreview-test-suite-key")
os.environ.setdefault("TASKS_BACKEND", "immediate")
os.environ.setdefault("MEDREVIEW_DEV_TOOLS", "1")  # the fake OpenAI endpoint and its command
os.environ.setdefault("SECURE_COOKIES", "0")  # the test client speaks plain HTTP: no redirect to HTTPS
# The fake OpenAI server, and hosts that grader-config tests save (never called).
os.environ.setdefault("GRADER_ALLOWED_HOSTS", "127.0.0.1,localhost,vllm.local:8000,api.openai.com")
# Throttles are tested with their own low rates (tests/test_security.py); suites make many requests.
os.environ.setdefault("API_THROTTLE_USER", "100000/minute")
os.environ.setdefault("API_THROTTLE_ANON", "100000/minute")
# The verified-token cache is tested with its own window (tests/test_hot_path.py); elsewhere a token
# changed behind the ORM's back (an expiry rewritten by .update()) must take effect at once.
os.environ.setdefault("API_TOKEN_CACHE_SECONDS", "0")
# Likewise a study's tasks and scales (tested with a window of their own in
# tests/annotation/rating/test_study_tasks_cache.py): a test may rewrite a scale with .update().
os.environ.setdefault("STUDY_TASKS_CACHE_SECONDS", "0")
# Events sealed in the background (annotation/models/sealer.py) are tested with a window of their own
# (tests/annotation/test_audit_sealer.py); elsewhere a request's events are sealed once its answer is out.
os.environ.setdefault("AUDIT_SEAL_BATCH_SECONDS", "0")

from medreview.settings import *  # noqa: E402,F403
from medreview.settings import STORAGES  # noqa: E402

STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast personas
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
