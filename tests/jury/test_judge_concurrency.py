"""Per-judge concurrency (issue 21 Must 4): a judge's own limit holds inside its model's, so a
judge sharing a slow local server with the agent under test can be held to one call at once."""

import threading
import time

import pytest
from django.db import connections

from jury.models import JuryRun
from jury.scoring import JUDGE_JOBS, launch_jury
from patientagentbench.providers.types import CallContext, Completion
from patientagentbench.runs import jobs
from tests.fakes.llm_server import FakeLLMServer
from tests.jury.conftest import simulated_model
from tests.jury.test_scoring import _openai_judge, panel_of, scenario_run

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["scenario_run"]


class SlowProvider:
    """Counts how many calls are inside it at once."""

    def __init__(self):
        self.lock, self.inside, self.most = threading.Lock(), 0, 0

    def complete(self, messages, tools, temperature, context):
        with self.lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
        time.sleep(0.3)
        with self.lock:
            self.inside -= 1
        return Completion(text="{}", tool_calls=[], tokens_in=1, tokens_out=1)


def most_at_once(judge, jury_run: JuryRun, callers: int = 3) -> int:
    slow = SlowProvider()
    guarded = jobs.GuardedProvider(
        judge.model, JUDGE_JOBS, jury_run.pk, provider=slow, caller_slot=judge.concurrency_slot
    )

    def call(seed: int) -> None:
        try:
            guarded.complete([], [], 0.0, CallContext(seed=seed))
        finally:  # the thread's database connection, or the test database cannot be dropped
            connections.close_all()

    threads = [threading.Thread(target=call, args=(i,)) for i in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return slow.most


def test_a_judges_own_limit_holds_inside_its_models(scenario_run, settings, tmp_path):
    settings.VAR_DIR = tmp_path  # the lock-file slots of this test alone
    with FakeLLMServer() as server:
        model = _openai_judge(server)  # the model takes 2 calls at once
        panel = panel_of(model)
        judge = panel.judges.get()
        jury_run = launch_jury(panel=panel, run=scenario_run, enqueue=False)
        assert most_at_once(judge, jury_run) == 2
        judge.max_concurrency = 1
        judge.save()
        assert most_at_once(judge, jury_run) == 1


def test_a_simulated_judges_limit_is_its_own_too(scenario_run, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    panel = panel_of(simulated_model("sim-judge-a"))
    judge = panel.judges.get()
    jury_run = launch_jury(panel=panel, run=scenario_run, enqueue=False)
    assert most_at_once(judge, jury_run) == 3  # simulated models have no endpoint limit
    judge.max_concurrency = 2
    judge.save()
    assert most_at_once(judge, jury_run) == 2
