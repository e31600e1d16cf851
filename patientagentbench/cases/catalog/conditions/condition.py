"""What a condition is in the catalog: its names, specialty, usual regimens and stories."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Regimen:
    """One medicine as it would be written on a prescription for this condition."""

    drug: str
    dosage: str
    frequency: str


@dataclass(frozen=True)
class Condition:
    name: str  # the chart's term, also the problem-list entry
    plain: str  # what most patients say
    lay: str  # what a patient with little health literacy says
    specialty: str
    regimens: tuple[Regimen, ...]  # most common first
    symptoms: tuple[str, ...]  # lay phrases, "I've had ..."
    chronic: bool = True
    sex: str = ""  # "female" / "male" when only one sex can have it
    min_age: int = 18
    max_age: int = 120
    single_weight: float = 1.0  # 0: only ever appears alongside another condition
    psychiatric: bool = False
    pain: str = ""  # the pain a patient would want managed
    red_flags: tuple[tuple[str, str], ...] = ()  # (what the patient says, clinical summary)
    second_opinion: str = ""  # a recommendation a patient might want checked
    lifestyle: str = ""  # what a patient might ask to change
    treatment_question: str = ""
    past: bool = False  # an event in the history ("I had a stroke"), not something one "has"
    core: int = 0  # the first `core` regimens go on every chart (aspirin and a statin in CAD)


def rx(drug: str, dosage: str, frequency: str) -> Regimen:
    """A regimen, short to write: the tables hold a few hundred of them."""
    return Regimen(drug, dosage, frequency)
