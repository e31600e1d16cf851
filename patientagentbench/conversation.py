"""The conversation loop: a user side and an agent side taking turns.

The user side is a task's fixed request today and a simulated patient later; the loop only
needs `opening()` and `reply(messages)`. The agent side is any `complete(messages)` callable,
so retries, rate limits and spend checks wrap it without the loop knowing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from patientagentbench.providers.types import Completion, Message, ToolCall


class EndReason(StrEnum):
    """Why a conversation stopped; stored on the trace as its plain string value."""

    USER_ENDED = "user_ended"  # a task's user has nothing more to say
    PATIENT_ENDED = "patient_ended"  # a scenario's patient sent its end signal
    MAX_TURNS = "max_turns"
    MAX_ITERATIONS = "max_iterations"  # the agent kept calling tools within one turn
    ERROR = "error"
    CANCELLED = "cancelled"
    SPEND_LIMIT = "spend_limit"
    WALL_CLOCK = "wall_clock"  # the trace ran past its wall-clock limit (TRACE_WALL_CLOCK_S)
    WORKER_LOST = "worker_lost"  # the workers running it kept dying; it used all its attempts
    REPEATED_CALL = (
        "repeated_call"  # the agent made the same call REPEATED_CALL_LIMIT times running
    )
    PATIENT_BROKEN = "patient_broken"  # the LLM patient echoed the agent or repeated itself
    COMPLETED = "completed"  # imported from the paper's release, which records no reason


# Each reason in words for the run page, and whether it is a limit a researcher tunes.
END_REASON_LABELS: dict[str, tuple[str, bool]] = {
    EndReason.PATIENT_ENDED: ("the patient ended it", False),
    EndReason.USER_ENDED: ("answered", False),
    EndReason.COMPLETED: ("completed", False),
    EndReason.MAX_TURNS: ("hit the turn limit", True),
    EndReason.MAX_ITERATIONS: ("hit the tool-call limit in one turn", True),
    EndReason.REPEATED_CALL: ("the agent repeated one call three times", True),
    EndReason.WALL_CLOCK: ("hit the wall-clock limit", True),
    EndReason.SPEND_LIMIT: ("stopped at the spend limit", True),
    EndReason.PATIENT_BROKEN: ("the LLM patient broke (not scored)", True),
    EndReason.WORKER_LOST: ("lost its workers", True),
    EndReason.ERROR: ("error", True),
    EndReason.CANCELLED: ("cancelled", False),
}


def describe_end(reason: str) -> tuple[str, bool]:
    """(label, hit a limit) of a stored end reason; one this code no longer knows (an old
    or imported trace's) is shown as written: "agent_gave_up" is the importer's word, and
    turning it into "agent gave up" would make it read as ours."""
    return END_REASON_LABELS.get(reason, (reason, False))


class UserSide(Protocol):
    def opening(self) -> str: ...

    def reply(self, messages: list[Message]) -> str | None:
        """The user's next message, or None to end the conversation."""


class World(Protocol):
    def call(self, name: str, arguments: dict | None) -> Any: ...


@dataclass
class TaskUser:
    """The seed paper's setting: one fixed request, no follow-up."""

    request: str

    def opening(self) -> str:
        return self.request

    def reply(self, messages: list[Message]) -> str | None:
        return None


@dataclass
class ConversationResult:
    messages: list[Message]
    end_reason: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: float = 0.0
    error: str = ""
    final_response: str = ""
    calls: list[dict] = field(default_factory=list)


class EndConversation(Exception):
    """Raised by a `complete` wrapper (cancelled run, spend limit) or the user side (a broken
    LLM patient) to stop early. With an `error` the trace is an errored one, left out of the
    metrics: a broken patient says nothing about the agent."""

    def __init__(self, reason: EndReason, error: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.error = error


def run_conversation(
    *,
    complete: Callable[[list[Message]], Completion],
    world: World,
    user: UserSide,
    system_prompt: str,
    max_iterations: int = 10,
    max_turns: int = 1,
    deadline: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> ConversationResult:
    """Hold one conversation. `deadline` (on `clock`'s scale) is checked before every model
    call and every user reply: past it, the conversation ends with EndReason.WALL_CLOCK."""
    messages = [Message(role="system", content=system_prompt)]
    messages.append(Message(role="user", content=user.opening()))
    result = ConversationResult(messages=messages, end_reason="")
    numbering = _CallNumbering()
    out_of_time = _Deadline(deadline, clock)
    for _turn in range(max_turns):
        if not _agent_turn(
            complete, world, messages, result, numbering, max_iterations, out_of_time
        ):
            break
        if out_of_time(result):
            break
        try:
            reply = user.reply(messages)
        except EndConversation as stop:  # a cancelled run, or a broken LLM patient
            result.end_reason, result.error = stop.reason, stop.error or result.error
            break
        if reply is None:
            result.end_reason = result.end_reason or EndReason.USER_ENDED
            break
        messages.append(Message(role="user", content=reply))
    else:
        result.end_reason = result.end_reason or EndReason.MAX_TURNS
    result.final_response = _last_agent_text(messages)
    result.calls = agent_calls(messages)
    return result


class _Deadline:
    """Whether the conversation ran out of wall-clock time; if so, it says why it ended."""

    def __init__(self, deadline: float | None, clock: Callable[[], float]):
        self.deadline, self.clock = deadline, clock

    def __call__(self, result: ConversationResult) -> bool:
        if self.deadline is None or self.clock() < self.deadline:
            return False
        result.end_reason = EndReason.WALL_CLOCK
        return True


# A real 0.5B agent sent the identical failing call ten times in a row until max_iterations;
# three identical calls running is a loop, not a plan.
REPEATED_CALL_LIMIT = 3


def _agent_turn(
    complete, world, messages, result, numbering, max_iterations, out_of_time=None
) -> bool:
    """Let the agent act until it answers without tools. False when the conversation ends."""
    recent: list[tuple[str, str]] = []
    for _ in range(max_iterations):
        if out_of_time is not None and out_of_time(result):
            return False
        started = time.perf_counter()
        try:
            completion = complete(messages)
        except EndConversation as stop:
            result.end_reason = stop.reason
            return False
        except Exception as exc:  # noqa: BLE001 - every failure must end as a kept error
            result.end_reason = EndReason.ERROR
            result.error = f"{type(exc).__name__}: {exc}"
            return False
        finally:
            result.latency_ms += (time.perf_counter() - started) * 1000
        result.tokens_in += completion.tokens_in
        result.tokens_out += completion.tokens_out
        calls = [numbering.renumber(call) for call in completion.tool_calls]
        messages.append(
            Message(
                role="assistant",
                content=completion.text or "",
                tool_calls=calls,
                thinking=completion.thinking,
                raw=completion.raw,
            )
        )
        if not calls:
            return True
        for call in calls:
            messages.append(_execute(world, call))
        recent = [*recent, *(_call_identity(call) for call in calls)][-REPEATED_CALL_LIMIT:]
        if len(recent) == REPEATED_CALL_LIMIT and len(set(recent)) == 1:
            result.end_reason = EndReason.REPEATED_CALL
            return False
    result.end_reason = EndReason.MAX_ITERATIONS
    return False


def _call_identity(call: ToolCall) -> tuple[str, str]:
    arguments = json.dumps(call.arguments, sort_keys=True) if not call.malformed else None
    return call.name, arguments if arguments is not None else call.raw_arguments


def _execute(world: World, call: ToolCall) -> Message:
    if call.malformed:
        # Never repair a model's broken JSON: the agent hears exactly what went wrong.
        status, content = (
            "error",
            _json_error(
                f"arguments for {call.name} are not a valid JSON object: {call.raw_arguments[:200]}"
            ),
        )
    else:
        outcome = world.call(call.name, call.arguments)
        status, content = outcome.status, outcome.as_text()
    return Message(
        role="tool", content=content, tool_call_id=call.id, tool_name=call.name, status=status
    )


def _json_error(text: str) -> str:
    return json.dumps({"error": text})


class _CallNumbering:
    """Neutral ids t1, t2, … for display; provider ids stay in provider_id and raw."""

    def __init__(self) -> None:
        self.count = 0

    def renumber(self, call: ToolCall) -> ToolCall:
        self.count += 1
        call.id = f"t{self.count}"
        return call


def _last_agent_text(messages: list[Message]) -> str:
    for message in reversed(messages):
        if message.role == "assistant" and message.content.strip():
            return message.content
    return ""


def agent_calls(messages: list[Message]) -> list[dict]:
    """The agent's tool calls in order with their results: the input of every metric."""
    results = {m.tool_call_id: m for m in messages if m.role == "tool"}
    calls = []
    for message in messages:
        for call in message.tool_calls if message.role == "assistant" else ():
            answer = results.get(call.id)
            calls.append(
                {
                    "id": call.id,
                    "name": call.name,
                    "arguments": call.arguments,
                    "raw_arguments": call.raw_arguments,
                    "malformed": call.malformed,
                    "status": answer.status if answer else "",
                    "result": answer.content if answer else "",
                }
            )
    return calls
