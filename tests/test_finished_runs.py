"""tests/finished_runs.py's copies of a finished run are what executing the run writes: the
same run, traces and cell metrics field by field (ids, links and timestamps aside), and no
table written by one and not the other."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import transaction

from patientagentbench.models import CellMetrics
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set
from tests.finished_runs import simulated_run, values

pytestmark = pytest.mark.django_db
OPTIONS = {"max_turns": 6, "repetitions": 2, "temperatures": [0.0, 1.0]}
# Differ between any two runs: the rows' ids and links, the job key (it names the run), when
# things happened and how long they took. Whether a timestamp is set is still compared.
APART = {"id", "run_id", "task_id", "model_id", "suite_id", "key", "latency_ms"}


def counts() -> dict[str, int]:
    return {model._meta.label: model.objects.count() for model in apps.get_models()}


def comparable(row) -> dict:
    found = values(row, links=True)
    kept = {name: value for name, value in found.items() if name not in APART}
    return {
        name: (value is not None if name.endswith("_at") else value) for name, value in kept.items()
    }


def rows_written(sim_models, make) -> dict:
    """What `make(suite)` writes on a fresh copy of one case set, rolled back afterwards."""
    with transaction.atomic():
        suite = create_case_set("finished-run-check", 3, seed=11)
        before = counts()
        run = make(suite)
        after = counts()
        written = {
            "run": comparable(run),
            "traces": [
                comparable(t)
                for t in run.traces.order_by(
                    "task__task_id", "model_name", "temperature", "repetition"
                )
            ],
            "cells": [comparable(c) for c in CellMetrics.objects.filter(run=run).order_by("pk")],
            "counts": {
                label: after[label] - before[label]
                for label in after
                if after[label] != before[label]
            },
        }
        transaction.set_rollback(True)
    return written


def test_a_copied_run_is_what_executing_it_writes(sim_models, monkeypatch):
    def executed(suite):
        run = launch_run(suite=suite, models=sim_models, enqueue=False, **OPTIONS)
        execute_inline(run)
        run.refresh_from_db()
        return run

    real = rows_written(sim_models, executed)
    recorded = rows_written(
        sim_models, lambda s: simulated_run(suite=s, models=sim_models, **OPTIONS)
    )
    monkeypatch.setattr("tests.finished_runs.execute_inline", lambda run: pytest.fail("ran"))
    copied = rows_written(
        sim_models, lambda s: simulated_run(suite=s, models=sim_models, **OPTIONS)
    )

    assert real["counts"] == {
        "patientagentbench.Run": 1,
        "patientagentbench.Trace": 3 * 2 * 2 * 2,
        "patientagentbench.CellMetrics": len(real["cells"]),
    }
    assert real["cells"] and all(t["messages"] for t in real["traces"])
    for part in ("run", "traces", "cells", "counts"):
        assert recorded[part] == real[part], part
        assert copied[part] == real[part], part
