"""A scratch Django for a benchmark: a fresh SQLite database in a temporary var folder, the
filesystem broker, no shared cache, so a benchmark never touches the project's own data."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def scratch_django(prefix: str, *, var_dir: Path | None = None, **env: str) -> Path:
    """Point settings at a new temporary folder (or `var_dir`, for steps in processes of their
    own that share one), plus any `env` overrides, set Django up and return the folder.
    Migrating is the caller's choice."""
    var_dir = var_dir or Path(tempfile.mkdtemp(prefix=prefix))
    os.environ.update(
        PAB_VAR_DIR=str(var_dir),
        DATABASE_URL=f"sqlite:///{var_dir / 'db.sqlite3'}",
        CELERY_BROKER_URL="filesystem://",
        CACHE_URL="",
        DJANGO_SETTINGS_MODULE="config.settings",
        LOG_LEVEL="WARNING",
        **env,
    )
    import django

    django.setup()
    return var_dir
