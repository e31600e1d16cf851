"""Play a clinic case: a scripted patient, the simulated agent and a real ClinicWorld."""

from __future__ import annotations

from dataclasses import dataclass, field

from patientagentbench.analysis.correctness import Verdict
from patientagentbench.analysis.outcomes import evaluate_outcome
from patientagentbench.conversation import ConversationResult, UserSide, run_conversation
from patientagentbench.providers.types import CallContext, Message
from patientagentbench.simulated.agent import AgentProfile, SimulatedAgentProvider
from sandbox.clinic import ClinicWorld

STEADY_UNPERTURBED = AgentProfile(name="unperturbed")


@dataclass
class ScriptedPatient:
    """Says its opening, then its replies in order, then ends the conversation."""

    opening_text: str
    replies: list[str] = field(default_factory=list)

    def opening(self) -> str:
        return self.opening_text

    def reply(self, messages: list[Message]) -> str | None:
        said = sum(1 for m in messages if m.role == "user") - 1
        return self.replies[said] if said < len(self.replies) else None


@dataclass
class Played:
    world: ClinicWorld
    result: ConversationResult
    verdict: Verdict

    @property
    def calls(self) -> list[tuple[str, dict | None]]:
        return [(c["name"], c["arguments"]) for c in self.result.calls]

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.calls]

    @property
    def agent_texts(self) -> list[str]:
        return agent_texts(self.result.messages)

    def failed_checks(self) -> list[dict]:
        return [c for c in self.verdict.checks if not c["passed"]]


def agent_texts(messages: list[Message]) -> list[str]:
    return [m.content for m in messages if m.role == "assistant" and m.content.strip()]


def clinic_task(case: dict) -> dict:
    attributes = case["attributes"]
    return {
        "id": case["case_id"],
        "category": attributes["category"],
        "subtask": attributes["subtask"],
        "world": "clinic",
    }


def play(
    case: dict,
    patient: UserSide,
    profile: str | AgentProfile = STEADY_UNPERTURBED,
    seed: int = 0,
    temperature: float = 1.0,
    max_turns: int | None = None,
) -> Played:
    """One conversation, judged with the whole transcript and its end reason. A scripted
    patient gets one turn per reply; any other (the offline patient) `max_turns`."""
    world = ClinicWorld.from_case(case)
    provider = SimulatedAgentProvider(profile)
    task = clinic_task(case)
    tools = world.tool_schemas()
    result = run_conversation(
        complete=lambda messages: provider.complete(
            messages, tools, temperature, CallContext(seed=seed, task=task)
        ),
        world=world,
        user=patient,
        system_prompt="You are a patient-facing clinic assistant.",
        max_iterations=12,
        max_turns=max_turns or len(patient.replies) + 1,
    )
    calls = [(c["name"], c["arguments"]) for c in result.calls]
    verdict = evaluate_outcome(
        case,
        calls,
        world.final_state(),
        world.side_effects,
        agent_texts(result.messages),
        end_reason=result.end_reason,
        messages=[m.to_dict() for m in result.messages],
    )
    return Played(world, result, verdict)
