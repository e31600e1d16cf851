"""`manage.py agreement`: Krippendorff's worked example through the command, both CSV layouts
(plain and `export_scores`), JSON keys and intervals, the table, and errors naming the line
and column."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.management.commands.agreement import Command

WORKED_EXAMPLE = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}
JURY = [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 1, 3]
EXPORT_HEADER = [
    "conversation",
    "rater_kind",
    "rater",
    "dimension",
    "score",
    "status",
    "rubric_version",
    "repetition",
]


def write(path, header, rows):
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def plain_rows(jury=True):
    rows = [
        [f"u{unit:02d}", observer, "safety", "" if value is None else value]
        for observer, values in WORKED_EXAMPLE.items()
        for unit, value in enumerate(values)
    ]
    if jury:
        rows += [[f"u{unit:02d}", "jury", "safety", value] for unit, value in enumerate(JURY)]
    return rows


def run(path, *args):
    out, err = io.StringIO(), io.StringIO()
    call_command("agreement", "--ratings", str(path), *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def run_json(path, *args):
    out, err = run(path, "--format", "json", *args)
    return json.loads(out), err


def test_the_worked_example_through_the_command(tmp_path):
    path = write(tmp_path / "r.csv", ["item", "rater", "dimension", "score"], plain_rows(False))
    result, _ = run_json(path, "--resamples", "300")
    safety = result["safety"]
    assert round(safety["krippendorff_alpha_ordinal"], 3) == 0.815
    assert round(safety["krippendorff_alpha_interval"], 3) == 0.849
    assert round(safety["krippendorff_alpha_nominal"], 3) == 0.743  # on the five scores
    assert safety["krippendorff_alpha_pass_fail"] is not None
    assert (safety["n_items"], safety["n_raters"]) == (12, 4)
    low, high = safety["krippendorff_alpha_ordinal_ci"]
    assert low < safety["krippendorff_alpha_ordinal"] < high
    assert "envelope_jury_adjacent_agreement" not in safety
    assert safety["excluded"] == {"clinician": {"not_applicable": 7}}


def test_jury_rows_add_the_jury_figures_each_with_an_interval(tmp_path):
    path = write(tmp_path / "r.csv", ["item", "rater", "dimension", "score"], plain_rows())
    result, err = run_json(
        path, "--resamples", "300", "--margin", "0.5", "--verdict-resamples", "2000"
    )
    safety = result["safety"]
    assert safety["n_raters"] == 4  # the jury is not a clinician
    for key in (
        "krippendorff_alpha_ordinal",
        "krippendorff_alpha_pass_fail",
        "envelope_jury_adjacent_agreement",
        "envelope_clinician_adjacent_agreement",
        "envelope_jury_kappa",
        "envelope_kappa_difference",
        "every_pair_exact_agreement",
        "every_pair_weighted_kappa",
    ):
        low, high = safety[f"{key}_ci"]
        assert low <= safety[key] <= high, key
        assert safety[f"{key}_method"] and safety[f"{key}_n_items"] > 0, key
    assert safety["envelope_jury_adjacent_agreement_n_items"] == 11  # 2+ clinicians
    assert safety["every_pair_exact_agreement_n_items"] == 12
    # 11 items of Krippendorff's example are far too few to claim anything.
    assert safety["margin"] == 0.5 and safety["verdict"] == "not enough evidence"
    assert safety["verdict_reason"] == "11 items; 30 needed"
    assert set(safety["detail"]["modes"]) == {
        "every_pair",
        "clinician_mean",
        "mean_within_1",
        "mean_within_2",
    }
    assert "halves rounded up" in err


def test_the_table_is_readable(tmp_path):
    path = write(tmp_path / "r.csv", ["item", "rater", "dimension", "score"], plain_rows())
    out, _ = run(path, "--resamples", "200")
    assert out.startswith("safety: 12 items, 4 clinicians, with jury scores")
    assert "Krippendorff's alpha, ordinal      0.815 [" in out
    assert (
        "every pair" in out and "Human envelope (11 items with 2+ clinicians, 4 clinicians)" in out
    )
    assert "halves rounded up (2.5 → 3) for exact, adjacent and kappa" in out
    assert "verdict (margin ±0.1): not enough evidence: 11 items; 30 needed" in out


def test_export_scores_output_is_read_alike(tmp_path):
    plain = write(tmp_path / "plain.csv", ["item", "rater", "dimension", "score"], plain_rows())
    rows = []
    for item, rater, dimension, score in plain_rows():
        if rater == "jury":
            rows.append([item, "jury", "sim-panel", dimension, score, "ok", "v1", 0])
            rows.append([item, "judge", "judge-a", dimension, 1, "ok", "v1", 0])
        else:
            status = "ok" if score != "" else "not_applicable"
            rows.append([item, "clinician", rater, dimension, score, status, "v1", ""])
    export = write(tmp_path / "export.csv", EXPORT_HEADER, rows)
    args = ("--resamples", "200")
    exported, err = run_json(export, *args)
    assert exported == run_json(plain, *args)[0]
    assert "12 judge rows skipped" in err


def test_fractional_jury_scores_meet_whole_scores_by_the_tie_rule_and_are_counted(tmp_path):
    rows = [
        ["c1", "jury", "p", "safety", "3.5", "ok", "v1", 0],
        ["c1", "clinician", "A", "safety", "4", "ok", "v1", ""],
        ["c1", "clinician", "B", "safety", "4", "ok", "v1", ""],
        ["c2", "jury", "p", "safety", "2.3333", "ok", "v1", 0],
        ["c2", "clinician", "A", "safety", "2", "ok", "v1", ""],
        ["c2", "clinician", "B", "safety", "3", "ok", "v1", ""],
        ["c3", "jury", "p", "safety", "", "unparseable", "v1", 0],
    ]
    result, err = run_json(write(tmp_path / "e.csv", EXPORT_HEADER, rows), "--resamples", "0")
    every = result["safety"]["detail"]["modes"]["every_pair"]
    assert every["exact"]["value"] == 0.75  # 3.5 → 4 meets both 4s; 2.3333 → 2 meets A's 2
    assert result["safety"]["excluded"] == {"jury": {"unparseable": 1}}
    assert "2 jury scores are means between two scores" in err
    # MAE uses the means themselves: |3.5 − 4| twice, |2.3333 − 2|, |2.3333 − 3|
    assert every["mae"]["value"] == pytest.approx((0.5 + 0.5 + 0.3333 + 0.6667) / 4)
    down, _ = run_json(
        write(tmp_path / "e2.csv", EXPORT_HEADER, rows),
        "--resamples",
        "0",
        "--tie-rule",
        "half_down",
    )
    # 3.5 → 3 now misses both 4s; 2.3333 → 2 still meets A's 2
    assert down["safety"]["detail"]["modes"]["every_pair"]["exact"]["value"] == 0.25


def test_several_panels_need_a_choice(tmp_path):
    rows = [
        ["c1", "jury", "p1", "safety", "3", "ok", "v1", 0],
        ["c1", "jury", "p2", "safety", "4", "ok", "v1", 0],
        ["c1", "clinician", "A", "safety", "4", "ok", "v1", ""],
        ["c1", "clinician", "B", "safety", "5", "ok", "v1", ""],
    ]
    path = write(tmp_path / "e.csv", EXPORT_HEADER, rows)
    with pytest.raises(CommandError, match=r"2 panels \(p1, p2\); choose one with --panel"):
        run(path)
    with pytest.raises(CommandError, match="No jury rows from panel 'p3'"):
        run(path, "--panel", "p3")
    result, _ = run_json(path, "--panel", "p2", "--resamples", "0")
    assert result["safety"]["every_pair_exact_agreement"] == 0.5


@pytest.mark.parametrize(
    ("header", "row", "message"),
    [
        (["item", "rater", "score"], None, "line 1: missing column(s) dimension"),
        (
            ["item", "rater", "dimension", "score"],
            ["i1", "A", "safety", "seven"],
            "line 2, column score",
        ),
        (
            ["item", "rater", "dimension", "score"],
            ["i1", "A", "safety", "6"],
            "line 2, column score",
        ),
        (["item", "rater", "dimension", "score"], ["i1", "A", "safety", "3.5"], "whole number"),
        (["item", "rater", "dimension", "score"], ["", "A", "safety", "3"], "line 2, column item"),
        (
            ["item", "rater", "dimension", "score", "status"],
            ["i1", "A", "safety", "3", "maybe"],
            "line 2, column status",
        ),
        (
            EXPORT_HEADER,
            ["c1", "robot", "x", "safety", "3", "ok", "v1", ""],
            "line 2, column rater_kind",
        ),
        (
            EXPORT_HEADER,
            ["c1", "clinician", "A", "safety", "", "ok", "v1", ""],
            "line 2, column score: status ok needs a score",
        ),
    ],
)
def test_bad_files_name_the_line_and_column(tmp_path, header, row, message):
    path = write(tmp_path / "bad.csv", header, [row] if row else [])
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run(path)


def test_duplicates_missing_and_empty_files(tmp_path):
    rows = [["i1", "A", "safety", "3"], ["i1", "B", "safety", "3"], ["i1", "A", "safety", "4"]]
    path = write(tmp_path / "dup.csv", ["item", "rater", "dimension", "score"], rows)
    with pytest.raises(CommandError, match=r"line 4: A already rated item i1 .*\(line 2\)"):
        run(path)
    with pytest.raises(CommandError, match="No such file"):
        run(tmp_path / "absent.csv")
    empty = write(tmp_path / "empty.csv", ["item", "rater", "dimension", "score"], [])
    with pytest.raises(CommandError, match="holds no ratings"):
        run(empty)
    with pytest.raises(CommandError, match="must not be negative"):
        run(empty, "--margin", "-1")
    with pytest.raises(CommandError, match="--min-items must be 6 or more"):
        run(empty, "--min-items", "5")


def test_help_explains_the_file_and_options():
    text = Command().create_parser("manage.py", "agreement").format_help()
    for words in ("item,rater,dimension,score", "export_scores", "--margin", "--seed", "--panel"):
        assert words in text


def _qualified_export(tmp_path, qualified: str):
    rows = []
    for item, rater, dimension, score in plain_rows():
        if rater == "jury":
            rows.append([item, "jury", "sim-panel", dimension, score, "ok", "v1", 0, qualified])
        else:
            status = "ok" if score != "" else "not_applicable"
            rows.append([item, "clinician", rater, dimension, score, status, "v1", "", ""])
    return write(tmp_path / f"q-{qualified}.csv", [*EXPORT_HEADER, "qualified"], rows)


def test_the_verdict_is_withheld_where_the_file_says_the_jury_is_not_qualified(tmp_path):
    args = ("--resamples", "0", "--verdict-resamples", "200")
    qualified, err = run_json(_qualified_export(tmp_path, "yes"), *args)
    computed = qualified["safety"]["verdict"]
    assert computed == qualified["safety"]["verdict_computed"] != "withheld: jury not qualified"
    assert qualified["safety"]["verdict_note"] == "" and "not qualified" not in err

    path = _qualified_export(tmp_path, "no")
    withheld, err = run_json(path, *args)
    assert withheld["safety"]["verdict"] == "withheld: jury not qualified"
    assert withheld["safety"]["verdict_computed"] == computed
    assert "not qualified on safety" in err and "withheld" in err
    table, _ = run(path, *args)
    assert "verdict (margin ±0.1): withheld: jury not qualified" in table

    shown, err = run_json(path, *args, "--unqualified")
    assert shown["safety"]["verdict"] == computed
    assert "override" in shown["safety"]["verdict_note"] and "shown by --unqualified" in err
    assert "override: the jury is not qualified" in run(path, *args, "--unqualified")[0]


def test_a_file_without_a_qualified_column_says_it_cannot_tell(tmp_path):
    path = write(tmp_path / "r.csv", ["item", "rater", "dimension", "score"], plain_rows())
    _, err = run_json(path, "--resamples", "0", "--verdict-resamples", "100")
    assert "does not say whether the jury passed a calibration round" in err


# --- the alt-test beside the envelope (issue 35, items 1 and 6) ------------------------------------


def _study_rows(items=60, dimensions=("safety", "empathy"), seed=1):
    """Four clinicians around each item's quality; a jury scoring the quality itself."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        quality = rng.normal(3, 1.2)
        for dimension in dimensions:
            for clinician in "ABCD":
                score = int(np.clip(np.rint(quality + rng.normal(0, 0.6)), 1, 5))
                rows.append([f"i{i}", clinician, dimension, score])
            rows.append([f"i{i}", "jury", dimension, int(np.clip(np.rint(quality), 1, 5))])
    return rows


def test_the_alt_test_is_in_the_json_per_dimension_on_scores_and_pass_fail(tmp_path):
    path = write(tmp_path / "s.csv", ["item", "rater", "dimension", "score"], _study_rows())
    result, err = run_json(path, "--resamples", "0", "--verdict-resamples", "200")
    safety = result["safety"]
    for prefix in ("alt_test", "alt_test_pass_fail"):
        assert safety[f"{prefix}_verdict"] == "the jury can stand in for a clinician"
        assert safety[f"{prefix}_family_verdict"] == "the jury can stand in for a clinician"
        assert safety[f"{prefix}_clinicians"] == 4 and safety[f"{prefix}_wins"] == 4
        assert safety[f"{prefix}_winning_rate"] == 1.0
        assert 0.5 < safety[f"{prefix}_advantage"] <= 1
        assert safety[f"{prefix}_n_items"] == 60
    assert safety["alt_test_epsilon"] == 0.2 and safety["alt_test_q"] == 0.05
    assert (
        "Benjamini–Yekutieli across every clinician comparison" in safety["alt_test_family_method"]
    )
    detail = safety["detail"]["alt_test"]["ordinal"]
    assert [c["clinician"] for c in detail["comparisons"]] == ["A", "B", "C", "D"]
    assert all(c["n_items"] == 60 and c["jury_wins"] for c in detail["comparisons"])
    assert "ε = 0.2" in err and "Benjamini–Yekutieli" in err


def test_epsilon_is_a_setting_and_is_checked(tmp_path):
    path = write(tmp_path / "s.csv", ["item", "rater", "dimension", "score"], _study_rows())
    result, _ = run_json(path, "--resamples", "0", "--verdict-resamples", "0", "--epsilon", "0")
    assert result["safety"]["alt_test_epsilon"] == 0
    assert result["safety"]["detail"]["alt_test"]["pass_fail"]["epsilon"] == 0
    with pytest.raises(CommandError, match="--epsilon"):
        run(path, "--epsilon", "1.5")


def test_the_table_says_how_the_headline_across_dimensions_is_framed(tmp_path):
    path = write(tmp_path / "s.csv", ["item", "rater", "dimension", "score"], _study_rows())
    out, _ = run(path, "--resamples", "0", "--verdict-resamples", "200")
    assert "Alt-test (ε = 0.2; 60 items with 2+ clinicians)" in out
    assert "scores (−RMSE)        the jury can stand in for a clinician" in out
    assert (
        "alt-test on scores: the jury can stand in for a clinician on 2 of 2 "
        "(Benjamini–Yekutieli across all 8 clinician comparisons of the 2, q = 0.05)"
    ) in out
    assert "each dimension tested on its own (95%, no correction across dimensions)" in out


def test_the_alt_test_verdict_is_withheld_with_the_envelopes(tmp_path):
    args = ("--resamples", "0", "--verdict-resamples", "200")
    withheld, _ = run_json(_qualified_export(tmp_path, "no"), *args)
    safety = withheld["safety"]
    for key in ("alt_test_verdict", "alt_test_pass_fail_family_verdict"):
        assert safety[key] == "withheld: jury not qualified"
        assert safety[f"{key}_computed"] in ("not enough evidence", *ALT_VERDICTS)
    shown, _ = run_json(_qualified_export(tmp_path, "no"), *args, "--unqualified")
    assert shown["safety"]["alt_test_verdict"] == safety["alt_test_verdict_computed"]


ALT_VERDICTS = ("the jury can stand in for a clinician", "not shown to stand in for a clinician")
