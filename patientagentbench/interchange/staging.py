"""Uploaded transcript files waiting between their preview and their import.

A file is kept in the var folder under its SHA-256, so the import a researcher confirms reads
exactly the bytes the preview showed, and a second confirmation finds the run by the same
hash instead of importing twice. Files not confirmed within a day are swept away on the next
upload.
"""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path

from django.conf import settings

KEEP_S = 24 * 3600
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _folder() -> Path:
    folder = Path(settings.VAR_DIR) / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _path(digest: str) -> Path:
    if not _SHA256.fullmatch(digest):  # the digest comes back from a form: never a path
        raise ValueError("not a SHA-256 digest")
    return _folder() / f"{digest}.upload"


def stage(raw: bytes, digest: str) -> None:
    sweep()
    target = _path(digest)
    partial = target.with_suffix(".partial")
    partial.write_bytes(raw)
    partial.replace(target)  # atomic: a reader never sees half a file


def staged(digest: str) -> bytes | None:
    try:
        return _path(digest).read_bytes()
    except (FileNotFoundError, ValueError):
        return None


def discard(digest: str) -> None:
    with contextlib.suppress(ValueError):
        _path(digest).unlink(missing_ok=True)


def sweep(now: float | None = None) -> None:
    cutoff = (now or time.time()) - KEEP_S
    for path in _folder().glob("*.upload"):
        with contextlib.suppress(FileNotFoundError):  # another process swept it first
            if path.stat().st_mtime < cutoff:
                path.unlink()
