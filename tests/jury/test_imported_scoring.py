"""The jury scores an imported conversation without a case (issue 33): its judges read the task
the agent was given, as clinicians do, and nothing of the model or the import's ids."""

import json

import pytest

from jury.models import JuryRun, Verdict
from jury.pure.prompts import SCENARIO_NOTE, TASK_NOTE
from jury.scoring import execute_inline, launch_jury
from patientagentbench.interchange.importer import import_bytes
from patientagentbench.models import ModelConfig
from ratings.rubric import cached_rubric
from tests.fakes.llm_server import OPENAI, FakeLLMServer
from tests.jury.test_scoring import panel_of
from tests.patientagentbench.interchange.test_import_validation import jsonl

pytestmark = pytest.mark.django_db
MODEL = "zephyr-quokka-99b"
PROMPT = "Find the discharge letter of Ana Silva and send it to her pharmacy."


def test_a_judge_scores_an_imported_conversation_reading_its_task(settings):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    raw = jsonl(model=MODEL, task_id="quokka-task-4411", prompt=PROMPT, attributes={})
    run = import_bytes(raw, "imported.jsonl").run
    with FakeLLMServer() as server:
        judge = ModelConfig.objects.create(
            name="gpt-judge",
            provider="openai_compatible",
            model_id="judge-model",
            base_url=server.openai_base_url,
        )
        panel = panel_of(judge)
        jury_run = launch_jury(panel=panel, run=run, enqueue=False)
        execute_inline(jury_run)
        bodies = server.bodies(OPENAI)
    jury_run.refresh_from_db()
    assert jury_run.status == JuryRun.Status.FINISHED
    scored = [d.key for d in cached_rubric().scored]
    verdicts = Verdict.objects.filter(panel=panel, trace__run=run)
    assert sorted(verdicts.values_list("dimension", flat=True)) == sorted(scored)
    assert all(v.status == Verdict.Status.OK and v.score is not None for v in verdicts)
    user = next(m["content"] for m in bodies[0]["messages"] if m["role"] == "user")
    assert f"## Scenario\n{TASK_NOTE}\n{PROMPT}" in user
    assert SCENARIO_NOTE not in user and "(no scenario given)" not in user
    prompt = json.dumps([b["messages"] for b in bodies])
    for token in (MODEL, "quokka-task-4411", "call_1"):
        assert token not in prompt, f"{token!r} reached a judge"
