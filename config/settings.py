"""Settings from the environment.

The embedded default (no env vars) is SQLite plus a filesystem Celery broker, so the app and
a worker run with nothing else installed. Production sets DATABASE_URL (PostgreSQL),
CELERY_BROKER_URL (Redis), SECRET_KEY and DEBUG=false.
"""

from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote, urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from config.client_address import TrustedProxies
from patientagentbench.env import env_bool, env_floats, env_int, env_list, env_str
from patientagentbench.mailed_links import configured_site_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("PAB_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)
# The largest transcript file the web import accepts (the command line has no cap).
IMPORT_MAX_MB = env_int("PAB_IMPORT_MAX_MB", 100)
# What a zip (an Inspect .eval log) may unpack to, all members and any one, on the web and the
# command line alike: a 1 MB zip can hold a gigabyte, and Inspect reads each member whole.
IMPORT_MAX_UNPACKED_MB = env_int("PAB_IMPORT_MAX_UNPACKED_MB", 512)
IMPORT_MAX_MEMBER_MB = env_int("PAB_IMPORT_MAX_MEMBER_MB", 128)

# Off unless asked for: DEBUG's technical pages list every URL and setting to anyone.
# `make demo` and the tests turn it on.
DEBUG = env_bool("DEBUG", default=False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (DEBUG=true for a local demo: make demo)."
        )
    SECRET_KEY = "insecure-development-key-only-for-debug"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# Where mailed links (invitations, password resets) point, never the request's Host header
# (patientagentbench.mailed_links): e.g. https://pab.example.org.
SITE_URL = configured_site_url(env_str("PAB_SITE_URL"), debug=DEBUG, allowed_hosts=ALLOWED_HOSTS)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",
    "patientagentbench",
    "sandbox",
    "jury",
    "annotation",
    "config",  # the project shell's commands (seed_demo, serve, backups)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "config.database_down.DatabaseUnavailableMiddleware",
    "config.private_pages.NoStoreBehindLoginMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
                "patientagentbench.roles.role_context",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        # Set but empty means the default too, as it does for every other variable here.
        env_str("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DB_CONN_MAX_AGE", 0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and a busy timeout let the web process and a worker write the same file.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
    }
    # A file, not memory, so the browser tests' server and worker threads share it safely.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}
# A pool per process on PostgreSQL. Celery closes a worker thread's connection after every
# task, whatever CONN_MAX_AGE says, so each trace paid for a new PostgreSQL backend; with a
# pool that close hands the connection back. A task holds one for its whole run, so the size
# is at least a worker's threads. Checked when taken, so a database restart costs no job.
# DB_POOL_MAX_SIZE=0 (or DB_CONN_MAX_AGE set) turns it off.
DB_POOL_MAX_SIZE = env_int("DB_POOL_MAX_SIZE", 40)
if (
    DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    and DB_POOL_MAX_SIZE > 0
    and not DATABASES["default"]["CONN_MAX_AGE"]
):
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": DB_POOL_MAX_SIZE,
        "max_idle": 60,  # seconds before an idle connection above min_size is closed
        # Seconds a query waits for a connection: with the database down, the error page
        # comes after this (it came at once without a pool), not after psycopg's 30 s.
        "timeout": 5,
    }
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# django-axes counts failed log-ins and locks, separately, a username and an address after
# AXES_FAILURE_LIMIT failures within the cool-off (each failure during a lockout restarts
# it). An admin unlocks at once: django-admin → Axes → Access attempts, or
# `manage.py axes_reset`, `axes_reset_username NAME`, `axes_reset_ip ADDRESS`.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"  # the login page with the reason, 429
AXES_RESET_ON_SUCCESS = False  # a success must not clear failures other logins piled up
AXES_SENSITIVE_PARAMETERS = ["password"]
AXES_USERNAME_CALLABLE = "config.login_throttle.username_for_lockout"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
# plotly.js is served from static/vendor/plotly (no CDN): the cartesian partial bundle of the
# plotly.js version the plotly package carries (tests/test_plotly_bundle.py holds them equal).
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Security headers; the deploy-only ones switch on with DEBUG off.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
CSRF_FAILURE_VIEW = "patientagentbench.views.errors.csrf_failure"
SESSION_COOKIE_HTTPONLY = True
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# Behind a TLS-terminating reverse proxy (nginx, Caddy, a load balancer) set
# PAB_BEHIND_PROXY=1: only then are X-Forwarded-Proto (is the request HTTPS?) and
# X-Forwarded-For (the client's address, for login throttling) believed, since without a
# proxy any client could send them. Which proxies are ours: PAB_PROXY_COUNT (how many stand in
# front of Django, default 1) or PAB_TRUSTED_PROXIES (their addresses or CIDR blocks, which
# win when set). X-Forwarded-For is read right to left past our proxies
# (config.login_throttle), so a proxy that sets the header and one that appends to it both
# give the client's address, and nothing the client writes is believed.
BEHIND_PROXY = env_bool("PAB_BEHIND_PROXY", False)
CLIENT_ADDRESS_PROXIES = None
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    try:
        CLIENT_ADDRESS_PROXIES = TrustedProxies.parse(
            env_int("PAB_PROXY_COUNT", 1), env_str("PAB_TRUSTED_PROXIES")
        )
    except ValueError as error:
        raise ImproperlyConfigured(f"PAB_PROXY_COUNT / PAB_TRUSTED_PROXIES: {error}") from None
AXES_CLIENT_IP_CALLABLE = "config.login_throttle.client_address_for_lockout"

# Content-Security-Policy (Django's own middleware). Scripts only from our origin: no inline
# script and no eval, so page data travels in data-* attributes and JSON islands
# (<script type="application/json">, never executed) read by static/js/*.js, and figures
# are drawn by static/js/figures.js from their JSON. Styles allow 'unsafe-inline': plotly.js
# and htmx write <style> elements and style attributes at run time, and templates use a few
# style attributes; CSS cannot run code. Images allow data: and blob:, which plotly's
# "download as PNG" uses.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "img-src": [CSP.SELF, "data:", "blob:"],
    "font-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}


# Mail (clinician invitations, password resets). EMAIL_URL names the backend:
# smtp://user:password@host:587 (smtp+tls:// for STARTTLS, smtps:// for implicit TLS),
# console:// (mails printed on the server's console) or dummy:// (dropped). Without it the
# console is used, so nothing ever tries an SMTP server on localhost by accident; the
# older EMAIL_HOST/EMAIL_PORT/EMAIL_USE_TLS/... variables still switch SMTP on, and
# EMAIL_BACKEND (a dotted path) wins over both.
def _backend(kind: str) -> str:
    # The project's console backend keeps a long link on one line (config/mail.py).
    if kind == "console":
        return "config.mail.ConsoleBackend"
    return f"django.core.mail.backends.{kind}.EmailBackend"


def _email_url(url: str) -> dict:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    backends = {
        "console": "console",
        "dummy": "dummy",
        "smtp": "smtp",
        "smtp+tls": "smtp",
        "smtps": "smtp",
    }
    if scheme not in backends:
        raise ImproperlyConfigured(
            f"EMAIL_URL: unknown scheme {scheme!r} (smtp, smtp+tls, smtps, console, dummy)."
        )
    return {
        "backend": _backend(backends[scheme]),
        "host": parts.hostname or "localhost",
        "port": parts.port or {"smtps": 465, "smtp+tls": 587}.get(scheme, 25),
        "user": unquote(parts.username or ""),
        "password": unquote(parts.password or ""),
        "tls": scheme == "smtp+tls",
        "ssl": scheme == "smtps",
    }


_MAIL = (
    _email_url(env_str("EMAIL_URL"))
    if env_str("EMAIL_URL")
    else {
        "backend": _backend("smtp" if env_str("EMAIL_HOST") else "console"),
        "host": env_str("EMAIL_HOST", "localhost"),
        "port": env_int("EMAIL_PORT", 25),
        "user": env_str("EMAIL_HOST_USER"),
        "password": env_str("EMAIL_HOST_PASSWORD"),
        "tls": env_bool("EMAIL_USE_TLS", False),
        "ssl": env_bool("EMAIL_USE_SSL", False),
    }
)
EMAIL_BACKEND = env_str("EMAIL_BACKEND") or _MAIL["backend"]
EMAIL_HOST, EMAIL_PORT = _MAIL["host"], _MAIL["port"]
EMAIL_HOST_USER, EMAIL_HOST_PASSWORD = _MAIL["user"], _MAIL["password"]
EMAIL_USE_TLS, EMAIL_USE_SSL = _MAIL["tls"], _MAIL["ssl"]
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 20)
# Password-reset mails an hour (config.accounts): to one email address, and asked for from one
# client address. Past either, the page answers as always and sends nothing, so it can neither
# flood someone's inbox nor tell which emails have accounts.
PASSWORD_RESET_MAILS_PER_EMAIL = env_int("PAB_RESET_MAILS_PER_EMAIL", 3)
PASSWORD_RESET_REQUESTS_PER_ADDRESS = env_int("PAB_RESET_REQUESTS_PER_ADDRESS", 20)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "PatientAgentBench <noreply@localhost>")
SERVER_EMAIL = env_str("SERVER_EMAIL", DEFAULT_FROM_EMAIL)

# Celery: a filesystem broker needs no server; Redis in CI and production.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or "filesystem://"
BROKER_DIR = VAR_DIR / "broker"
if CELERY_BROKER_URL.startswith("filesystem://"):
    # kombu logs "No hostname was supplied" for every connection to a URL without a host;
    # the filesystem transport ignores the host, so name one and keep the logs quiet.
    if CELERY_BROKER_URL.rstrip("/") == "filesystem:":
        CELERY_BROKER_URL = "filesystem://localhost/"
    # kombu's transport writes a message in place and a poller can take it empty (config.broker).
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
    for sub in ("in", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "in"),
        "data_folder_out": str(BROKER_DIR / "in"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        "polling_interval": 0.1,  # the default 1 s would cap a local worker at a few jobs/s
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True  # a job lost with its worker is redelivered; claiming makes that safe
# One job waiting per thread: with a full prefetch a Redis consumer fetches again only at
# the worker's next loop tick (up to 1 s), so with exactly one message per thread, threads
# that finished sat idle; the benchmark's slots went from ~80% to ~88% busy. A job waits for
# at most one job before it starts, which the visibility timeout below allows for.
CELERY_WORKER_PREFETCH_MULTIPLIER = 2
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Each task is declared beside the function it runs; a worker imports these modules.
CELERY_IMPORTS = (
    "patientagentbench.interchange.import_jobs",
    "patientagentbench.runs.execution",
    "patientagentbench.runs.workers",
    "patientagentbench.suites.case_sets",
)

# A cache every process shares (web and workers), so an analysis a worker computes when a run
# finishes is what the first page view reads: Redis when configured, else files under var/.
CACHE_URL = env_str("CACHE_URL", CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else "")
if CACHE_URL.startswith("redis"):
    CACHES = {
        "default": {
            # Redis away: a cache miss, not a 500 (patientagentbench.cache).
            "BACKEND": "patientagentbench.cache.ForgivingRedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "pab",
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 5},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

# Per-provider concurrency shared by every worker (Redis when the broker is Redis).
CONCURRENCY_REDIS_URL = env_str(
    "CONCURRENCY_REDIS_URL", CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else ""
)
# Redis away (a restart, a failover) is waited out this long by whatever needs it mid-job.
REDIS_OUTAGE_PATIENCE_S = float(env_str("REDIS_OUTAGE_PATIENCE_S", "120"))
# Retry policy for provider calls.
PROVIDER_MAX_ATTEMPTS = env_int("PROVIDER_MAX_ATTEMPTS", 5)
PROVIDER_BASE_DELAY_S = float(env_str("PROVIDER_BASE_DELAY_S", "1.0"))
# A provider answering 429 is waited out this long (backoff up to a minute between calls)
# before the trace ends as an error; other transient errors get PROVIDER_MAX_ATTEMPTS.
PROVIDER_RATE_LIMIT_PATIENCE_S = float(env_str("PROVIDER_RATE_LIMIT_PATIENCE_S", "300"))
PROVIDER_TIMEOUT_S = float(env_str("PROVIDER_TIMEOUT_S", "60"))
# One model config's own timeout: PROVIDER_TIMEOUT_S_<NAME>, the config's name upper-cased with
# every other character as "_" ("qwen2.5-7b" reads PROVIDER_TIMEOUT_S_QWEN2_5_7B). A local
# model's first call of a case (~2,450 prompt tokens, nothing cached) took 61-65 s.
PROVIDER_TIMEOUTS_S = env_floats("PROVIDER_TIMEOUT_S_")

# Jobs and lost workers (runs.workers). Each worker process beats every WORKER_HEARTBEAT_S;
# one silent for WORKER_DEAD_AFTER_S has its claims requeued by the workers still alive, and
# a job whose workers die JOB_MAX_ATTEMPTS times ends as an error. A conversation (or a
# judge job) ends after TRACE_WALL_CLOCK_S of wall-clock time.
TRACE_WALL_CLOCK_S = float(env_str("TRACE_WALL_CLOCK_S", "600"))
WORKER_HEARTBEAT_S = float(env_str("WORKER_HEARTBEAT_S", "5"))
WORKER_DEAD_AFTER_S = float(env_str("WORKER_DEAD_AFTER_S", "20"))
JOB_MAX_ATTEMPTS = env_int("JOB_MAX_ATTEMPTS", 3)
# The longest a job can hold its message: the wall clock, then one more provider call that
# spends all its attempts (each a timeout, then at most a 600 s Retry-After).
LONGEST_JOB_S = (
    TRACE_WALL_CLOCK_S
    + PROVIDER_MAX_ATTEMPTS * (max([PROVIDER_TIMEOUT_S, *PROVIDER_TIMEOUTS_S.values()]) + 600)
    + PROVIDER_RATE_LIMIT_PATIENCE_S
)
# A message is acknowledged after its job ran (acks late, above) and goes back to the queue
# when the process running it dies (reject on worker lost). Redis hands an unacknowledged
# message to another worker after the visibility timeout, so that outlasts the longest job
# plus one it waited behind (the prefetch above); a lost worker's jobs come back sooner
# through the heartbeats.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": int(2 * LONGEST_JOB_S)}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        # Django logs a refused request (403) with the PermissionDenied traceback; a refusal
        # is not a fault, so it becomes one line naming the path and the user.
        "forbidden_one_line": {"()": "patientagentbench.log_filters.ForbiddenInOneLine"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.request": {"filters": ["forbidden_one_line"]},
        # One line per HTTP request drowns the worker log; failures surface as trace errors.
        "httpx": {"level": "WARNING"},
        "httpcore": {"level": "WARNING"},
        # django-axes announces itself at every start (each CLI command); lockouts are WARNING.
        "axes.apps": {"level": "WARNING"},
    },
}
