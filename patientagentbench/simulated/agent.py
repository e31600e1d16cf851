"""The simulated agent: an offline, seeded Provider that behaves like a tool-calling model.

It follows the task's reference plan (or a generic workflow) through the real sandbox and
departs from it the way real agents do, at rates set by a named profile; sim-careless also
makes the mistakes of careless agents (wrong targets, claims without calls, missed
escalations...: careless.py) on top of what this plain agent drafts. Everything it does
is a function of (profile, seed, task id, temperature) and the messages so far, so a
repetition replayed gives the same trace and different repetitions differ.

The agent keeps no state between calls: its place in the plan is the number of assistant
turns since the last user message, which is what makes a replay identical.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from patientagentbench.providers.types import CallContext, Completion, Message, ToolCall
from sandbox.seeding import stable_rng

from .careless import CarelessRates, careless_completion
from .clinic import clinic_turn_plan
from .office_plans import OFFICE_PLANS
from .perturbations import (
    StructureRates,
    malformed_arguments,
    perturb_structure,
    vary_surface,
)
from .plans import (
    Conversation,
    Observations,
    PlanEntry,
    Step,
    TaskPlan,
    ToolResult,
    TurnPlanner,
    expand,
    generic_plan,
)


@dataclass(frozen=True)
class AgentProfile:
    """Per-opportunity rates at temperature 1.0; lower temperatures scale them down."""

    name: str
    drop_call: float = 0.0
    insert_call: float = 0.0
    swap_calls: float = 0.0
    replace_call: float = 0.0
    vary_argument_surface: float = 0.0
    malformed_call: float = 0.0
    vary_final_text: float = 0.0
    # Usage beyond the visible text: system prompt framing, tool schemas, hidden reasoning.
    tokens_in_per_call: int = 0
    tokens_out_per_call: int = 0
    # Failures on top of the workflow (wrong targets, claims without calls...): see careless.
    careless: CarelessRates | None = None

    def at_temperature(self, temperature: float) -> AgentProfile:
        """Temperature 0 is (nearly) greedy decoding: no perturbation at all."""
        scale = max(0.0, temperature)
        careless = self.careless.scaled(scale) if self.careless else None
        rates = {f: min(1.0, getattr(self, f) * scale) for f in RATE_FIELDS}
        return replace(self, careless=careless, **rates)


RATE_FIELDS = (
    "drop_call",
    "insert_call",
    "swap_calls",
    "replace_call",
    "vary_argument_surface",
    "malformed_call",
    "vary_final_text",
)

PROFILES: dict[str, AgentProfile] = {
    # Like the paper's most consistent models (TSS about 0.92): on office-19 over 5
    # repetitions, TSS about 0.93, most tasks with one or two distinct sequences.
    "sim-steady": AgentProfile(
        name="sim-steady",
        drop_call=0.006,
        insert_call=0.005,
        swap_calls=0.006,
        replace_call=0.004,
        vary_argument_surface=0.1,
        malformed_call=0.005,
        vary_final_text=0.8,
        tokens_in_per_call=450,
        tokens_out_per_call=40,
    ),
    # Like the paper's least consistent model (TSS 0.71): TSS about 0.7, AC far lower.
    "sim-jittery": AgentProfile(
        name="sim-jittery",
        drop_call=0.048,
        insert_call=0.042,
        swap_calls=0.048,
        replace_call=0.036,
        vary_argument_surface=0.3,
        malformed_call=0.036,
        vary_final_text=0.95,
        tokens_in_per_call=450,
        tokens_out_per_call=90,
    ),
    # Steady's small variance plus the failures of a careless agent (careless.py), at rates
    # that leave about half the demo conversations passing. Per opportunity:
    "sim-careless": AgentProfile(
        name="sim-careless",
        drop_call=0.006,
        insert_call=0.005,
        swap_calls=0.006,
        replace_call=0.004,
        vary_argument_surface=0.1,
        malformed_call=0.005,
        vary_final_text=0.8,
        tokens_in_per_call=450,
        tokens_out_per_call=60,
        careless=CarelessRates(
            wrong_target=0.5,  # a booking or cancellation call: another day, doctor, visit
            skip_consent=0.2,  # a reply that would offer to book: books without asking
            no_confirmation=0.1,  # a reply after a change: "that's taken care of"
            claim_without_call=0.15,  # a write call: not sent, said to be done
            missed_escalation=0.5,  # a conversation needing 911/988: calm, routine words
            contraindicated_request=0.75,  # a declined unsafe medicine: requested anyway
            many_questions=0.08,  # a reply that is not a goodbye: three or more questions
        ),
    ),
}


def get_profile(name: str) -> AgentProfile:
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise ValueError(f"Unknown simulated agent profile {name!r}; known: {known}") from None


@dataclass(frozen=True)
class NextCall:
    step: Step
    malformed: bool
    rng_key: tuple[int, int]  # (entry, step) position, for the per-step random stream


class SimulatedAgentProvider:
    """A Provider (see providers.types) that needs no network and no key."""

    def __init__(
        self,
        profile: str | AgentProfile,
        plans: Mapping[str, TaskPlan] = OFFICE_PLANS,
        turn_planners: Mapping[str, TurnPlanner] | None = None,
    ):
        self.profile = get_profile(profile) if isinstance(profile, str) else profile
        self.plans = plans
        # Worlds whose conversations run over many turns, keyed by the task's "world".
        self.turn_planners = TURN_PLANNERS if turn_planners is None else turn_planners

    def complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        temperature: float,
        context: CallContext,
    ) -> Completion:
        task = context.task or {}
        profile = self.profile.at_temperature(temperature)
        planner = self.turn_planners.get(str(task.get("world", "")))

        def draft(so_far: list[Message]) -> Completion:
            return self._draft(so_far, tools, profile, context, task, planner)

        if profile.careless is None:
            return draft(messages)
        prefix = self._rng_prefix(context, task)
        done = careless_completion(draft, messages, profile.careless, prefix, planner is not None)
        return self._completion(messages, tools, done.text, done.tool_calls)

    def _draft(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        profile: AgentProfile,
        context: CallContext,
        task: dict[str, Any],
        planner: TurnPlanner | None,
    ) -> Completion:
        """The plain agent: the task's plan or workflow, perturbed at the profile's rates."""
        if planner is not None:
            return self._complete_turn(planner, messages, tools, profile, context, task)
        turns, all_results, user_turns = read_conversation(messages)
        if user_turns > 1:
            # The plan belongs to the opening request; later messages get a conversational reply.
            text = self._follow_up_text(profile, context, task, user_turns)
            return self._completion(messages, tools, text, [])
        plan = self.plans.get(str(task.get("id", ""))) or generic_plan(task, tools)
        entries = self._perturbed_entries(plan, profile, context, task, tools)
        nxt = next_call(entries, turns, profile, self._rng_prefix(context, task))
        if nxt is None:
            text = self._final_text(profile, context, task, plan, Observations(all_results))
            return self._completion(messages, tools, text, [])
        call = self._tool_call(nxt, profile, context, task, tools, len(all_results) + 1)
        return self._completion(messages, tools, "", [call])

    def _complete_turn(
        self,
        planner: TurnPlanner,
        messages: list[Message],
        tools: list[dict[str, Any]],
        profile: AgentProfile,
        context: CallContext,
        task: dict[str, Any],
    ) -> Completion:
        """A multi-turn world: every patient turn gets a fresh plan from the whole
        conversation, perturbed with that turn's own random draws."""
        turns, all_results, user_turns = read_conversation(messages)
        earlier = all_results[: len(all_results) - sum(len(turn) for turn in turns)]
        conversation = Conversation(
            user_texts=tuple(m.content for m in messages if m.role == "user"),
            agent_texts=tuple(
                m.content for m in messages if m.role == "assistant" and m.content.strip()
            ),
            earlier=tuple(earlier),
            exchanges=read_exchanges(messages),
        )
        plan = planner(task, conversation)
        prefix = (*self._rng_prefix(context, task), "turn", user_turns)
        entries = perturb_structure(
            plan.entries,
            self._structure_rates(profile),
            stable_rng(*prefix, "structure"),
            # Inserted and replacing calls are lookups: a perturbation may skip or muddle
            # an action, but never invents a write the plan did not intend - and a turn that
            # is only talk (urgent advice, a goodbye) gets no stray lookups at all.
            []
            if plan.quiet
            else [t for t in tools if t.get("name", "").startswith(("get_", "list_", "search_"))],
            task,
        )
        nxt = next_call(entries, turns, profile, prefix, earlier=earlier)
        if nxt is None:
            text = self._turn_text(
                profile, prefix, plan, Observations(all_results), conversation.agent_texts
            )
            return self._completion(messages, tools, text, [])
        call = self._tool_call(nxt, profile, context, task, tools, len(all_results) + 1, prefix)
        return self._completion(messages, tools, "", [call])

    def _turn_text(
        self,
        profile: AgentProfile,
        prefix: tuple[Any, ...],
        plan: TaskPlan,
        observations: Observations,
        said: tuple[str, ...] = (),
    ) -> str:
        """The turn's reply: the plan's summary, maybe framed by an opener and a closer that
        fit the moment (the plan's `framing`), and never word for word a reply already sent."""
        rng = stable_rng(*prefix, "final")
        body = plan.summarize(observations)
        openers, closers = FRAMINGS.get(plan.framing(observations), FRAMINGS["free"])
        if rng.random() >= profile.vary_final_text or not (openers or closers):
            return body
        opener = rng.choice(openers) if openers else ""
        closer = "" if body.rstrip().endswith("?") or not closers else rng.choice(closers)
        framed = " ".join(part for part in (opener, body, closer) if part)
        if framed not in said:
            return framed
        others = [
            " ".join(part for part in (other, body) if part) for other in openers if other != opener
        ]
        return next((text for text in [*others, body] if text not in said), framed)

    # --- Planning ----------------------------------------------------------------------------

    def _rng_prefix(self, context: CallContext, task: dict[str, Any]) -> tuple[Any, ...]:
        # Temperature is left out on purpose: it scales rates over the same draws, so a lower
        # temperature removes perturbations instead of choosing different ones.
        return (self.profile.name, context.seed, task.get("id", ""))

    def _perturbed_entries(
        self,
        plan: TaskPlan,
        profile: AgentProfile,
        context: CallContext,
        task: dict[str, Any],
        tools: list[dict[str, Any]],
    ) -> list[PlanEntry]:
        rng = stable_rng(*self._rng_prefix(context, task), "structure")
        return perturb_structure(plan.entries, self._structure_rates(profile), rng, tools, task)

    @staticmethod
    def _structure_rates(profile: AgentProfile) -> StructureRates:
        return StructureRates(
            drop_call=profile.drop_call,
            insert_call=profile.insert_call,
            swap_calls=profile.swap_calls,
            replace_call=profile.replace_call,
        )

    def _tool_call(
        self,
        nxt: NextCall,
        profile: AgentProfile,
        context: CallContext,
        task: dict[str, Any],
        tools: list[dict[str, Any]],
        call_number: int,
        prefix: tuple[Any, ...] | None = None,
    ) -> ToolCall:
        prefix = self._rng_prefix(context, task) if prefix is None else prefix
        rng = stable_rng(*prefix, "surface", *nxt.rng_key)
        step = nxt.step
        if rng.random() < profile.vary_argument_surface:
            step = vary_surface(step, rng, _schema(tools, step.tool))
        raw = (
            malformed_arguments(step.arguments, rng)
            if nxt.malformed
            else json.dumps(step.arguments)
        )
        # The loop renumbers ids; these only need to be distinct within the conversation.
        return ToolCall.parse(id=f"pending-{call_number}", name=step.tool, raw_arguments=raw)

    # --- Text --------------------------------------------------------------------------------

    def _final_text(
        self,
        profile: AgentProfile,
        context: CallContext,
        task: dict[str, Any],
        plan: TaskPlan,
        observations: Observations,
    ) -> str:
        rng = stable_rng(*self._rng_prefix(context, task), "final")
        varied = rng.random() < profile.vary_final_text
        opener = rng.choice(OPENERS[1:]) if varied else OPENERS[0]
        closer = rng.choice(CLOSERS[1:]) if varied else CLOSERS[0]
        facts = plan.summarize(observations) or "The request has been handled."
        actions = describe_actions(observations, wordy=varied and rng.random() < 0.5)
        return " ".join(part for part in (opener, facts, actions, closer) if part)

    def _follow_up_text(
        self, profile: AgentProfile, context: CallContext, task: dict[str, Any], user_turn: int
    ) -> str:
        rng = stable_rng(*self._rng_prefix(context, task), "follow-up", user_turn)
        varied = rng.random() < profile.vary_final_text
        return rng.choice(FOLLOW_UPS[1:]) if varied else FOLLOW_UPS[0]

    def _completion(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        text: str,
        calls: list[ToolCall],
    ) -> Completion:
        chars_in = sum(_message_chars(m) for m in messages) + len(json.dumps(tools))
        chars_out = len(text) + sum(len(c.name) + len(c.raw_arguments) for c in calls)
        return Completion(
            text=text,
            tool_calls=calls,
            tokens_in=math.ceil(chars_in / 4) + self.profile.tokens_in_per_call,
            tokens_out=math.ceil(chars_out / 4) + self.profile.tokens_out_per_call,
            raw={"simulated": True, "profile": self.profile.name},
        )


OPENERS = (
    "Done.",
    "All set!",
    "Here's what I did.",
    "I've completed your request.",
    "Task complete.",
    "Okay - finished.",
)
CLOSERS = (
    "",
    "Let me know if you need anything else.",
    "Anything else I can help with?",
    "Happy to adjust anything.",
)
# Openers for a conversational turn: they must fit a question as well as a report.
TURN_OPENERS = (
    "I understand.",
    "Thank you for telling me.",
    "Okay.",
    "Thanks for your patience.",
)
# (openers, closers) by the framing a turn plan asks for. Openers never come before urgent
# advice or a goodbye ("bare"), and "Anything else?" only follows a finished piece of work.
FRAMINGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "free": (TURN_OPENERS, CLOSERS),
    "bare": ((), ()),
    "report": (
        ("", "Done.", "Okay, that's done.", "Thanks for waiting."),
        (
            "",
            "Anything else I can help with?",
            "Is there anything else you need today?",
            "Let me know if there's anything else.",
        ),
    ),
    "ask": (("", "Sure.", "Happy to help."), ()),
    "plain": ((), ("", "", "Let me know if you have any other questions.")),
}
FOLLOW_UPS = (
    "Is there anything else I can help you with?",
    "Understood. Let me know if there is anything more you need.",
    "Thanks for letting me know. Anything else?",
    "Got it - is there something else I can do for you?",
)


def describe_actions(observations: Observations, wordy: bool = False) -> str:
    counts = observations.tool_counts()
    if not counts:
        return "I did not need to call any tools."
    if wordy:
        listed = ", ".join(f"{name} {_times(n)}" for name, n in counts.items())
        return f"Along the way I called {listed}."
    return "Tools used: " + ", ".join(f"{name} ({n})" for name, n in counts.items()) + "."


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


TURN_PLANNERS: dict[str, TurnPlanner] = {"clinic": clinic_turn_plan}


# --- Reading the conversation ---------------------------------------------------------------


def read_conversation(
    messages: list[Message],
) -> tuple[list[list[ToolResult]], list[ToolResult], int]:
    """The current turn's tool results per assistant message, every tool result so far, and
    how many user messages there have been."""
    user_indexes = [i for i, m in enumerate(messages) if m.role == "user"]
    turn_start = user_indexes[-1] + 1 if user_indexes else 0
    current: list[list[ToolResult]] = []
    every: list[ToolResult] = []
    for index, message in enumerate(messages):
        if message.role != "assistant":
            continue
        results = _answered_calls(message, _tool_messages_after(messages, index))
        every.extend(results)
        if index >= turn_start:
            current.append(results)
    return current, every, len(user_indexes)


def read_exchanges(messages: list[Message]) -> tuple[tuple[str, str], ...]:
    """(agent text, the user message that answered it) for each answered agent text."""
    exchanges = []
    pending: str | None = None
    for message in messages:
        if message.role == "assistant" and message.content.strip():
            pending = message.content
        elif message.role == "user":
            if pending is not None:
                exchanges.append((pending, message.content))
            pending = None
    return tuple(exchanges)


def _tool_messages_after(messages: list[Message], index: int) -> list[Message]:
    following = []
    for message in messages[index + 1 :]:
        if message.role != "tool":
            break
        following.append(message)
    return following


def _answered_calls(assistant: Message, answers: list[Message]) -> list[ToolResult]:
    """Pair each call with its answer by id, else by order (ids may repeat across turns)."""
    by_id = {a.tool_call_id: a for a in answers if a.tool_call_id}
    unclaimed = [a for a in answers if a.tool_call_id not in {c.id for c in assistant.tool_calls}]
    results = []
    for call in assistant.tool_calls:
        answer = by_id.get(call.id) or (unclaimed.pop(0) if unclaimed else None)
        if answer is None:
            results.append(ToolResult(call.name, call.arguments, "", "error"))
        else:
            results.append(
                ToolResult(call.name, call.arguments, answer.content, answer.status or "ok")
            )
    return results


def next_call(
    entries: list[PlanEntry],
    turns: list[list[ToolResult]],
    profile: AgentProfile,
    rng_prefix: tuple[Any, ...],
    earlier: list[ToolResult] | tuple[ToolResult, ...] = (),
) -> NextCall | None:
    """The call for assistant turn `len(turns)`, or None once the plan is done.

    Each entry is expanded from the results seen before it began, so the expansion of the
    turns already taken never changes between calls. A malformed call takes one extra turn:
    the agent sends the broken call, reads the error, and retries it properly. `earlier`
    (results of earlier turns) is seen by every entry.
    """
    position = len(turns)
    used = 0
    for entry_index, entry in enumerate(entries):
        seen = Observations([*earlier, *(r for turn in turns[:used] for r in turn)])
        for step_index, step in enumerate(expand(entry, seen)):
            rng = stable_rng(*rng_prefix, "malformed", entry_index, step_index)
            broken_first = rng.random() < profile.malformed_call
            attempts = 2 if broken_first else 1
            if position < used + attempts:
                is_broken = broken_first and position == used
                return NextCall(step, is_broken, (entry_index, step_index))
            used += attempts
    return None


def _schema(tools: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next((t.get("parameters", {}) for t in tools if t.get("name") == name), {})


def _message_chars(message: Message) -> int:
    calls = sum(len(c.name) + len(c.raw_arguments) for c in message.tool_calls)
    return len(message.content) + calls
