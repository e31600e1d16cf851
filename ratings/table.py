"""The ratings table in CSV: the one reader and the one writer of every file of scores.

Three commands share it: `export_scores` writes jury, judge and clinician rows side by side
(the scores layout, DESIGN §8), `export_study` writes a study's clinicians (the study
layout), and `agreement` reads either, or a plain `item,rater,dimension,score` file
collected elsewhere. Writing goes through the project's one safe CSV writer
(`patientagentbench.csv_safe`: formula-like cells defused); reading undoes its prefix, so a
rater named `=x` comes back as `=x` and a file written here reads back as the same ratings.

A bad file raises `RatingsFileError` naming the line and column, before any figure is
computed: a partial read is never used.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from patientagentbench.csv_safe import SafeDictWriter, read_cell
from ratings.rating import (
    CLINICIAN,
    JURY,
    NOT_APPLICABLE,
    NOT_APPLICABLE_READS,
    OK,
    STATUSES,
    Rating,
)
from ratings.rubric import Scale
from ratings.scale import DEFAULT_SCALE

JUDGE = "judge"  # a row of one judge's answer: in scores files only, beside its panel's verdict
PLAIN_COLUMNS = ("item", "rater", "dimension", "score")
SCORES_COLUMNS = ("conversation", "rater_kind", "rater", "dimension", "score", "status")
STUDY_COLUMNS = ("study", "item", "rater_kind", "rater", "dimension", "score", "not_applicable")
NOT_APPLICABLE_TEXT = NOT_APPLICABLE_READS | {""}  # a blank score cell is N/A too


class RatingsFileError(ValueError):
    """The file is not a ratings table; the message says where."""


# --- writing -------------------------------------------------------------------------------------


def write_ratings(
    out: TextIO, columns: Sequence[str], rows: Iterable[Mapping[str, Any]], **options: Any
) -> int:
    """The header and every row, formula-like text defused and None written empty; returns
    the number of rows (the header not counted)."""
    writer = SafeDictWriter(out, fieldnames=columns, **options)
    writer.writeheader()
    count = 0
    for row in rows:
        writer.writerow({name: "" if row.get(name) is None else row[name] for name in columns})
        count += 1
    return count


def scores_row(rating: Rating, rater_kind: str | None = None, **extra: Any) -> dict[str, Any]:
    """A rating as a scores-layout row; `extra` fills the columns after `status`."""
    return {
        "conversation": rating.item,
        "rater_kind": rater_kind or rating.kind,
        "rater": rating.rater,
        "dimension": rating.dimension,
        "score": rating.score,
        "status": rating.status,
    } | extra


# --- reading -------------------------------------------------------------------------------------


@dataclass
class RatingsFile:
    layout: tuple[str, ...]  # PLAIN_COLUMNS, SCORES_COLUMNS or STUDY_COLUMNS
    ratings: list[Rating] = field(default_factory=list)  # the clinicians'
    panels: dict[str, list[Rating]] = field(default_factory=dict)  # jury rows per panel
    judge_rows: int = (
        0  # scores-layout rows of single judges, skipped: their panel's verdict stands
    )
    fractional: int = 0  # jury scores between two whole scores (a panel's mean)
    # From export_scores' `qualified` column: whether the file says, and per panel the
    # dimensions where its verdicts had not passed a calibration round.
    says_qualified: bool = False
    unqualified: dict[str, set[str]] = field(default_factory=dict)
    _seen: dict[tuple[str, str, str], int] = field(default_factory=dict, repr=False)

    def jury(self, panel: str = "") -> list[Rating]:
        """The jury's rows: the named panel's, or the only panel's."""
        if panel:
            if panel not in self.panels:
                known = ", ".join(sorted(self.panels)) or "none"
                raise RatingsFileError(
                    f"No jury rows from panel {panel!r} (panels in the file: {known})."
                )
            return self.panels[panel]
        if len(self.panels) > 1:
            raise RatingsFileError(
                f"The file holds jury rows from {len(self.panels)} panels "
                f"({', '.join(sorted(self.panels))}); choose one with --panel."
            )
        return next(iter(self.panels.values()), [])


def read_ratings_file(path: Path, scale: Scale = DEFAULT_SCALE) -> RatingsFile:
    if not path.is_file():
        raise RatingsFileError(f"No such file: {path}")
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            return read_ratings(handle, str(path), scale)
    except UnicodeDecodeError as error:
        raise RatingsFileError(f"{path} is not UTF-8 text: {error}") from error


def read_ratings(
    handle: Iterable[str], name: str = "the file", scale: Scale = DEFAULT_SCALE
) -> RatingsFile:
    """Every rating of a plain, scores or study file, each checked against `scale` (the
    rubric the file scores), one per rater, item and dimension."""
    try:
        reader = csv.DictReader(handle)
        header = [column.strip() for column in reader.fieldnames or []]
        reader.fieldnames = header
        read = RatingsFile(_layout(header, name))
        read.says_qualified = read.layout == SCORES_COLUMNS and "qualified" in header
        for row in reader:
            cells = {k: read_cell(v or "") for k, v in row.items() if k}
            rating = _rating(read, _Line(cells, read.layout, reader.line_num, scale))
            if rating is not None:
                _add(read, rating, reader.line_num)
    except csv.Error as error:
        raise RatingsFileError(f"{name} is not a readable CSV: {error}") from error
    if not read.ratings and not read.panels:
        raise RatingsFileError(f"{name} holds no ratings.")
    return read


def _layout(header: list[str], name: str) -> tuple[str, ...]:
    for layout in (SCORES_COLUMNS, STUDY_COLUMNS, PLAIN_COLUMNS):
        if set(layout) <= set(header):
            return layout
    missing = [column for column in PLAIN_COLUMNS if column not in header]
    raise RatingsFileError(
        f"{name}, line 1: missing column(s) {', '.join(missing)}; expected "
        f"{','.join(PLAIN_COLUMNS)} or export_scores output ({','.join(SCORES_COLUMNS)},...)"
    )


def _rating(read: RatingsFile, line: _Line) -> Rating | None:
    if read.layout == PLAIN_COLUMNS:
        item, rater, dimension = (line.required(column) for column in PLAIN_COLUMNS[:3])
        kind = JURY if rater.lower() == JURY else CLINICIAN
        status = line.status() if "status" in line.row else None
        score, status = line.score(kind, status)
        return Rating(item, JURY if kind == JURY else rater, dimension, score, status, kind)
    kind = line.row.get("rater_kind", "").strip()
    if read.layout == SCORES_COLUMNS and kind == JUDGE:
        read.judge_rows += 1
        return None
    if kind not in ((JURY, CLINICIAN) if read.layout == SCORES_COLUMNS else (CLINICIAN,)):
        expected = "jury, judge or clinician" if read.layout == SCORES_COLUMNS else "clinician"
        raise line.error("rater_kind", f"expected {expected}, got {kind!r}")
    item = line.required("conversation" if read.layout == SCORES_COLUMNS else "item")
    rater, dimension = line.required("rater"), line.required("dimension")
    if read.layout == SCORES_COLUMNS:
        score, status = line.score(kind, line.status())
        if kind == JURY and read.says_qualified and not line.flag("qualified"):
            read.unqualified.setdefault(rater, set()).add(dimension)
    else:
        score, status = line.score(kind, NOT_APPLICABLE if line.flag("not_applicable") else OK)
    return Rating(item, rater, dimension, score, status, kind)


def _add(read: RatingsFile, rating: Rating, line: int) -> None:
    key = (str(rating.item), f"{rating.kind}:{rating.rater}", rating.dimension)
    first = read._seen.setdefault(key, line)
    if first != line:
        raise RatingsFileError(
            f"line {line}: {rating.rater} already rated item {rating.item} on "
            f"{rating.dimension} (line {first}); give one score per rater, item and dimension"
        )
    if rating.kind == JURY:
        if rating.score is not None and not float(rating.score).is_integer():
            read.fractional += 1
        read.panels.setdefault(rating.rater, []).append(rating)
    else:
        read.ratings.append(rating)


class _Line:
    """One row's cells, read with errors that name the line and the column."""

    def __init__(
        self, row: dict[str, str], layout: tuple[str, ...], number: int, scale: Scale
    ) -> None:
        self.row, self.layout, self.number, self.scale = row, layout, number, scale

    def error(self, column: str, message: str) -> RatingsFileError:
        return RatingsFileError(f"line {self.number}, column {column}: {message}")

    def required(self, column: str) -> str:
        value = self.row.get(column, "").strip()
        if not value:
            raise self.error(column, "empty")
        return value

    def status(self) -> str:
        status = self.row.get("status", "").strip() or OK
        if status not in STATUSES:
            raise self.error("status", f"expected one of {', '.join(STATUSES)}, got {status!r}")
        return status

    def flag(self, column: str) -> bool:
        return self.row.get(column, "").strip().lower() in ("1", "true", "yes")

    def score(self, kind: str, status: str | None) -> tuple[float | None, str]:
        """The score and the status it stands under; an empty score is not applicable."""
        text = self.row.get("score", "").strip()
        if status not in (None, OK):
            return None, status
        if text.lower() in NOT_APPLICABLE_TEXT:
            if status == OK and self.layout == SCORES_COLUMNS:
                raise self.error("score", "status ok needs a score")
            return None, NOT_APPLICABLE
        return self._number(text, kind), OK

    def _number(self, text: str, kind: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise self.error(
                "score", f"expected a score from {self.scale.span}, got {text!r}"
            ) from None
        if not self.scale.low <= value <= self.scale.high:
            raise self.error("score", f"expected a score from {self.scale.span}, got {text!r}")
        if kind == CLINICIAN and not value.is_integer():
            raise self.error("score", f"a clinician's score is a whole number, got {text!r}")
        return int(value) if value.is_integer() else value
