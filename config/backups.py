"""Back up and restore a deployment's data on any database (SQLite or PostgreSQL).

A backup is a directory holding `data.jsonl.gz` (Django's `dumpdata` of every project app and
the accounts, natural keys, one object per line, streamed) and `manifest.json` (per model: the
row count and a sha256 over its rows in primary-key order). Restoring loads the data into a
migrated, empty database in one transaction and then recomputes the manifest: the restore
fails, and rolls back, unless every count and checksum matches the backup's.

Timestamps are kept to the millisecond, the precision of Django's serializers; the checksums
are taken at that precision too. Left out on purpose: sessions (people log in again), login-throttling records, content types
and permissions (recreated by `migrate`), the cache (recomputed).
"""

from __future__ import annotations

import datetime
import hashlib
import json
from pathlib import Path

from django.apps import apps
from django.core import serializers
from django.core.management import call_command
from django.db import transaction

DATA_FILE = "data.jsonl.gz"
MANIFEST_FILE = "manifest.json"
PROJECT_APPS = ("patientagentbench", "sandbox", "jury", "annotation")
ACCOUNT_MODELS = ("auth.group", "auth.user")


class BackupError(Exception):
    """A backup that cannot be written or restored; the message says why."""


def backed_up_models() -> list:
    """Every model a backup holds, in a stable order."""
    models = [apps.get_model(label) for label in ACCOUNT_MODELS]
    for app_label in PROJECT_APPS:
        config = apps.get_app_config(app_label)
        models += sorted(config.get_models(), key=lambda model: model._meta.label)
    return models


def manifest() -> dict:
    """{model label: {"count": rows, "sha256": checksum of its rows in pk order}}."""
    result = {}
    for model in backed_up_models():
        digest = hashlib.sha256()
        count = 0
        for obj in model._default_manager.order_by("pk").iterator(chunk_size=500):
            # The serializer's own view of the row: equal rows give equal bytes on any backend.
            (row,) = serializers.serialize("python", [obj])
            digest.update(json.dumps(row, default=_canonical, sort_keys=True).encode())
            count += 1
        result[model._meta.label] = {"count": count, "sha256": digest.hexdigest()}
    return result


def _canonical(value):
    """JSON for what `json` cannot write; datetimes at the millisecond, as dumpdata keeps them."""
    if isinstance(value, datetime.datetime | datetime.time):
        return value.replace(microsecond=value.microsecond // 1000 * 1000).isoformat()
    return str(value)


def back_up(directory: Path) -> dict:
    """Write the data and its manifest into `directory` (created; must be empty)."""
    directory.mkdir(parents=True, exist_ok=True)
    if any(directory.iterdir()):
        raise BackupError(f"{directory} is not empty; choose a new directory for the backup")
    labels = [model._meta.label for model in backed_up_models()]
    call_command(
        "dumpdata",
        *labels,
        format="jsonl",
        natural_foreign=True,
        output=str(directory / DATA_FILE),
        verbosity=0,
    )
    counts = manifest()
    (directory / MANIFEST_FILE).write_text(json.dumps(counts, indent=1, sort_keys=True))
    return counts


def restore(directory: Path) -> dict:
    """Load a backup into an empty, migrated database; verify counts and checksums."""
    data, manifest_path = directory / DATA_FILE, directory / MANIFEST_FILE
    if not data.is_file() or not manifest_path.is_file():
        raise BackupError(f"{directory} holds no backup ({DATA_FILE} and {MANIFEST_FILE})")
    expected = json.loads(manifest_path.read_text())
    occupied = [
        model._meta.label for model in backed_up_models() if model._default_manager.exists()
    ]
    if occupied:
        raise BackupError(
            "the database already holds data (" + ", ".join(occupied[:5]) + "); restore "
            "into an empty database (migrate a new one first)"
        )
    with transaction.atomic():
        call_command("loaddata", str(data), verbosity=0)
        found = manifest()
        different = sorted(label for label in expected if found.get(label) != expected[label])
        if different:
            raise BackupError(
                "restored data differs from the backup in " + ", ".join(different) + "; "
                "nothing was restored"
            )
    return found
