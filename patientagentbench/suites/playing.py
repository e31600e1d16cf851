"""Play a case offline (simulated agent, offline patient, no database) and check a whole set:
what `validate_case_set` uses to show that every case can be completed."""

from __future__ import annotations

from patientagentbench.analysis.outcomes import evaluate_outcome
from patientagentbench.cases.generate import summarize
from patientagentbench.cases.validation import validate_case
from patientagentbench.conversation import agent_calls, run_conversation
from patientagentbench.models import Suite
from patientagentbench.prompts import system_prompt_for
from patientagentbench.providers.types import CallContext
from patientagentbench.simulated.agent import SimulatedAgentProvider
from patientagentbench.simulated.patient import patient_for
from sandbox.clinic import ClinicWorld
from sandbox.seeding import trace_seed


def play_case(case: dict, agent_profile: str = "sim-steady", repetition: int = 0):
    world = ClinicWorld.from_case(case)
    tools = world.tool_schemas()
    agent = SimulatedAgentProvider(agent_profile)
    task = {
        "id": case["case_id"],
        "category": case["attributes"]["category"],
        "subtask": case["attributes"]["subtask"],
        "world": "clinic",
    }
    context = CallContext(
        seed=trace_seed(case["case_id"], agent_profile, 1.0, repetition), task=task
    )
    result = run_conversation(
        complete=lambda messages: agent.complete(messages, tools, 1.0, context),
        world=world,
        user=patient_for(case, trace_seed(case["case_id"], "patient", None, repetition)),
        system_prompt=system_prompt_for(case),
        max_turns=10,
    )
    calls = agent_calls(result.messages)
    verdict = evaluate_outcome(
        case,
        [(c["name"], c["arguments"]) for c in calls],
        world.final_state(),
        world.side_effects,
        [m.content for m in result.messages if m.role == "assistant" and m.content],
        end_reason=result.end_reason,
        messages=[m.to_dict() for m in result.messages],
    )
    return result, verdict


def check_case_set(suite: Suite, agent_profile: str = "sim-steady") -> dict:
    """Summary, malformed cases, and how many cases a simulated agent completes."""
    cases = [task.case for task in suite.tasks.order_by("task_id")]
    problems = {
        case.get("case_id", f"#{i}"): errors
        for i, case in enumerate(cases)
        if (errors := validate_case(case))
    }
    report = summarize(cases)
    if problems:
        return {**report, "malformed": problems}
    report["outcome_checks_passing"] = sum(play_case(c, agent_profile)[1].passed for c in cases)
    return report
