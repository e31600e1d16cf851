"""Print sample conversations with the offline patient, to read them as a clinician would.

    .venv/bin/python -m tests.patientagentbench.simulated.patient.show_conversations [subtask ...] [--seeds N]

Runs the scripted agent flows through the real conversation loop (tool calls included) and
prints what the patient saw and said. Not a test: wording is judged by reading it.
"""

from __future__ import annotations

import argparse

from patientagentbench.conversation import run_conversation
from patientagentbench.providers.types import Completion, ToolCall
from patientagentbench.simulated.patient import patient_for, phrases, visible_to_patient
from tests.patientagentbench.simulated.patient.cases import make_case
from tests.patientagentbench.simulated.patient.scripted import FLOWS, agent_step


class EchoWorld:
    def call(self, name, arguments):
        return _Ok()


class _Ok:
    status = "ok"

    def as_text(self) -> str:
        return '{"status": "ok"}'


def scripted_agent(flow):
    """Each agent turn: its tool calls first (one completion each), then its text."""
    steps = list(flow)
    pending: list[Completion] = []

    def complete(messages):
        if not pending:
            if not steps:
                return Completion("Take care!", [])
            said = [m.content for m in messages if m.role == "user"]
            text, tools = agent_step(steps.pop(0), said)
            pending.extend(
                Completion("", [ToolCall.parse(id="pending", name=name, raw_arguments="{}")])
                for name in tools
            )
            pending.append(Completion(text, []))
        return pending.pop(0)

    return complete


def show(subtask: str, personality: str, seed: int) -> str:
    case = make_case(subtask, personality)
    result = run_conversation(
        complete=scripted_agent(FLOWS[subtask]),
        world=EchoWorld(),
        user=patient_for(case, seed),
        system_prompt="You are a clinic's patient assistant.",
        max_turns=12,
    )
    lines = [f"--- {subtask} / {personality} / seed {seed} (ended: {result.end_reason})"]
    for role, text in visible_to_patient(result.messages):
        lines.append(f"{role.upper():8} {text}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("subtasks", nargs="*", default=sorted(FLOWS))
    parser.add_argument("--seeds", type=int, default=1)
    args = parser.parse_args()
    for subtask in args.subtasks:
        for personality in phrases.VOICES:
            for seed in range(args.seeds):
                print(show(subtask, personality, seed), end="\n\n")


if __name__ == "__main__":
    main()
