"""The simulated agent: reproducible per seed, varied across seeds, correct when unperturbed,
and as (in)consistent as its profile says."""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from patientagentbench.providers.types import CallContext, Message
from patientagentbench.simulated.agent import (
    PROFILES,
    AgentProfile,
    SimulatedAgentProvider,
    get_profile,
)
from tests.patientagentbench.simulated.office_fake import (
    TASKS,
    TOOLS,
    criteria_failures,
    run_task,
    tool_calls,
    tss,
)

UNPERTURBED = AgentProfile(name="unperturbed")
ROOT = Path(__file__).resolve().parents[3]


def name_sequence(provider, task_id: str, seed: int, temperature: float = 1.0) -> tuple[str, ...]:
    return tuple(c.name for c in tool_calls(run_task(provider, task_id, seed, temperature)[1]))


def trace_digest(profile: str, seeds: range) -> str:
    provider = SimulatedAgentProvider(profile)
    parts = [
        [(c.text, [(t.name, t.raw_arguments) for t in c.tool_calls]) for c in completions]
        for task_id in TASKS
        for seed in seeds
        for completions in [run_task(provider, task_id, seed)[0]]
    ]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


# --- Reproducibility ------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", ["retrieve-002", "compute-003", "compose-004", "ambig-003"])
def test_same_seed_gives_identical_completions(task_id):
    provider = SimulatedAgentProvider("sim-jittery")
    first, _ = run_task(provider, task_id, seed=7)
    again, _ = run_task(SimulatedAgentProvider("sim-jittery"), task_id, seed=7)
    assert first == again


@pytest.mark.slow
def test_same_seed_gives_identical_traces_in_another_process():
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from tests.patientagentbench.simulated.test_agent import trace_digest;"
        "print(trace_digest('sim-jittery', range(3)))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", script, str(ROOT)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == trace_digest("sim-jittery", range(3))


def test_different_seeds_differ_for_jittery():
    provider = SimulatedAgentProvider("sim-jittery")
    varied_tasks = [
        task_id
        for task_id in TASKS
        if len({json.dumps(_calls_and_text(provider, task_id, seed)) for seed in range(5)}) > 1
    ]
    assert len(varied_tasks) >= 15


def _calls_and_text(provider, task_id, seed):
    _, messages = run_task(provider, task_id, seed)
    return [(c.name, c.raw_arguments) for c in tool_calls(messages)], messages[-1].content


def test_temperature_zero_follows_the_reference_plan_on_every_seed():
    jittery, reference = SimulatedAgentProvider("sim-jittery"), SimulatedAgentProvider(UNPERTURBED)
    for task_id in TASKS:
        expected = [
            (c.name, c.raw_arguments) for c in tool_calls(run_task(reference, task_id, 0)[1])
        ]
        for seed in range(3):
            _, messages = run_task(jittery, task_id, seed, temperature=0.0)
            assert [(c.name, c.raw_arguments) for c in tool_calls(messages)] == expected


# --- Following the plans --------------------------------------------------------------------


@pytest.mark.parametrize("task_id", list(TASKS))
def test_unperturbed_plan_meets_the_task_criteria(task_id):
    _, messages = run_task(SimulatedAgentProvider(UNPERTURBED), task_id, seed=0)
    assert criteria_failures(task_id, messages) == []


def test_final_answers_use_the_tool_results():
    provider = SimulatedAgentProvider(UNPERTURBED)
    assert "29,997" in run_task(provider, "compute-001", 0)[1][-1].content
    budget = run_task(provider, "retrieve-003", 0)[1][-1].content
    assert "$45,000" in budget and "$20,000" in budget
    assert "417,500" in run_task(provider, "compose-003", 0)[1][-1].content


def test_dependent_steps_read_earlier_results():
    _, messages = run_task(SimulatedAgentProvider(UNPERTURBED), "retrieve-002", 0)
    emails = [c.arguments["to"] for c in tool_calls(messages) if c.name == "send_email"]
    assert emails == ["eve@example.com", "frank@example.com"]


def test_task_without_a_plan_calls_its_expected_tools_then_summarises():
    task = {
        "id": "scenario-x",
        "task": "Check the weather for Chicago",
        "expected_tools": ["get_weather", "search_contacts"],
    }
    provider = SimulatedAgentProvider(UNPERTURBED)
    messages = [Message(role="user", content=task["task"])]
    names = []
    for _ in range(5):
        completion = provider.complete(messages, TOOLS, 1.0, CallContext(seed=1, task=task))
        messages.append(
            Message(role="assistant", content=completion.text, tool_calls=completion.tool_calls)
        )
        if not completion.tool_calls:
            break
        call = completion.tool_calls[0]
        names.append(call.name)
        assert all(isinstance(v, str) and v for v in call.arguments.values())
        messages.append(
            Message(role="tool", content='{"ok": true}', tool_call_id=call.id, status="ok")
        )
    assert names == ["get_weather", "search_contacts"]
    assert completion.text and not completion.tool_calls


def test_task_reference_plan_is_followed():
    task = {
        "id": "scenario-y",
        "task": "x",
        "reference_plan": [{"tool": "get_contact", "arguments": {"name": "bob"}}],
    }
    completion = SimulatedAgentProvider(UNPERTURBED).complete(
        [Message(role="user", content="x")], TOOLS, 1.0, CallContext(seed=0, task=task)
    )
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [
        ("get_contact", {"name": "bob"})
    ]


def test_later_user_message_gets_text_without_tools():
    _, messages = run_task(SimulatedAgentProvider("sim-steady"), "retrieve-001", 0)
    messages.append(Message(role="user", content="Thanks!"))
    completion = SimulatedAgentProvider("sim-steady").complete(
        messages, TOOLS, 1.0, CallContext(seed=0, task=TASKS["retrieve-001"])
    )
    assert completion.text and completion.tool_calls == []


def test_completion_is_labelled_simulated_with_usage_and_pending_ids():
    completions, _ = run_task(SimulatedAgentProvider("sim-steady"), "compose-004", 0)
    calls = [c for completion in completions for c in completion.tool_calls]
    assert all(c.id.startswith("pending-") for c in calls)
    assert all(c.raw == {"simulated": True, "profile": "sim-steady"} for c in completions)
    assert all(c.tokens_in > 450 and c.tokens_out > 40 for c in completions)
    assert completions[-1].tokens_in > completions[0].tokens_in  # the log grows
    assert all(json.loads(c.raw_arguments) == c.arguments for c in calls if not c.malformed)


# --- Profiles -------------------------------------------------------------------------------


def test_jittery_produces_more_distinct_sequences_than_steady():
    def mean_distinct(profile):
        provider = SimulatedAgentProvider(profile)
        return statistics.mean(
            len({name_sequence(provider, task_id, seed) for seed in range(10)}) for task_id in TASKS
        )

    assert mean_distinct("sim-jittery") > mean_distinct("sim-steady") + 0.5


def mean_tss(profile: str, temperature: float = 1.0) -> float:
    """Mean TSS over the 19 tasks, 5 repetitions, averaged over three sets of seeds."""
    provider = SimulatedAgentProvider(profile)
    return statistics.mean(
        tss([list(name_sequence(provider, task_id, seed, temperature)) for seed in seeds])
        for base in (0, 100, 200)
        for seeds in [range(base, base + 5)]
        for task_id in TASKS
    )


def test_profiles_reach_their_consistency_targets():
    assert 0.9 <= mean_tss("sim-steady") <= 0.97
    assert 0.6 <= mean_tss("sim-jittery") <= 0.8


def test_lower_temperature_is_more_consistent():
    assert mean_tss("sim-jittery", temperature=0.5) > mean_tss("sim-jittery") + 0.05


def test_jittery_sends_malformed_calls_and_then_retries_them():
    provider = SimulatedAgentProvider("sim-jittery")
    malformed = []
    for seed in range(10):
        for task_id in TASKS:
            calls = tool_calls(run_task(provider, task_id, seed)[1])
            malformed += [(call, calls[i + 1]) for i, call in enumerate(calls) if call.malformed]
    assert len(malformed) >= 10
    for broken, retry in malformed:
        assert broken.arguments is None
        assert not _is_json_object(broken.raw_arguments)
        assert retry.name == broken.name and not retry.malformed


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except json.JSONDecodeError:
        return False


def test_unknown_profile_lists_the_known_ones():
    with pytest.raises(ValueError, match="sim-jittery.*sim-steady"):
        SimulatedAgentProvider("sim-chaotic")
    assert get_profile("sim-steady") is PROFILES["sim-steady"]
