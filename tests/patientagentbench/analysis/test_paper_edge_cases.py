"""The paper's own code on 37 edge-case cells (fixtures/golden/paper-edge-cases.json), through
`import_traces`, `consistency_report --format json` and `analysis_report`: every per-cell value
and every study figure to 1e-9, counts exactly."""

import json
import math
from io import StringIO

import pytest
from django.core.management import call_command

from patientagentbench.suites.install import install_all_suites
from tests.factories import rows_for_scope
from tests.patientagentbench.analysis.paths import GOLDEN

pytestmark = pytest.mark.django_db

EDGE_CASES = json.loads((GOLDEN / "paper-edge-cases.json").read_text())
# consistency_report's key -> the golden file's key.
CELL_KEYS = {
    "n_runs": "n_runs",
    "n_valid": "n_valid",
    "tss": "tss",
    "ac": "ac",
    "unique_sequences": "unique_sequences",
    "divergence_point": "divergence_point",
    "output_exact_match": "output_exact_match_rate",
    "output_unique_responses": "output_unique_responses",
    "calls_mean": "calls_mean",
    "calls_sd": "calls_sd",
    "calls_cv": "calls_cv",
    "calls_min": "calls_min",
    "calls_max": "calls_max",
    "correct_rate": "correct_rate",
    "tools_correct_rate": "tools_correct_rate",
    "args_correct_rate": "args_correct_rate",
    "n_scored": "n_scored",
}
# Study figures that are text about the paper's scripts, not numbers they compute.
NOT_COMPUTED = {"notes", "compute_reliability_py", "paper", "generated_by"}


def run_cli(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module")
def imported(django_db_setup, django_db_blocker, tmp_path_factory):
    """The 37 cells imported once for the module (about 1.2 s an import); its tests read them
    and the reports made from them."""
    with rows_for_scope(django_db_blocker):
        install_all_suites()
        path = tmp_path_factory.mktemp("edge-cases") / "paper-edge-cases.json"
        path.write_text(json.dumps(EDGE_CASES["cells"]))
        printed = run_cli("import_traces", str(path))
        assert "suite office-19" in printed  # the paper's tasks, so its criteria apply
        yield path


def assert_same(ours, theirs, where: str):
    """Numbers to 1e-9 (ints exactly), None for None, recursively through dicts and lists."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), where
        for key, value in theirs.items():
            assert key in ours, f"{where}.{key} missing"
            assert_same(ours[key], value, f"{where}.{key}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), where
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_same(a, b, f"{where}[{index}]")
    elif theirs is None or (isinstance(theirs, float) and math.isnan(theirs)):
        assert ours is None, f"{where}: {ours!r}, the paper's code gives {theirs!r}"
    elif isinstance(theirs, bool | str):
        assert ours == theirs, where
    elif isinstance(theirs, int):
        assert ours == theirs and float(ours).is_integer(), f"{where}: {ours!r} != {theirs!r}"
    else:
        assert ours == pytest.approx(theirs, abs=1e-9, rel=0), where


def test_every_cell_matches_the_papers_code(imported):
    rows = json.loads(run_cli("consistency_report", "--format", "json"))
    report = {(row["model"], row["task_id"]): row for row in rows}
    assert len(report) == len(EDGE_CASES["cells"]) == 37
    for cell in EDGE_CASES["cells"]:
        row, expected = report[(cell["model"], cell["task_id"])], cell["expected"]
        for ours, theirs in CELL_KEYS.items():
            assert_same(row[ours], expected[theirs], f"{cell['case']}.{ours}")
        insufficient = expected["insufficient_valid_traces"]
        assert (row["excluded_reason"] is not None) == insufficient, cell["case"]
        if insufficient:
            assert row["excluded_reason"].startswith("insufficient valid traces")


def test_each_runs_verdict_follows_the_papers_pass_rule(imported):
    from patientagentbench.models import Trace

    for cell in EDGE_CASES["cells"]:
        traces = Trace.objects.filter(
            task__task_id=cell["task_id"], model_name=cell["model"]
        ).order_by("repetition")
        expected = cell["expected"]
        for trace, correct, tools, args in zip(
            traces,
            expected["correct_runs"],
            expected["tools_correct_runs"],
            expected["args_correct_runs"],
            strict=True,
        ):
            where = f"{cell['case']} run {trace.repetition}"
            if correct is None:  # the paper never scores an errored run
                assert trace.error, where
                continue
            assert trace.correct is correct, where
            assert trace.correctness["tools_correct"] is tools, where
            assert trace.correctness["args_correct"] == pytest.approx(args, abs=1e-12), where


def test_study_figures_match_the_papers_scripts(imported, tmp_path):
    out = tmp_path / "analysis"
    printed = run_cli("analysis_report", "--out", str(out))
    assert "4 left out" in printed
    statistics = json.loads((out / "statistics.json").read_text())
    study = {k: v for k, v in EDGE_CASES["study"].items() if k not in NOT_COMPUTED}
    assert_same(statistics["paper"], study, "study")
    dropped = {(c["model"], c["task_id"]) for c in statistics["dropped_cells"]}
    insufficient = {
        (c["model"], c["task_id"])
        for c in EDGE_CASES["cells"]
        if c["expected"]["insufficient_valid_traces"]
    }
    assert dropped == insufficient
    assert statistics["n_cells"] == study["n_cells_analyzed"]


def test_headline_shows_the_papers_figures_with_the_projects_variants_labelled(imported, tmp_path):
    run_cli("analysis_report", "--out", str(tmp_path))
    statistics = json.loads((tmp_path / "statistics.json").read_text())
    headline = {row["figure"]: row for row in statistics["headline"]}
    study = EDGE_CASES["study"]
    divergence = headline["first_divergence_in_steps_1_2_pct"]
    assert divergence["value"] == pytest.approx(100 * study["divergence"]["share_steps_1_2"])
    assert "pairs" in divergence["variant"]["label"]
    assert divergence["variant"]["value"] != pytest.approx(divergence["value"])
    split = headline["correctness_high_tss_pct"]
    assert split["value"] == pytest.approx(100 * study["median_split"]["high_tss_correctness"])
    assert headline["split_half_tss_r"]["value"] == pytest.approx(
        study["split_half"]["tss_pearson_r"]
    )
    assert statistics["settings"]["malformed"] == "error"
    assert "paper" in statistics["settings"]["pass_rules"]
