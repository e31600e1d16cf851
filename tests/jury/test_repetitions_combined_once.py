"""A conversation's panel verdict over the judge's repetitions is combined once
(`aggregate.combine_repetitions`), so the leaderboard, version comparisons and the agreement
dashboards show the same number for the same verdicts."""

import random
import statistics

import pytest

from annotation.dashboards.loading import jury_scores
from jury import verdicts
from jury.verdicts import Source
from ratings.rubric import cached_rubric
from tests.jury.conftest import verdict

pytestmark = pytest.mark.django_db
SCORED = [d.key for d in cached_rubric().scored][:3]
STATUSES = ["ok"] * 6 + ["unparseable", "not_applicable", "truncated", "error"]


@pytest.fixture
def repeated_verdicts(two_model_run, sim_panel):
    """Two judges × three repetitions with scores and failures drawn at random, and one
    conversation where no repetition of any judge has a score."""
    draw = random.Random(7)
    judges = list(sim_panel.judges.order_by("name"))
    traces = list(two_model_run.traces.order_by("pk"))
    for trace in traces[:-1]:
        for dimension in SCORED:
            for repetition in range(3):
                for judge in judges:
                    status = draw.choice(STATUSES)
                    verdict(
                        sim_panel, judge, trace, dimension, status, draw.randint(1, 5), repetition
                    )
    for judge in judges:
        verdict(sim_panel, judge, traces[-1], SCORED[0], "unparseable")
        verdict(sim_panel, judge, traces[-1], SCORED[0], "error", repetition=1)
    return two_model_run, sim_panel


def test_every_page_reads_the_same_panel_verdict_for_the_same_repetitions(repeated_verdicts):
    run, panel = repeated_verdicts
    records = {
        (r["conversation"], r["dimension"]): r for r in verdicts.panel_records(Source(panel))
    }
    dashboard = jury_scores(panel, list(run.traces.values_list("pk", flat=True))).scores
    assert set(records) == set(dashboard)
    for key, record in records.items():
        rounded, status, mean = dashboard[key]
        assert (status, mean) == (record["status"], record["score"])
    assert records[(run.traces.order_by("pk").last().pk, SCORED[0])]["status"] == "error"

    board = verdicts.run_leaderboard(panel, run)
    for row in board.rows:
        model_traces = set(run.traces.filter(model_name=row.model).values_list("pk", flat=True))
        for dimension in SCORED:
            means = [
                r["score"]
                for (trace, d), r in records.items()
                if d == dimension and trace in model_traces and r["score"] is not None
            ]
            assert row.dimensions[dimension].mean.mean == pytest.approx(statistics.fmean(means))
