"""The ratings CSV: what the writer writes, the reader reads back as the same ratings, in each
of the three layouts, and a bad file is refused with its line and column."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.rating import CLINICIAN, JURY, NOT_APPLICABLE, OK, Rating, ratings_of, status_of
from ratings.table import (
    JUDGE,
    SCORES_COLUMNS,
    STUDY_COLUMNS,
    RatingsFileError,
    read_ratings,
    read_ratings_file,
    scores_row,
    write_ratings,
)

# Names a spreadsheet would run as formulas, a quote the defusing must not eat, plain text.
NAMES = st.sampled_from(["A", "dr-b", "=HYPERLINK(1)", "+x", "-y", "@z", "'quoted", "c 3"])
DIMENSIONS = st.sampled_from(["clinical_safety", "triage_quality", "=sum"])
CLINICIAN_SCORE = st.one_of(st.none(), st.integers(1, 5))
JURY_SCORE = st.one_of(st.none(), st.integers(2, 10).map(lambda n: n / 2))  # 1.0 … 5.0 by halves


def _key(rating: Rating) -> tuple:
    return (str(rating.item), rating.rater, rating.dimension, rating.kind)


@st.composite
def rating_sets(draw) -> list[Rating]:
    seen, ratings = set(), []
    for _ in range(draw(st.integers(1, 25))):
        kind = draw(st.sampled_from([CLINICIAN, JURY]))
        score = draw(CLINICIAN_SCORE if kind == CLINICIAN else JURY_SCORE)
        rating = Rating(
            str(draw(st.integers(1, 6))),
            draw(NAMES) if kind == CLINICIAN else "panel-1",
            draw(DIMENSIONS),
            score,
            status_of(score),
            kind,
        )
        if _key(rating) not in seen:
            seen.add(_key(rating))
            ratings.append(rating)
    return ratings


def _round_trip(columns, rows) -> list[Rating]:
    out = io.StringIO()
    write_ratings(out, columns, rows)
    read = read_ratings(io.StringIO(out.getvalue()))
    return read.ratings + read.jury()


@given(rating_sets())
def test_a_scores_file_reads_back_as_the_ratings_written(ratings):
    back = _round_trip(
        (*SCORES_COLUMNS, "repetition"), [scores_row(r, repetition=1) for r in ratings]
    )
    assert sorted(back, key=_key) == sorted(ratings, key=_key)


@given(rating_sets())
def test_a_study_file_reads_back_as_its_clinicians_ratings(ratings):
    clinicians = [r for r in ratings if r.kind == CLINICIAN]
    if not clinicians:
        return
    rows = [
        {
            "study": 7,
            "item": r.item,
            "rater_kind": CLINICIAN,
            "rater": r.rater,
            "dimension": r.dimension,
            "score": r.score,
            "not_applicable": int(r.score is None),
        }
        for r in clinicians
    ]
    assert sorted(_round_trip(STUDY_COLUMNS, rows), key=_key) == sorted(clinicians, key=_key)


def test_formula_cells_are_defused_on_disk_and_restored_on_reading():
    out = io.StringIO()
    write_ratings(out, SCORES_COLUMNS, [scores_row(Rating("1", "=HYPERLINK(1)", "d", 4))])
    assert "'=HYPERLINK(1)" in out.getvalue()
    (back,) = read_ratings(io.StringIO(out.getvalue())).ratings
    assert back.rater == "=HYPERLINK(1)"


def test_judge_rows_are_counted_and_skipped_and_fractions_counted():
    rows = [
        scores_row(Rating("1", "A", "d", 3)),
        scores_row(Rating("1", "panel", "d", 3.5, OK, JURY)),
        scores_row(Rating("1", "j1", "d", 3, OK, JURY), rater_kind=JUDGE),
        scores_row(Rating("1", "j2", "d", 4, OK, JURY), rater_kind=JUDGE),
    ]
    out = io.StringIO()
    write_ratings(out, SCORES_COLUMNS, rows)
    read = read_ratings(io.StringIO(out.getvalue()))
    assert (read.judge_rows, read.fractional, len(read.ratings)) == (2, 1, 1)
    assert read.jury("panel")[0].score == 3.5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("item,rater,dimension,score\ni1,A,d,6\n", "line 2, column score: expected a score"),
        ("item,rater,dimension,score\ni1,A,d,2.5\n", "line 2, column score: a clinician's"),
        ("item,rater,dimension,score\ni1,,d,2\n", "line 2, column rater: empty"),
        ("item,rater,dimension\ni1,A,d\n", "line 1: missing column(s) score"),
        ("item,rater,dimension,score\n", "holds no ratings"),
        (
            "item,rater,dimension,score\ni1,A,d,2\ni1,A,d,3\n",
            "line 3: A already rated item i1 on d (line 2)",
        ),
        (
            ",".join(STUDY_COLUMNS) + "\n1,i1,jury,A,d,3,0\n",
            "line 2, column rater_kind: expected clinician, got 'jury'",
        ),
        (
            ",".join(SCORES_COLUMNS) + "\n1,clinician,A,d,,ok\n",
            "line 2, column score: status ok needs a score",
        ),
        (
            ",".join(SCORES_COLUMNS) + "\n1,clinician,A,d,3,maybe\n",
            "line 2, column status: expected one of",
        ),
    ],
)
def test_a_bad_file_names_its_line_and_column(text, message):
    with pytest.raises(RatingsFileError) as raised:
        read_ratings(io.StringIO(text))
    assert message in str(raised.value)


def test_lines_count_physical_lines_of_multiline_cells():
    text = 'item,rater,dimension,score\n"i\n1",A,d,2\ni2,A,d,9\n'
    with pytest.raises(RatingsFileError, match="line 4, column score"):
        read_ratings(io.StringIO(text))


def test_two_panels_need_a_choice(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("item,rater,dimension,score\ni1,A,d,2\n", encoding="utf-8")
    read = read_ratings_file(path)
    assert read.jury() == []
    read.panels = {"p1": [], "p2": []}
    with pytest.raises(RatingsFileError, match=r"2 panels \(p1, p2\)"):
        read.jury()
    with pytest.raises(RatingsFileError, match="No jury rows from panel 'p3'"):
        read.jury("p3")
    with pytest.raises(RatingsFileError, match="No such file"):
        read_ratings_file(tmp_path / "missing.csv")


def test_a_submission_reads_as_one_rating_per_dimension_with_its_status():
    ratings = ratings_of("12", "C-1", {"a": 4, "b": None}, study=3, references={"a": 5})
    assert [(r.dimension, r.score, r.status, r.reference) for r in ratings] == [
        ("a", 4, OK, 5),
        ("b", None, NOT_APPLICABLE, None),
    ]
    assert {(r.item, r.rater, r.kind, r.study) for r in ratings} == {("12", "C-1", CLINICIAN, 3)}
