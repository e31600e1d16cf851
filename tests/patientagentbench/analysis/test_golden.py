"""The paper's own metric values for 40 cells (shared/golden), reproduced to 1e-9."""

import json

import pytest

from patientagentbench.analysis.metrics import cell_metrics
from patientagentbench.interchange.release import parse_release_cells
from tests.patientagentbench.analysis.paths import GOLDEN as GOLDEN_DIR

GOLDEN = GOLDEN_DIR / "consistency-cases.json"
CELLS = parse_release_cells(json.loads(GOLDEN.read_text()))
# Our key -> the paper's key.
COMPARED = {
    "n_valid": "n_valid",
    "tss": "tss",
    "ac": "ac",
    "unique_sequences": "unique_sequences",
    "divergence_point": "divergence_point",
    "output_exact_match": "output_exact_match_rate",
}


def test_golden_file_has_forty_cells_with_and_without_expectations():
    assert len(CELLS) == 40
    assert any(cell.expected is None for cell in CELLS)
    assert any(t.error for cell in CELLS for t in cell.traces)


@pytest.mark.parametrize("cell", CELLS, ids=lambda cell: f"{cell.task_id}-{cell.model}")
def test_cell_reproduces_the_paper(cell):
    metrics = cell_metrics(cell.trace_data())
    assert metrics["n_valid"] + metrics["n_error"] == len(cell.traces)
    if cell.expected is None:
        assert metrics["n_valid"] < 2
        for key in ("tss", "ac", "divergence_point", "output_exact_match"):
            assert metrics[key] is None, key
        return
    for ours, theirs in COMPARED.items():
        expected = cell.expected[theirs]
        if expected is None:
            assert metrics[ours] is None, ours
        else:
            assert metrics[ours] == pytest.approx(expected, abs=1e-9, rel=0), ours
