"""Scores as one flat table, one row per rating (DESIGN §8), in CSV or Parquet.

Columns: `conversation` (the trace id, the key the clinicians' export uses too),
`rater_kind` (`jury`: a panel's verdict; `judge`: one judge's answer), `rater` (the panel or
judge name), `dimension`, `score` (empty unless scored; a panel's score may be a fraction,
the mean of its judges), `status` (`ok`,
`not_applicable`, `unparseable`, `truncated`, `na_not_allowed`, `error`),
`rubric_version`, `repetition`, `qualified` (`yes` when the panel verdict, or the judge, has
passed a calibration round on the dimension's track at its current rubric and prompt versions,
`no` otherwise: an unqualified jury's numbers are not a clinician-equivalent measurement;
empty for clinicians, whose calibration their study enforces).

A panel verdict without a usable judge has no score; its status is `not_applicable` when
every judge said so, else the worse failure (`aggregate.no_score_status`).

Clinicians' scores (`rater_kind` `clinician`) are added by the review app's `export_scores`
command, which may read both; the jury never imports the review app (DESIGN §2).
Only each panel's current versions are written, as the pages show them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from jury.models import Panel
from jury.pure.aggregate import no_score_status
from jury.qualification import standing
from jury.verdicts import conversation_verdicts, rubric_of
from ratings.rating import JURY, Rating
from ratings.table import JUDGE, SCORES_COLUMNS, scores_row, write_ratings

COLUMNS = (*SCORES_COLUMNS, "rubric_version", "repetition", "qualified")
FORMATS = ("csv", "parquet")


def score_rows(panels: Iterable[Panel] | None = None, run_id: int | None = None) -> Iterator[dict]:
    panels = list(panels) if panels is not None else list(Panel.objects.all())
    for panel in panels:
        tracks = {d.key: d.track for d in rubric_of(panel).dimensions}
        judges = {j.name: j for j in panel.judges.all()}
        standings = {name: standing(panel, judge) for name, judge in judges.items()}
        own = standing(panel)
        for conversation in conversation_verdicts(panel, run=run_id):
            for verdict in conversation.dimensions:
                track = tracks.get(verdict.dimension, "")
                yield _jury_row(panel, conversation, verdict) | {
                    "qualified": _yes(own.is_qualified(track))
                }
                for answer in verdict.answers:
                    judge_standing = standings.get(answer.judge)
                    rating = Rating(
                        conversation.trace_id,
                        answer.judge,
                        verdict.dimension,
                        answer.score,
                        answer.status,
                        JURY,
                    )
                    yield scores_row(
                        rating,
                        rater_kind=JUDGE,
                        rubric_version=answer.rubric_version,
                        repetition=answer.repetition,
                        qualified=_yes(
                            judge_standing is not None and judge_standing.is_qualified(track)
                        ),
                    )


def _jury_row(panel: Panel, conversation, verdict) -> dict:
    score = verdict.panel.score
    status = "ok" if score is not None else no_score_status(verdict.panel.n_excluded)
    rounded = None if score is None else round(score, 4)
    return scores_row(
        Rating(conversation.trace_id, panel.name, verdict.dimension, rounded, status, JURY),
        rubric_version=verdict.answers[0].rubric_version if verdict.answers else "",
        repetition=conversation.repetition,
    )


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def write_scores(path: Path, fmt: str, rows: Iterable[dict]) -> int:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    return write_csv(path, rows) if fmt == "csv" else write_parquet(path, rows)


def write_csv(path: Path, rows: Iterable[dict]) -> int:
    with path.open("w", newline="", encoding="utf-8") as handle:
        return write_ratings(handle, COLUMNS, rows)


def write_parquet(path: Path, rows: Iterable[dict]) -> int:
    import pyarrow as pa  # imported here: only this export needs it
    import pyarrow.parquet as pq

    rows = list(rows)
    schema = pa.schema(
        [
            ("conversation", pa.int64()),
            ("rater_kind", pa.string()),
            ("rater", pa.string()),
            ("dimension", pa.string()),
            ("score", pa.float64()),  # null unless scored
            ("status", pa.string()),
            ("rubric_version", pa.string()),
            ("repetition", pa.int32()),
            ("qualified", pa.string()),  # yes / no; null for clinicians
        ]
    )
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, path)
    return len(rows)
