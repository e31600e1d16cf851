"""Researchers' own rubrics: imported from a JSON file (the Rubrics page, `import_rubric`),
checked by the same rules as the built-in ones (`ratings.rubric.parse_rubric`, one line per
bad field), stored once per name and version and never edited.

A version's wording is what every score given under it was given under, so a stored version
is immutable: importing the same file again is a no-op, importing other wording under a
stored version is refused with the version to use instead. Built-in names (the files in
`fixtures/rubrics`) cannot be taken, so a stored rubric never stands in for one of them.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, connection, transaction

from jury.models import Panel, StoredRubric
from ratings.rubric import (
    Rubric,
    RubricError,
    available_versions,
    built_in_names,
    cached_rubric,
    parse_rubric,
    rubric_names,
)

MAX_FILE_BYTES = 1_000_000  # a rubric of 20 dimensions × 10 levels is a few tens of kB
FRESH_SECONDS = 5.0  # how long a process trusts its list of stored versions


@dataclass(frozen=True)
class Imported:
    rubric: Rubric
    created: bool  # False: this very version was already stored, with this very wording


def import_rubric(text: str | bytes, by=None) -> Imported:
    """Store a rubric file's version; `RubricError` with one line naming the field when the
    file breaks a rule, the name is built in, or the version is stored with other wording."""
    data = _json(text)
    if "\\u0000" in json.dumps(data):  # PostgreSQL's JSON cannot hold a NUL character
        raise RubricError("the rubric file: holds a NUL character (\\u0000); remove it")
    rubric = parse_rubric(data, source="the rubric file")
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,59}", rubric.name):
        raise RubricError(
            f"the rubric file: name must be lower-case letters, digits, - and _ (at most 60), "
            f"got {rubric.name!r}"
        )
    if rubric.name in built_in_names():
        raise RubricError(
            f"the rubric file: name {rubric.name!r} is a built-in rubric's; give yours its own name"
        )
    stored = StoredRubric.objects.filter(name=rubric.name, version=int(rubric.version)).first()
    if stored is not None:
        return Imported(_same_wording(stored, rubric), created=False)
    try:
        with transaction.atomic():
            StoredRubric.objects.create(
                name=rubric.name,
                version=int(rubric.version),
                data=data,
                fingerprint=rubric.fingerprint,
                imported_by=by,
            )
    except IntegrityError:  # imported at the same moment by someone else
        stored = StoredRubric.objects.get(name=rubric.name, version=int(rubric.version))
        return Imported(_same_wording(stored, rubric), created=False)
    STORE.forget()
    return Imported(rubric, created=True)


def _json(text: str | bytes) -> Any:
    if len(text) > MAX_FILE_BYTES:
        raise RubricError(f"the rubric file: larger than {MAX_FILE_BYTES // 1000} kB")
    try:
        return json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RubricError(f"the rubric file: not valid JSON ({error})") from None


def _same_wording(stored: StoredRubric, rubric: Rubric) -> Rubric:
    if stored.fingerprint != rubric.fingerprint:
        newest = max(available_versions(rubric.name))
        raise RubricError(
            f"the rubric file: {rubric.name} v{rubric.version} is already stored with other "
            f"wording, and a stored version never changes: give the changed rubric version "
            f'"{newest + 1}"'
        )
    return rubric


@dataclass(frozen=True)
class RubricRow:
    """One rubric version as the Rubrics page lists it."""

    rubric: Rubric
    built_in: bool
    panels: int  # panels that score on it

    @property
    def scored(self) -> int:
        return len(self.rubric.scored)

    @property
    def realism(self) -> int:
        return len(self.rubric.realism)


def rubric_rows() -> list[RubricRow]:
    """Every rubric version a study or panel may name, built-in first, newest version first."""
    built_in = set(built_in_names())
    panels: dict[tuple[str, str], int] = {}
    for name, version in Panel.objects.values_list("rubric_name", "rubric_version"):
        panels[(name, version)] = panels.get((name, version), 0) + 1
    rows = []
    for name in rubric_names():
        for version in reversed(available_versions(name)):
            rubric = cached_rubric(name, str(version))
            rows.append(RubricRow(rubric, name in built_in, panels.get((name, str(version)), 0)))
    return rows


def rubric_choices() -> list[tuple[str, str]]:
    """("name@version", "Title v2 (6 dimensions, 1 to 5)") for every version, for a form."""
    return [
        (f"{row.rubric.name}@{row.rubric.version}", _choice_label(row.rubric))
        for row in rubric_rows()
    ]


def _choice_label(rubric: Rubric) -> str:
    title = rubric.title or rubric.name
    return (
        f"{title} v{rubric.version} ({len(rubric.scored)} scored dimensions, "
        f"{rubric.scale.span}, pass ≥ {rubric.scale.pass_mark})"
    )


def named(text: str) -> Rubric:
    """The rubric "NAME[@VERSION]" names (the command lines' --rubric): the newest version
    when none is given; `RubricError` when there is no such rubric."""
    name, _, version = text.partition("@")
    return cached_rubric(name or "patientagentbench", version or None)


def choice_of(text: str) -> str:
    """ "NAME[@VERSION]" as a form's "name@version" choice."""
    rubric = named(text)
    return f"{rubric.name}@{rubric.version}"


def split_choice(choice: str) -> tuple[str, str]:
    """ "name@version" → (name, version), checked to name a rubric that exists."""
    name, _, version = choice.partition("@")
    cached_rubric(name, version or None)  # RubricError when there is no such rubric
    return name, version


class StoredRubrics:
    """The database as a `ratings.rubric` source. Versions are listed from a short-lived
    per-process copy (pages ask for "the newest" often); a version's data is read once and
    kept by `cached_rubric`, since it never changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listed: dict[str, list[int]] | None = None
        self._listed_at = 0.0
        self._table_seen = False

    def forget(self) -> None:
        with self._lock:
            self._listed = None

    def _listing(self) -> dict[str, list[int]]:
        with self._lock:
            if self._listed is None or time.monotonic() - self._listed_at > FRESH_SECONDS:
                if not self._table_exists():
                    return {}  # before `migrate` (a migration may read the built-in rubric)
                listed: dict[str, list[int]] = {}
                for name, version in StoredRubric.objects.values_list("name", "version"):
                    listed.setdefault(name, []).append(version)
                self._listed, self._listed_at = listed, time.monotonic()
            return self._listed

    def _table_exists(self) -> bool:
        # Asked until the table is there, never again: a failed query would abort the
        # transaction a migration runs in, so the table is looked for, not tried.
        if not self._table_seen:
            self._table_seen = StoredRubric._meta.db_table in connection.introspection.table_names()
        return self._table_seen

    def data(self, name: str, version: str) -> dict | None:
        if not version.isdigit() or not self._table_exists():
            return None
        row = StoredRubric.objects.filter(name=name, version=int(version)).first()
        return None if row is None else row.data

    def versions(self, name: str) -> list[int]:
        return list(self._listing().get(name, []))

    def names(self) -> list[str]:
        return sorted(self._listing())


STORE = StoredRubrics()
