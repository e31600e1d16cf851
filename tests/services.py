"""Which real services a test needs: fail in CI when they are missing, skip elsewhere."""

import os
import socket
from urllib.parse import urlparse

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def _reachable(url: str, default_port: int) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection(
            (parsed.hostname or "127.0.0.1", parsed.port or default_port), 1
        ):
            return True
    except OSError:
        return False


def require_services() -> tuple[str, str]:
    """PostgreSQL and Redis from the environment: fail in CI when missing, skip elsewhere."""
    database_url = os.environ.get("DATABASE_URL", "")
    broker_url = os.environ.get("CELERY_BROKER_URL", "")
    problems = []
    if not database_url.startswith(("postgres://", "postgresql://")):
        problems.append("DATABASE_URL is not a PostgreSQL URL")
    elif not _reachable(database_url, 5432):
        problems.append(f"PostgreSQL at {database_url} is unreachable")
    if not broker_url.startswith("redis://"):
        problems.append("CELERY_BROKER_URL is not a Redis URL")
    elif not _reachable(broker_url, 6379):
        problems.append(f"Redis at {broker_url} is unreachable")
    if problems:
        message = "; ".join(problems)
        if IN_CI:
            pytest.fail(f"CI needs PostgreSQL and Redis: {message}")
        pytest.skip(f"needs PostgreSQL and Redis: {message}")
    return database_url, broker_url
