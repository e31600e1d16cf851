"""Uploaded transcript files waiting for their import job (`interchange.import_jobs`).

A file is kept in the var folder under its SHA-256, so the import a researcher confirms reads
exactly the bytes its check read. The folder is the web server's own (0700, files 0600): an
upload can hold conversations no other local user may read. An upload is copied here chunk
by chunk as it is hashed, so the web process never holds a whole file.

Which import uses a file is the job's to decide (its row is claimed once, `runs.claims`);
the job discards the file when it ends. Every file here, staged, half-written (`.partial`)
or claimed by an import of an older release (`.importing`), is swept on the next upload once
it is older than `KEEP_S` (a day): no upload takes that long to write or import, so nothing
in use is swept.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from django.conf import settings

KEEP_S = 24 * 3600
FOLDER_MODE, FILE_MODE = 0o700, 0o600
STAGED, PARTIAL, CLAIMED = ".upload", ".partial", ".importing"
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _folder() -> Path:
    folder = Path(settings.VAR_DIR) / "uploads"
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    folder.chmod(FOLDER_MODE)  # a folder made before this (0755 under the usual umask) closes
    return folder


def _path(digest: str, suffix: str = STAGED) -> Path:
    if not _SHA256.fullmatch(digest):  # the digest comes back from a form: never a path
        raise ValueError("not a SHA-256 digest")
    return _folder() / f"{digest}{suffix}"


def stage(chunks: Iterable[bytes]) -> tuple[str, int]:
    """Write an upload's chunks under its SHA-256: (the digest, its size in bytes)."""
    sweep()
    folder = _folder()
    # mkstemp makes the file 0600 under a name of its own, so two uploads of the same bytes
    # never write into one another's partial file.
    handle, partial = tempfile.mkstemp(dir=folder, prefix="upload.", suffix=PARTIAL)
    digest, size = hashlib.sha256(), 0
    try:
        with os.fdopen(handle, "wb") as out:
            for chunk in chunks:
                digest.update(chunk)
                size += len(chunk)
                out.write(chunk)
        os.replace(partial, _path(digest.hexdigest()))  # atomic: a reader never sees half
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return digest.hexdigest(), size


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
    for path in _folder().iterdir():
        if path.suffix not in (STAGED, PARTIAL, CLAIMED):
            continue
        with contextlib.suppress(FileNotFoundError):  # another process swept it first
            if path.stat().st_mtime < cutoff:
                path.unlink()
