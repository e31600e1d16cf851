"""The simulated judge: an offline, seeded Provider that answers like an LLM judge.

It lets the whole jury (panels, retries, unparseable and not-applicable verdicts,
aggregation, test-retest consistency) run without a network or a key, and be tested.

It does not read the conversation. Its score follows the signals the caller puts in
`context.task` (plain values the pipeline already knows, never shown to a real judge):

    {"dimension": "clinical_safety",   # which dimension this call scores
     "outcome_passed": True | False | None,   # the conversation's automatic checks
     "end_reason": "patient_ended",    # conversation.EndReason value
     "tool_errors": 0,                 # tool calls that returned an error
     "symptom": True | False | None}   # optional: did the patient raise a symptom?

plus a profile's bias and noise. Everything is a function of (profile, `context.seed`, a
sha256 of the prompt, temperature): the same call gives the same answer, in any process; a
repetition with another seed may differ, which is what judge consistency measures.

At stated rates it answers badly, so every path is exercised offline: unparseable text
(a refusal, broken JSON, or a score out of range), and not applicable (mostly for triage
when no symptom was raised, where a real judge should say so).

When the caller offers the `record_verdict` tool (Anthropic forced tool use), a well-formed
answer comes as that tool call's arguments, and malformed ones as text, as a real model's
would. Every rationale begins "[simulated]" so no one mistakes it for a model's judgement.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from typing import Any

from jury.pure.prompts import TOOL_NAME
from patientagentbench.providers.types import CallContext, Completion, Message, ToolCall
from ratings.scale import DEFAULT_SCALE
from sandbox.seeding import stable_rng

SIMULATED_LABEL = "[simulated]"
# Base score by the outcome checks: passed, failed, unknown (imported, or not graded).
BASE = {True: 4.3, False: 2.2, None: 3.4}
# How strongly the outcome checks pull each dimension (1 = the full gap between BASE values).
OUTCOME_PULL = {
    "clinical_safety": 1.0,
    "task_completion": 1.0,
    "workflow_accuracy": 0.8,
    "triage_quality": 0.7,
    "clinical_helpfulness": 0.7,
    "conversational_quality": 0.4,
}
# A conversation cut short leaves the patient's business and the dialogue unfinished.
CUT_SHORT = {"max_turns": 0.7, "max_iterations": 0.9, "error": 1.2, "spend_limit": 1.2}
CUT_SHORT_DIMENSIONS = {"task_completion", "conversational_quality", "workflow_accuracy"}
TOOL_ERROR_PENALTY = {"workflow_accuracy": 0.35, "task_completion": 0.2}
TOOL_ERROR_CAP = 3  # errors past this add no further penalty
# Not applicable: where the rubric's applicability guidance would say so.
NA_TRIAGE_NO_SYMPTOM = 0.7
NA_NO_TOOLS = 0.5
SYMPTOM_SUBTASKS = {
    "side_effect_concern",
    "symptom_assessment",
    "emergency_symptoms",
    "pain_management",
    "mental_health_crisis",
    "suicidal_ideation",
}


@dataclass(frozen=True)
class JudgeProfile:
    name: str
    bias: float  # added to every score before rounding; negative is harsher
    noise: float  # sd of the Gaussian noise at temperature 1.0
    unparseable: float  # per-call rate of a malformed answer
    not_applicable: float  # per-call rate of a not-applicable answer, any dimension
    tokens_out: int = 90
    # Reads the outcome checks backwards: a judge that is consistent and wrong, for showing
    # (and testing) that consistency is not correctness (jury.pure.validity).
    inverted: bool = False


PROFILES: dict[str, JudgeProfile] = {
    "sim-judge-a": JudgeProfile("sim-judge-a", bias=0.0, noise=0.6, unparseable=0.03,
                                not_applicable=0.02),
    "sim-judge-b": JudgeProfile("sim-judge-b", bias=-0.6, noise=0.6, unparseable=0.03,
                                not_applicable=0.02),
    "sim-judge-c": JudgeProfile("sim-judge-c", bias=0.0, noise=1.2, unparseable=0.06,
                                not_applicable=0.03, tokens_out=140),
    "sim-judge-inverted": JudgeProfile("sim-judge-inverted", bias=0.0, noise=0.1,
                                       unparseable=0.0, not_applicable=0.0, inverted=True),
}  # fmt: skip
MIN_NOISE_SCALE = 0.3  # temperature 0 still varies a little, as real judges do

BAD_ANSWERS = (
    "I'm sorry, but I can't help with evaluating this conversation.",
    '```json\n{"rationale": "The agent booked the visit", "score": 4\n```',
    '{"rationale": "Far better than expected.", "not_applicable": false, "score": 7}',
)


class SimulatedJudgeProvider:
    supports_temperature = True

    def __init__(self, profile: str = "sim-judge-a") -> None:
        self.profile = get_profile(profile)
        self.model_id = self.profile.name

    def complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        temperature: float,
        context: CallContext,
    ) -> Completion:
        task = context.task or {}
        rng = stable_rng(self.profile.name, context.seed, prompt_digest(messages), temperature)
        answer = self._answer(rng, task, temperature, score_range(context.output_schema))
        tokens_in = sum(len(m.content) for m in messages) // 4
        tokens_out = self.profile.tokens_out * max(1, len(task.get("dimensions") or ()))
        return _completion(answer, tools, tokens_in, tokens_out)

    def _answer(
        self, rng: random.Random, task: dict, temperature: float, span: tuple[int, int]
    ) -> str | dict:
        if task.get("dimensions"):
            return self._all_answers(rng, task, temperature, span)
        if rng.random() < self.profile.unparseable:
            return rng.choice(BAD_ANSWERS)
        dimension = str(task.get("dimension", ""))
        if rng.random() < not_applicable_rate(self.profile, task):
            reason = f"{SIMULATED_LABEL} {dimension or 'this dimension'} does not apply here."
            return {"rationale": reason, "not_applicable": True, "score": None}
        score = simulated_score(self.profile, task, rng, temperature, span)
        return {"rationale": _rationale(task, score), "not_applicable": False, "score": score}

    def _all_answers(
        self, rng: random.Random, task: dict, temperature: float, span: tuple[int, int]
    ) -> str | dict:
        """One object keyed by dimension (one-call mode); off-format as a whole, or in one
        dimension's part, at the profile's rate."""
        if rng.random() < self.profile.unparseable:
            return rng.choice(BAD_ANSWERS)
        answers = {}
        for key in task["dimensions"]:
            part = self._answer(
                random.Random(f"{rng.random()}:{key}"),
                {**task, "dimension": key, "dimensions": None},
                temperature,
                span,
            )
            if isinstance(part, str):  # an off-format part: a score off the scale
                part = {
                    "rationale": f"{SIMULATED_LABEL} {key}",
                    "not_applicable": False,
                    "score": 9,
                }
            answers[key] = part
        return answers


def get_profile(name: str) -> JudgeProfile:
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise ValueError(f"Unknown simulated judge profile {name!r}; known: {known}") from None


def prompt_digest(messages: list[Message]) -> str:
    text = "\x1e".join(f"{m.role}\x1f{m.content}" for m in messages)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def expected_score(profile: JudgeProfile, task: dict) -> float:
    """The noiseless score: outcome pull, cut-short and tool-error penalties, bias."""
    dimension = str(task.get("dimension", ""))
    outcome = task.get("outcome_passed")
    outcome = outcome if isinstance(outcome, bool) else None
    if profile.inverted and outcome is not None:
        outcome = not outcome
    pull = OUTCOME_PULL.get(dimension, 0.5)
    score = BASE[None] + pull * (BASE[outcome] - BASE[None])
    if dimension in CUT_SHORT_DIMENSIONS:
        score -= CUT_SHORT.get(str(task.get("end_reason", "")), 0.0)
    errors = min(int(task.get("tool_errors") or 0), TOOL_ERROR_CAP)
    return score - TOOL_ERROR_PENALTY.get(dimension, 0.1) * errors + profile.bias


def simulated_score(
    profile: JudgeProfile,
    task: dict,
    rng: random.Random,
    temperature: float,
    span: tuple[int, int] = (DEFAULT_SCALE.low, DEFAULT_SCALE.high),
) -> int:
    """A score on the scale the answer schema asks for (`span`: lowest, highest). The model
    of a judge (BASE, the pulls, penalties and noise) is the default 1–5 rubric's, stretched
    linearly onto `span`, so a 1–7 judge uses all seven points and a 1–5 one is unchanged."""
    scale = max(MIN_NOISE_SCALE, min(float(temperature), 1.0))
    value = expected_score(profile, task) + rng.gauss(0.0, profile.noise * scale)
    low, high = span
    if span != (DEFAULT_SCALE.low, DEFAULT_SCALE.high):  # 1–5 stays bit for bit as it was
        stretch = (high - low) / (DEFAULT_SCALE.high - DEFAULT_SCALE.low)
        value = low + (value - DEFAULT_SCALE.low) * stretch
    return min(high, max(low, round(value)))


def score_range(output: Any) -> tuple[int, int]:
    """The lowest and highest score the call's answer schema allows (the panel rubric's
    scale), read as a real judge reads it; the default rubric's without a schema."""
    schema = getattr(output, "schema", None) or {}
    if "anyOf" not in schema:  # one call for all dimensions: each key holds one verdict
        schema = next(iter(schema.get("properties", {}).values()), {})
    score = (schema.get("anyOf") or [{}])[0].get("properties", {}).get("score", {})
    return score.get("minimum", DEFAULT_SCALE.low), score.get("maximum", DEFAULT_SCALE.high)


def not_applicable_rate(profile: JudgeProfile, task: dict) -> float:
    dimension = task.get("dimension")
    if dimension == "triage_quality" and _symptom(task) is False:
        return NA_TRIAGE_NO_SYMPTOM
    if dimension == "workflow_accuracy" and task.get("tool_calls") == 0:
        return NA_NO_TOOLS
    return profile.not_applicable


def _symptom(task: dict) -> bool | None:
    """Did the patient raise a symptom: the caller's flag, else the case's subtask."""
    if isinstance(task.get("symptom"), bool):
        return task["symptom"]
    subtask = task.get("subtask")
    return subtask in SYMPTOM_SUBTASKS if subtask else None


def _rationale(task: dict, score: int) -> str:
    outcome = {True: "passed", False: "failed"}.get(task.get("outcome_passed"), "were not run")
    errors = int(task.get("tool_errors") or 0)
    return (
        f"{SIMULATED_LABEL} The automatic checks {outcome}; the conversation ended "
        f"({task.get('end_reason') or 'unknown'}) with {errors} tool error(s). Score {score}."
    )


def _completion(
    answer: str | dict, tools: list[dict], tokens_in: int, tokens_out: int
) -> Completion:
    if isinstance(answer, str):
        return Completion(text=answer, tool_calls=[], tokens_in=tokens_in, tokens_out=tokens_out)
    arguments = json.dumps(answer)
    if any(_tool_name(tool) == TOOL_NAME for tool in tools):
        call = ToolCall.parse(id="t1", name=TOOL_NAME, raw_arguments=arguments)
        return Completion(text="", tool_calls=[call], tokens_in=tokens_in, tokens_out=tokens_out)
    return Completion(text=arguments, tool_calls=[], tokens_in=tokens_in, tokens_out=tokens_out)


def _tool_name(tool: dict) -> str:
    """A neutral or Anthropic spec names itself; an OpenAI one inside its `function`."""
    return str(tool.get("name") or (tool.get("function") or {}).get("name") or "")
