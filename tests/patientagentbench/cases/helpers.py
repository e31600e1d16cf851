"""Shared bits for the case tests: a fake model and quick case builders."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from patientagentbench.cases.sampler import sample_attributes
from patientagentbench.cases.template_writer import write_case
from patientagentbench.providers.types import Completion, Message
from sandbox.seeding import stable_rng

TODAY = "2026-03-09"


def case_for(subtask: str, seed: int = 1) -> dict[str, Any]:
    """A template case for one subtask, the same every time."""
    attributes = sample_attributes(stable_rng("test-case", subtask, seed), subtask=subtask)
    return write_case(attributes, seed, "c0001", TODAY)


def model_reply(case: dict[str, Any]) -> str:
    """What a well-behaved model would answer for this case: only the parts it writes."""
    return json.dumps({key: case[key] for key in ("profile", "story", "opening", "goal")})


@dataclass
class FakeProvider:
    """A Provider that answers with canned replies, in order, and records what it was sent."""

    replies: list[str]
    model_id: str = "fake-writer-1"
    calls: list[list[Message]] = field(default_factory=list)

    def complete(self, messages, tools, temperature, context) -> Completion:
        self.calls.append(list(messages))
        reply = self.replies[min(len(self.calls) - 1, len(self.replies) - 1)]
        return Completion(text=reply, tool_calls=[])
