"""What the web tests share."""

import pytest

from patientagentbench.suites.case_sets import create_case_set
from tests.finished_runs import simulated_run


@pytest.fixture
def scenario_trace(db, sim_models):
    """One finished patient conversation (the first of three cases, one simulated agent)."""
    suite = create_case_set("page-cases", 3, seed=4)
    return (
        simulated_run(suite=suite, models=sim_models[:1], max_turns=6).traces.order_by("pk").first()
    )
