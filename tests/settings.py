"""Settings for the test run: the project's settings with a fast hasher, and under
pytest-xdist a var folder and Redis database of each worker's own."""

import os
from pathlib import Path
from urllib.parse import urlparse

# Under `pytest -n N` every worker gets its own test database from pytest-django; what lives
# outside the database must be split too, or one worker's Celery worker runs the other's
# messages against the wrong database and the shared cache answers with the other's rows.
# Set in the environment, so worker processes and `manage.py` subprocesses inherit it.
_XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
_REDIS_DATABASES = 16  # Redis' default; worker gwI uses base + 4*I: up to -n 4 never collide.


def _own_redis_database(url: str, index: int) -> str:
    parsed = urlparse(url)
    base = int(parsed.path.strip("/") or 0)
    return parsed._replace(path=f"/{(base + 4 * index) % _REDIS_DATABASES}").geturl()


# Processes the tests start (Celery workers, manage.py) inherit PYTEST_XDIST_WORKER and the
# already split variables, and load these settings again: the marker keeps them from being
# split twice (gw1's db 9 became 17 % 16 = 1, gw0's, and the two workers ate each other's jobs).
if _XDIST_WORKER.startswith("gw") and os.environ.get("PAB_SPLIT_FOR") != _XDIST_WORKER:
    os.environ["PAB_SPLIT_FOR"] = _XDIST_WORKER
    _index = int(_XDIST_WORKER[2:])
    _var = os.environ.get("PAB_VAR_DIR") or str(Path(__file__).resolve().parents[1] / "var")
    os.environ["PAB_VAR_DIR"] = str(Path(_var) / _XDIST_WORKER)
    for _name in ("CELERY_BROKER_URL", "CACHE_URL", "CONCURRENCY_REDIS_URL"):
        if os.environ.get(_name, "").startswith(("redis://", "rediss://")):
            os.environ[_name] = _own_redis_database(os.environ[_name], _index)

# The tests run as `make demo` does, with DEBUG on (its default is off); the production-like
# tests set their own environment. Subprocesses the tests start inherit it.
os.environ.setdefault("DEBUG", "true")

from config.settings import *  # noqa: E402, F403

# PBKDF2 costs ~0.5 s a hash and most tests create users; test_production_hasher.py keeps it.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# A commit waits for its WAL flush (~2.4 ms here, against 0.07 ms without); tests that commit
# (transactional and live-server tests, worker processes, which inherit these settings) paid
# that thousands of times. Durability across a server crash is nothing the tests check.
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c synchronous_commit=off"  # noqa: F405
