"""Who the patient is: how it talks (its persona) and what stays true about it (its facts).

The persona comes from the case's personality and trait levels and sets rates (how often it
worries, hedges, mixes names up, pushes back); the facts (how long the problem has lasted,
how bad it is, who is with it) depend on the case only, so repetitions describe the same
person.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Any

from patientagentbench.cases.schema import ESCALATION_SUBTASKS
from sandbox.seeding import stable_rng

from ..speech import and_list
from . import phrases
from .case import details_of, subtask_of
from .reading import split_sentences
from .wording import capitalize_first, word_set

PATIENCE_LIMITS = {"low": 3, "medium": 5, "high": 7}


@dataclass(frozen=True)
class Persona:
    """How this patient talks, from the case's personality and trait levels."""

    voice: str
    traits: dict[str, str]

    @classmethod
    def of(cls, case: dict[str, Any]) -> Persona:
        attributes = case.get("attributes", {})
        personality = attributes.get("personality", "cooperative")
        voice = personality if personality in phrases.VOICES else "cooperative"
        return cls(voice=voice, traits=dict(attributes.get("traits") or {}))

    def level(self, trait: str) -> str:
        return self.traits.get(trait, "medium")

    @property
    def brief(self) -> bool:
        return self.voice == "terse"

    @property
    def patience(self) -> int:
        return PATIENCE_LIMITS.get(self.level("patience"), 5)

    @property
    def lay_terms(self) -> bool:
        return self.level("health_literacy") == "low"

    @property
    def worry_rate(self) -> float:
        if self.voice == "anxious":
            return 0.65
        return 0.3 if self.level("anxiety") == "high" else 0.0

    @property
    def push_rate(self) -> float:
        return 0.35 if self.level("urgency") == "high" else 0.0

    @property
    def mixup_rate(self) -> float:
        if self.voice == "confused":
            return 0.5
        return 0.15 if self.level("clarity") == "low" else 0.0

    @property
    def hedge_rate(self) -> float:
        return 0.4 if self.voice == "confused" or self.level("clarity") == "low" else 0.0

    @property
    def challenge_rate(self) -> float:
        if self.voice == "skeptical":
            return 0.45
        return 0.25 if self.level("cooperation") == "low" else 0.0

    @property
    def volunteer_rate(self) -> float:
        """Talkative patients add a detail nobody asked for."""
        if self.brief:
            return 0.0
        return {"high": 0.35, "medium": 0.1}.get(self.level("communication"), 0.0)


@dataclass(frozen=True)
class Facts:
    """Things about the person that stay the same in every repetition of the case."""

    duration: str
    severity: int
    time_of_day: str
    companion: str | None
    details: tuple[str, ...]


def case_facts(case: dict[str, Any]) -> Facts:
    rng = stable_rng("patient-facts", case.get("case_id", ""), case.get("seed", 0))
    attributes = case.get("attributes", {})
    subtask = subtask_of(case)
    story_lines = _first_person_story(case)
    told_duration = _duration_in_opening(case.get("opening", "")) or next(
        (s for s in story_lines if _DURATION_WORDS.search(s)), None
    )
    pace = (
        "acute"
        if subtask in ESCALATION_SUBTASKS
        else ("long" if attributes.get("complexity") in {"chronic", "complicated"} else "recent")
    )
    low, high = {"mild": (2, 4), "moderate": (5, 6), "severe": (7, 9)}.get(
        attributes.get("severity", "moderate"), (4, 6)
    )
    companions = phrases.COMPANIONS.get(attributes.get("gender", ""), [None])
    return Facts(
        duration=told_duration or rng.choice(phrases.DURATIONS[pace]),
        severity=rng.randint(low, high),
        time_of_day=rng.choice(["morning", "afternoon", "any"]),
        companion=rng.choice(companions),
        details=(tuple(s for s in story_lines if s != told_duration) or _concern_in_own_words(case))
        + _extra_details(case),
    )


_DURATION_WORDS = re.compile(
    r"\b(minutes?|hours?|days?|weeks?|months?|years?|since|yesterday|last night)\b", re.I
)
_TOLD_DURATION = re.compile(
    r"\bfor ((about|almost|nearly|over|around) )?(a few|a couple of|several|a|an|\w+) "
    r"(minutes?|hours?|days?|weeks?|months?|years?)\b"
    r"|\b((about|almost|nearly|around) )?(a few|a couple of|several|a|an|\w+) "
    r"(minutes?|hours?|days?|weeks?|months?|years?) ago\b"
    r"|\bsince (yesterday|last \w+|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
    r"|\bthis (week|month)\b",
    re.I,
)


def _duration_in_opening(opening: str) -> str | None:
    """How long, in the words of the opening, so later answers do not contradict it."""
    match = _TOLD_DURATION.search(opening)
    if not match:
        return None
    phrase = match.group(0)
    if phrase.lower().startswith("for "):
        return f"{capitalize_first(phrase[4:])} now."
    if phrase.lower().endswith(" ago"):
        return f"It started {phrase}."
    if phrase.lower().startswith("this "):
        return f"It started {phrase}."
    return f"{capitalize_first(phrase)}."


_FIRST_PERSON = re.compile(r"\b(I|I'm|I've|I'd|my|me)\b", re.I)
_THIRD_PERSON = re.compile(r"\b(she|he|her|his|they|their|the patient)\b", re.I)


def _first_person_story(case: dict[str, Any]) -> list[str]:
    """Story sentences the patient can say as they are; the opening's own sentences and any
    third-person narration (which would read like a chart note) are left out."""
    opening_words = word_set(case.get("opening", ""))
    name_parts = set(str(case.get("profile", {}).get("name", "")).lower().split())
    kept = []
    for sentence in split_sentences(case.get("story", "")):
        words = word_set(sentence)
        if not _FIRST_PERSON.search(sentence) or _THIRD_PERSON.search(sentence):
            continue
        if words & name_parts or (words and len(words & opening_words) / len(words) > 0.6):
            continue
        kept.append(sentence)
    return kept


_CONCERN_SENTENCES = {
    "prescription_renewal": "I'm almost out of the {medication}.",
    "side_effect_concern": "I just haven't felt right since I started the {medication}.",
    "interaction": "I already take {interacts_with}, so I wanted to check first.",
    "supplement_safety": "A friend told me {supplement} might help.",
    "contraindicated_request": "I've heard {medication} works really well.",
    "new_prescription": "I think {medication} would help with {reason}.",
}


def _concern_in_own_words(case: dict[str, Any]) -> tuple[str, ...]:
    """When the story cannot be quoted, one plain sentence about the concern from the goal."""
    details = details_of(case)
    template = _CONCERN_SENTENCES.get(subtask_of(case), "")
    fields = [name for _, name, _, _ in string.Formatter().parse(template) if name]
    if template and all(details.get(name) for name in fields):
        return (template.format(**details),)
    concern = details.get("symptoms") or details.get("topic")
    if not concern:
        return ()
    if str(concern).startswith(("I ", "I'm", "My ")):
        return (capitalize_first(str(concern).rstrip(".")) + ".",)
    if subtask_of(case) in ESCALATION_SUBTASKS | {"symptom_assessment", "pain_management"}:
        return (f"It's mainly the {concern}.",)
    return (f"It's about {concern}.",)


def _extra_details(case: dict[str, Any]) -> tuple[str, ...]:
    profile = case.get("profile", {})
    conditions = case.get("attributes", {}).get("conditions") or []
    extra = []
    if len(conditions) > 1:
        extra.append(f"I also have {and_list(conditions[1:])}, if that matters.")
    allergies = profile.get("allergies") or []
    if allergies:
        extra.append(f"Oh, and I'm allergic to {and_list(allergies)}.")
    return tuple(extra)
