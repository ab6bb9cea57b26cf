"""medreview settings, read from the environment.

DATABASE_URL   sqlite:///path or postgres://user@host:port/name (default: SQLite file db.sqlite3)
SECRET_KEY     required unless DEBUG is on
DEBUG          "1"/"true" to enable (default off)
ALLOWED_HOSTS  comma-separated (default localhost,127.0.0.1 when DEBUG)
TASKS_BACKEND  "db" (default: django-tasks-db, run `manage.py db_worker`) or "immediate"
MEDREVIEW_DEV_TOOLS  "1" installs the `devtools` app (test doubles; never in production)

Every other variable (HTTPS, sessions, lockout, tokens, throttles, storage, graders, e-mail, single
sign-on) is listed with its default in docs/deployment.md.
"""

from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from medreview.settings.env import env_bool, env_given, env_int, env_list, env_mapping, env_str, image_sources

BASE_DIR = Path(__file__).resolve().parents[2]  # the checkout: medreview/settings/__init__.py is two levels down

DEBUG = env_bool("DEBUG", default=False)

SECRET_KEY = env_str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set: on a server export SECRET_KEY (docs/deployment.md); on your own "
            "machine run commands as `python3 dev.py manage <command>`, which turns on DEBUG."
        )
    # A fixed key is acceptable only for local development with DEBUG on.
    SECRET_KEY = "medreview-insecure-development-key-do-not-use-in-production"  # noqa: S105

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", default=[])
CSRF_FAILURE_VIEW = "medreview.views.csrf_failure"  # the 403 page with a reason and a way back

INSTALLED_APPS = [
    # The admin without autodiscovery at start-up: medreview/urls.py discovers the admin modules when
    # the URLs load, so a command that serves no page (import_cases) does not import them.
    "django.contrib.admin.apps.SimpleAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",  # API tokens stored as hashes, with an expiry
    "axes",  # login lockout
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_tasks",
    "django_tasks_db",
    "accounts",
    "cases",
    "annotation",
    "agreement",
    "liveclin",
    "graders",
    "demo",
    "medreview",  # the platform: system checks (catalogues compiled) and `compile_catalogues`
]
# Test and development doubles (the fake OpenAI endpoint command): tests and `dev.py demo` turn them on.
if env_bool("MEDREVIEW_DEV_TOOLS", default=False):
    INSTALLED_APPS.append("devtools")

MIDDLEWARE = [
    # First: work the answer does not need (sealing the audit chain) runs after it is sent.
    "medreview.after_response.AfterResponseMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "medreview.middleware.PrebuiltCSPMiddleware",  # django-csp's, the policy built once
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Language: the cookie, then the browser's Accept-Language; a signed-in user's profile wins
    # (accounts.language.middleware.ProfileLanguageMiddleware, after authentication).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.language.middleware.ProfileLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "medreview.middleware.LoginRequiredEverywhereMiddleware",
    "medreview.middleware.SessionIdleTimeoutMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out sign-in into its lockout page
]
# A Server-Timing header on every response (medreview/server_timing.py: total, middleware, view,
# database, named spans), read by benchmarks/rating_loop.py and the browser's developer tools. Off by
# default: it tells every client how long each part of the server took.
SERVER_TIMING = env_bool("SERVER_TIMING", default=False)
if SERVER_TIMING:
    MIDDLEWARE = [
        "medreview.server_timing.ServerTimingMiddleware", *MIDDLEWARE,
        "medreview.server_timing.ServerTimingViewMiddleware",
    ]

ROOT_URLCONF = "medreview.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.roles.role_context",
            ],
        },
    },
]

WSGI_APPLICATION = "medreview.wsgi.application"
ASGI_APPLICATION = "medreview.asgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("CONN_MAX_AGE", default=0),
        # A reused connection is checked first, so a restarted database or a terminated backend
        # costs a reconnect instead of one 500 per dead connection.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Parameters travel apart from the SQL (psycopg's server-side binding), so a statement a
    # connection runs again and again (every claim, draft and submit runs the same dozen) is
    # prepared once and then only executed: PostgreSQL stops parsing and planning it on every
    # request (a queue request's database time fell by a quarter; docs/performance.md). A pooler in
    # transaction mode that cannot keep prepared statements (PgBouncer before 1.21) needs
    # DATABASE_PREPARED_STATEMENTS=0.
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "server_side_binding": True,
        "prepare_threshold": 5 if env_bool("DATABASE_PREPARED_STATEMENTS", default=True) else None,
    })
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite as an embedded default that behaves (issue 21), not one that only starts:
    # - WAL lets the worker and the web process read while the other writes;
    # - busy_timeout (and `timeout`, the same wait in Python's driver) waits out a short write lock
    #   instead of failing with "database is locked";
    # - IMMEDIATE takes the write lock when a transaction begins: a deferred transaction that reads
    #   first and then writes cannot wait for the lock (SQLite answers SQLITE_BUSY at once, whatever
    #   the timeout), which is what made a submit during an autosave fail with a 500;
    # - synchronous=NORMAL is safe under WAL (a power cut loses at most the last commits, never the file).
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA busy_timeout=20000; PRAGMA synchronous=NORMAL;",
    })

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# The interface ships complete in these languages (docs/i18n.md: adding a third). A zh-CN / zh-SG
# browser falls back to zh-Hans through Django's language fallbacks.
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
# The language of a browser that asks for none of them, of e-mails to people who chose none, and of
# management commands: a Chinese hospital sets LANGUAGE_CODE=zh-hans.
LANGUAGE_CODE = env_str("LANGUAGE_CODE", default="en").lower()
if LANGUAGE_CODE not in dict(LANGUAGES):
    raise ImproperlyConfigured(f"LANGUAGE_CODE must be one of {', '.join(dict(LANGUAGES))}, not {LANGUAGE_CODE!r}")
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates and numbers as each language's readers write them (medreview/formats: 11月25日 22:09).
FORMAT_MODULE_PATH = ["medreview.i18n.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
    # Uploaded import files: in the database, so web servers and workers on different machines all
    # read them; `IMPORT_STORAGE=filesystem` keeps them under MEDIA_ROOT (then it must be shared).
    "imports": {
        "BACKEND": "django.core.files.storage.FileSystemStorage"
        if env_str("IMPORT_STORAGE", default="database") == "filesystem"
        else "cases.storage.DatabaseStorage"
    },
    # Curated releases' files (curations/<name>/<file>): in the database too, so every web server and
    # worker serves them and backing up PostgreSQL keeps them; `CURATION_STORAGE=filesystem` keeps
    # them under MEDIA_ROOT (which must then be shared and backed up).
    "curations": {
        "BACKEND": "django.core.files.storage.FileSystemStorage"
        if env_str("CURATION_STORAGE", default="database") == "filesystem"
        else "cases.storage.DatabaseStorage"
    },
}
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", default=str(BASE_DIR / "media")))
MEDIA_URL = "media/"
# Uploaded import files can be large (a LiveMedBench release is tens of MB).
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

SESSION_COOKIE_HTTPONLY = True
# An idle timeout: medreview.middleware.SessionIdleTimeoutMiddleware saves an active session (at most
# once a minute), pushing its expiry forward, so a session ends after this long unused.
SESSION_COOKIE_AGE = int(env_int("SESSION_IDLE_HOURS", default=8) * 3600)
SESSION_COOKIE_SECURE = not DEBUG and env_bool("SECURE_COOKIES", default=True)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# HTTPS: HTTP redirected and HSTS sent whenever cookies are Secure (production); SECURE_COOKIES=0
# turns all three off for a plain-HTTP trial. Behind a TLS proxy set SECURE_PROXY_SSL_HEADER=1.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=SESSION_COOKIE_SECURE)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain HTTP
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", default=31536000 if SESSION_COOKIE_SECURE else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=False)
# Both flags bind the hospital's whole domain (its subdomains, browsers' preload list): a decision
# medreview cannot make. `check --deploy` warns (W005, W021) until the operator sets them, to 1 or 0.
SILENCED_SYSTEM_CHECKS = [
    *(["security.W005"] if env_given("SECURE_HSTS_INCLUDE_SUBDOMAINS") else []),
    *(["security.W021"] if env_given("SECURE_HSTS_PRELOAD") else []),
]
if env_bool("SECURE_PROXY_SSL_HEADER", default=False):
    # Only behind a proxy that overwrites X-Forwarded-Proto; otherwise a client could claim HTTPS.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Content-Security-Policy (django-csp) on every response: scripts only from medreview itself, no
# inline script anywhere. Inline style attributes stay allowed (progress bar widths). Images come
# from medreview itself and from the hosts an admin lists in ALLOWED_IMAGE_HOSTS (LiveClin figures
# are linked by URL): opening a case must not tell an outside server about it.
ALLOWED_IMAGE_HOSTS = env_list("ALLOWED_IMAGE_HOSTS", default=[])
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": image_sources(ALLOWED_IMAGE_HOSTS),
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# The audit trail's hash chain is keyed (HMAC-SHA256) with a secret kept outside the database, so
# someone who can write to the database cannot re-seal an edited chain (docs/deployment.md, "The
# audit trail"). AUDIT_CHAIN_KEYS=id=secret,older-id=older-secret: the first seals new events, every
# one listed verifies the events sealed with it (rotation keeps the old ones listed).
AUDIT_CHAIN_KEYS = env_mapping("AUDIT_CHAIN_KEYS", default={})
for _key_id, _secret in AUDIT_CHAIN_KEYS.items():
    if len(_key_id) > 32 or not _key_id.replace("-", "").replace("_", "").isalnum():
        raise ImproperlyConfigured(f"AUDIT_CHAIN_KEYS: the key id {_key_id!r} must be up to 32 letters, digits, - or _")
    if len(_secret) < 32:
        raise ImproperlyConfigured(f"AUDIT_CHAIN_KEYS: the secret of key {_key_id!r} must be at least 32 characters")
# A pending event written longer than this before the chain was last sealed is refused (backdated or
# unsealed by hand); it is the longest a review transaction may take.
AUDIT_SEAL_GRACE_SECONDS = env_int("AUDIT_SEAL_GRACE_SECONDS", default=3600)
# Events written in requests are sealed by a background thread of each server process, in one
# transaction per study every this many seconds (annotation/models/sealer.py); 0: after each answer.
AUDIT_SEAL_BATCH_SECONDS = env_int("AUDIT_SEAL_BATCH_SECONDS", default=1)
# Every seal logs the chain's new head to the logger `medreview.audit`; AUDIT_HEAD_LOG_FILE adds a
# file for it (or route that logger to syslog in LOGGING): a copy of the head outside the database.
AUDIT_HEAD_LOG_FILE = env_str("AUDIT_HEAD_LOG_FILE", default="")

# Login lockout (django-axes): after AXES_FAILURE_LIMIT wrong passwords a username is locked for
# AXES_COOLOFF_MINUTES, even for the right password; a successful sign-in resets the count.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", default=30))
# By username only: behind the hospital's proxy every client shares one address, and locking that
# address would lock everyone out (axes.W006 says to add the address; deliberately not done).
AXES_LOCKOUT_PARAMETERS = ["username"]
SILENCED_SYSTEM_CHECKS.append("axes.W006")
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # no start-up banner in every command's output
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"

# Single sign-on (OpenID Connect, mozilla-django-oidc): off unless OIDC_ENABLED.
OIDC_ENABLED = env_bool("OIDC_ENABLED", default=False)
OIDC_RP_CLIENT_ID = env_str("OIDC_RP_CLIENT_ID", default="")
OIDC_RP_CLIENT_SECRET = env_str("OIDC_RP_CLIENT_SECRET", default="")
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("OIDC_OP_AUTHORIZATION_ENDPOINT", default="")
OIDC_OP_TOKEN_ENDPOINT = env_str("OIDC_OP_TOKEN_ENDPOINT", default="")
OIDC_OP_USER_ENDPOINT = env_str("OIDC_OP_USER_ENDPOINT", default="")
OIDC_OP_JWKS_ENDPOINT = env_str("OIDC_OP_JWKS_ENDPOINT", default="")
# The provider's `issuer`: identities are bound by (issuer, subject), and an ID token from any other
# issuer is refused (accounts/oidc.py).
OIDC_OP_ISSUER = env_str("OIDC_OP_ISSUER", default="")
if OIDC_ENABLED and not OIDC_OP_ISSUER:
    raise ImproperlyConfigured(
        "OIDC_OP_ISSUER is not set: with OIDC_ENABLED copy `issuer` from the provider's "
        "/.well-known/openid-configuration (docs/deployment.md, single sign-on)"
    )
OIDC_RP_SIGN_ALGO = "RS256"
OIDC_RP_SCOPES = "openid email profile"
OIDC_TIMEOUT = 10
OIDC_USERNAME_CLAIM = env_str("OIDC_USERNAME_CLAIM", default="preferred_username")
OIDC_ROLE_CLAIM = env_str("OIDC_ROLE_CLAIM", default="groups")
OIDC_ROLE_MAP = env_mapping("OIDC_ROLE_MAP", default={})  # "group=role,..."
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=failed"
if OIDC_ENABLED:
    AUTHENTICATION_BACKENDS.append("accounts.oidc.RoleMappingOIDCBackend")

# Invitations and other mail: printed to the console in development, SMTP otherwise.
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    default="django.core.mail.backends.console.EmailBackend" if DEBUG else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_HOST = env_str("EMAIL_HOST", default="localhost")
EMAIL_PORT = env_int("EMAIL_PORT", default=25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=False)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", default="medreview <medreview@localhost>")
PASSWORD_RESET_TIMEOUT = env_int("INVITATION_DAYS", default=7) * 86400  # invitation links expire

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "medreview.authentication.ProfileTokenAuthentication",
    ],
    # Rates are read from API_THROTTLE_RATES on each request (medreview.throttling).
    "DEFAULT_THROTTLE_CLASSES": ["medreview.throttling.UserThrottle", "medreview.throttling.AnonThrottle"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Services raise Django's ValidationError / medreview.errors.ConflictError; one handler maps
    # them to 400 / 409 with the same body shape in every app.
    "EXCEPTION_HANDLER": "medreview.drf.exception_handler",
    # Who a client is, for the throttles: the address of the connection, or, behind this many
    # proxies that append to X-Forwarded-For, the address the nearest proxy saw. Never the whole
    # header, which a client writes itself (a new address per request would reset its count).
    "NUM_PROXIES": env_int("API_TRUSTED_PROXIES", default=0),
}
API_THROTTLE_RATES = {
    "user": env_str("API_THROTTLE_USER", default="1200/minute"),
    "anon": env_str("API_THROTTLE_ANON", default="60/minute"),
}
# API tokens (django-rest-knox): only a hash is stored, each expires, the key is shown once.
API_TOKEN_DAYS = env_int("API_TOKEN_DAYS", default=90)
# A verified token is remembered this many seconds in each server process (no query per API call);
# a revoked token or a deactivated user stops working within it (medreview/authentication.py). 0: off.
API_TOKEN_CACHE_SECONDS = env_int("API_TOKEN_CACHE_SECONDS", default=5)
# A study's tasks, scales and categories are remembered this many seconds in each server process (every
# claim, draft and submit needs them); an edit in another process is seen within it (annotation/fields.py).
# 0: read them on every request.
STUDY_TASKS_CACHE_SECONDS = env_int("STUDY_TASKS_CACHE_SECONDS", default=5)
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=API_TOKEN_DAYS),
    "AUTH_HEADER_PREFIX": "Token",  # the header clients already send
    "AUTO_REFRESH": False,
}

# Graders: keys only from variables with this prefix, endpoints only on these hosts (graders/endpoints/policy.py).
GRADER_KEY_ENV_PREFIX = env_str("GRADER_KEY_ENV_PREFIX", default="MEDREVIEW_GRADER_KEY_")
GRADER_ALLOWED_HOSTS = env_list("GRADER_ALLOWED_HOSTS", default=["127.0.0.1", "localhost"] if DEBUG else [])
# A runner silent this long is dead: its chunks and slot are taken over (graders/jobs/healing.py).
GRADERS_STALE_SECONDS = env_int("GRADERS_STALE_SECONDS", default=30)

SPECTACULAR_SETTINGS = {
    "TITLE": "medreview API",
    "DESCRIPTION": "Physician review of medical LLM benchmark data and automated grading.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI's assets are served from the sidecar package: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several models have a `status` / `kind` field; give each choice set its own schema name.
    "ENUM_NAME_OVERRIDES": {
        "ItemKindEnum": "annotation.models.ItemKind",
        "ItemStatusEnum": "annotation.models.Item.Status",
        "StudyStatusEnum": "annotation.models.Study.Status",
        "AssignmentStateEnum": "annotation.models.Assignment.State",
        "GraderKindEnum": "graders.models.GraderKind",
        "ReleaseStatusEnum": "cases.models.Release.Status",
    },
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # Every operation also documents the 401, 403, 404 and 429 answers (medreview/drf.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "medreview.drf.document_error_responses",
    ],
}

TASKS = {
    "default": {
        "BACKEND": (
            "django_tasks.backends.immediate.ImmediateBackend"
            if env_str("TASKS_BACKEND", default="db") == "immediate"
            else "django_tasks_db.DatabaseBackend"
        ),
        "QUEUES": ["default", "grading", "imports"],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    # Expected refusals (403, 404) are the access rules working: one line, no traceback.
    "filters": {"expected_refusals": {"()": "medreview.logfilters.ExpectedRefusalFilter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "axes": {"level": "WARNING"},  # not a line per successful sign-in
        "django.request": {"filters": ["expected_refusals"]},
        "django.security": {"filters": ["expected_refusals"]},
    },
}
if AUDIT_HEAD_LOG_FILE:
    LOGGING["handlers"]["audit_heads"] = {"class": "logging.FileHandler", "filename": AUDIT_HEAD_LOG_FILE,
                                          "formatter": "plain"}
    LOGGING["loggers"]["medreview.audit"] = {"handlers": ["console", "audit_heads"], "level": "INFO",
                                             "propagate": False}
