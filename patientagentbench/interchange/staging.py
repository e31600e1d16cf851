"""Uploaded transcript files waiting between their preview and their import.

A file is kept in the var folder under its SHA-256, so the import a researcher confirms reads
exactly the bytes the preview showed. The folder is the web server's own (0700, files 0600):
an upload can hold conversations no other local user may read.

A confirmation *claims* the staged file by renaming it (`claim`): the rename succeeds for one
caller only, so two confirmations of one upload, even with "import it again", make one run;
the other is told the file is being imported, or already is.

Every file here, staged, half-written (`.partial`) or claimed by an import that died
(`.importing`), is swept on the next upload once it is older than `KEEP_S` (a day): no
upload takes that long to write or import, so nothing in use is swept.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
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


def stage(raw: bytes, digest: str) -> None:
    sweep()
    target = _path(digest)
    # mkstemp makes the file 0600 under a name of its own, so two uploads of the same bytes
    # never write into one another's partial file.
    handle, partial = tempfile.mkstemp(dir=target.parent, prefix=f"{digest}.", suffix=PARTIAL)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(raw)
        os.replace(partial, target)  # atomic: a reader never sees half a file
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


def staged(digest: str) -> bytes | None:
    try:
        return _path(digest).read_bytes()
    except (FileNotFoundError, ValueError):
        return None


def claim(digest: str) -> bytes | None:
    """The staged bytes, taken for one import: None when nothing is staged or another
    confirmation claimed them first. Call `release` when the import has ended."""
    try:
        claimed = _path(digest, CLAIMED)
        os.rename(_path(digest), claimed)  # atomic: of two renames one finds no file
        os.utime(claimed)  # the sweep counts a claim's day from its claiming
        return claimed.read_bytes()
    except (FileNotFoundError, ValueError):
        return None


def being_imported(digest: str) -> bool:
    """Whether a confirmation holds the claim on these bytes (its import is under way)."""
    try:
        return _path(digest, CLAIMED).exists()
    except ValueError:
        return False


def release(digest: str) -> None:
    """Drop a claim once its import ended, imported or refused (a refusal asks to upload
    again)."""
    with contextlib.suppress(ValueError):
        _path(digest, CLAIMED).unlink(missing_ok=True)


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
