"""Settings shared by every environment. External values come from environment variables.

Defaults give the embedded set-up (SQLite, kombu's filesystem broker under ``var/``);
``DATABASE_URL`` and ``CELERY_BROKER_URL`` switch to PostgreSQL and Redis/RabbitMQ.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
import plotly
from django.core.exceptions import ImproperlyConfigured

from evaltrans.broker import transport_for

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("EVALTRANS_VAR_DIR") or BASE_DIR / "var")


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


SECRET_KEY = os.environ.get("SECRET_KEY", "")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",
    "evaltrans.corpora",
    "judging",
    "judging.humanscores",
    "metrics",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "evaltrans.middleware.MethodNotAllowedPageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as axes asks: it turns a refused login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "evaltrans.urls"
WSGI_APPLICATION = "evaltrans.wsgi.application"

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
                "evaltrans.context_processors.roles",
            ],
        },
    },
]

if not os.environ.get("DATABASE_URL"):
    # The embedded default keeps its SQLite file under var/, which a fresh clone lacks.
    VAR_DIR.mkdir(parents=True, exist_ok=True)

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE") or "60"),
        # A kept connection may have died with a database restart: test it before each request
        # reuses it, or that request is a 500.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Celery workers and the web server write concurrently; wait for locks instead of failing.
    # WAL lets pages read while an import or a run writes (with a rollback journal, a large
    # write locks every reader out once it spills to the file); synchronous=NORMAL is WAL's
    # usual setting, losing at most the last commits on a power cut, never consistency.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator",
        # Django's 0.7 lets a doubled user name through ("judge3judge3" scores 0.67).
        "OPTIONS": {"max_similarity": 0.6},
    },
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]


def cache_settings(url: str, var_dir: Path) -> dict[str, dict[str, object]]:
    """``CACHES`` for ``CACHE_URL``. The cache holds computed panels (human scores, correlation
    matrices: up to 20 s each on a WMT-sized set), keyed by their data's revision, so an entry
    never goes stale. Empty: files under ``var/cache``, shared by every process of this machine
    (each gunicorn worker computed every panel again with Django's per-process default);
    ``redis://…``: shared by every machine; ``locmem://``: per process."""
    if not url:
        return {
            "default": {
                "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                "LOCATION": str(var_dir / "cache"),
                "OPTIONS": {"MAX_ENTRIES": 1000},
            }
        }
    if url.startswith(("redis://", "rediss://")):
        return {
            "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
        }
    if url == "locmem://":
        return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    raise ImproperlyConfigured(
        f"CACHE_URL must be empty (files under var/cache), redis://… or locmem://, not {url!r}"
    )


CACHES = cache_settings(os.environ.get("CACHE_URL", ""), VAR_DIR)

# In the database, which every web process shares: with the default per-process memory cache
# in front (cached_db), a logged-out session stayed valid in the other gunicorn workers.
SESSION_ENGINE = "django.contrib.sessions.backends.db"

# Login throttling (django-axes). The axes backend comes first so that a locked-out user is
# refused before the password is even checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Counted separately per account (from any address) and per address (for any account), so
# neither many addresses against one account nor one address against many accounts gets far.
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
# Ten, not three: judges of a campaign often share one address (a lab, a NAT).
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT") or "10")
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("AXES_COOLOFF_MINUTES") or "15"))
# A success must not clear the address's count: an attacker with one valid account would
# otherwise reset it between guesses at another.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "evaltrans.throttling.lockout_response"
# Behind a reverse proxy every request comes from the proxy's address; this many trusted
# proxies append to X-Forwarded-For, and the client is the address the outermost one saw.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT") or "0")
AXES_CLIENT_IP_CALLABLE = "evaltrans.throttling.client_ip"
# Lockouts are still logged; this only drops axes' banner from every command and worker start.
AXES_VERBOSE = False

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "corpora:home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# plotly.min.js is served from the plotly package itself (same version as the Python figures,
# no copy in the repository, never a CDN): /static/vendor/plotly/plotly.min.js
STATICFILES_DIRS = [
    BASE_DIR / "static",
    ("vendor/plotly", Path(plotly.__file__).resolve().parent / "package_data"),
]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Uploaded files (corpora waiting for their import) live here until the import ends; never
# served. Workers on other machines need it shared (scale-out: an NFS folder, or an object
# store as the "default" storage).
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or VAR_DIR / "media")

# Caps of one corpus import (web form and import_corpus alike): each file, all files
# together, segments. Uploads of at least CORPUS_BACKGROUND_IMPORT_BYTES together are
# imported by a Celery worker with a progress page (0: every upload), smaller ones in the
# request; CORPUS_IMPORT_TIME_LIMIT_S limits the worker's task.
CORPUS_UPLOAD_MAX_BYTES = int(os.environ.get("CORPUS_UPLOAD_MAX_BYTES") or 50 * 1024 * 1024)
CORPUS_UPLOAD_MAX_TOTAL_BYTES = int(
    os.environ.get("CORPUS_UPLOAD_MAX_TOTAL_BYTES") or 200 * 1024 * 1024
)
CORPUS_IMPORT_MAX_SEGMENTS = int(os.environ.get("CORPUS_IMPORT_MAX_SEGMENTS") or 500_000)
CORPUS_BACKGROUND_IMPORT_BYTES = int(
    os.environ.get("CORPUS_BACKGROUND_IMPORT_BYTES") or 5 * 1024 * 1024
)
CORPUS_IMPORT_TIME_LIMIT_S = int(os.environ.get("CORPUS_IMPORT_TIME_LIMIT_S") or 1800)
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = CORPUS_UPLOAD_MAX_BYTES

# Celery: JSON only, late acknowledgement so a killed worker loses no task, time limits.
# The filesystem transport has no host, but kombu warns "No hostname was supplied" on every
# connection to a URL that names none (each command that queues a task printed it).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "filesystem://localhost//"
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(VAR_DIR / "broker" / "queue"),
        "data_folder_out": str(VAR_DIR / "broker" / "queue"),
        "processed_folder": str(VAR_DIR / "broker" / "processed"),
        "control_folder": str(VAR_DIR / "broker" / "control"),
        "store_processed": False,
        # kombu polls the folder once a second by default; with late acks and prefetch 1 a
        # worker waits up to one interval between tasks. 10 ms costs an idle worker about
        # 0.5 % of a core and a run of 50 tasks about 0.25 s (0.1 s cost it 3 to 4 s).
        "polling_interval": 0.01,
    }
    if CELERY_BROKER_URL.startswith("filesystem://")
    else {}
)
# kombu's filesystem transport lets a worker take a message file before it is written, which
# stops the worker; evaltrans.broker writes each file whole first.
CELERY_BROKER_TRANSPORT = transport_for(CELERY_BROKER_URL)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = 600
CELERY_TASK_TIME_LIMIT = 660
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# Worker heartbeat: every worker records that it is alive this often; a running run whose
# progress and workers have both been silent for METRICS_STALLED_AFTER_S is shown as stalled.
# A chunk can compute for minutes without storing anything, so only the heartbeat tells a
# busy worker from a dead one; the threshold leaves room for a few missed beats.
METRICS_WORKER_HEARTBEAT_S = 15
METRICS_STALLED_AFTER_S = 60

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL") or "INFO"},
}
