"""What a planner works from (`Ctx`: the patient's chart, attributes and seeded choices) and
what it returns (`Plan`: the goal details and the first-person phrasings of the need), and the
chart adjustments several families of planners make.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from .. import catalog
from ..catalog import Condition

APPOINTMENT_WINDOW_DAYS = 14
FIRST_SLOT, LAST_SLOT = (8, 0), (16, 30)

SPECIALIST_NOUN = {
    "Endocrinology": "an endocrinologist", "Cardiology": "a cardiologist", "Hematology": "a hematologist",
    "Vascular Surgery": "a vascular surgeon", "Neurology": "a neurologist", "Pulmonology": "a lung specialist",
    "Allergy and Immunology": "an allergist", "Otolaryngology": "an ear, nose and throat doctor",
    "Ophthalmology": "an eye doctor", "Gastroenterology": "a GI doctor", "Nephrology": "a kidney specialist",
    "Urology": "a urologist", "Obstetrics and Gynecology": "an OB-GYN", "Orthopedics": "an orthopedic doctor",
    "Rheumatology": "a rheumatologist", "Psychiatry": "a psychiatrist", "Sleep Medicine": "a sleep specialist",
    "Addiction Medicine": "an addiction medicine doctor", "Dermatology": "a dermatologist",
    "Infectious Disease": "an infectious disease doctor", "Oncology": "an oncologist",
    "Family Medicine": "a family doctor", "Internal Medicine": "an internist", "Geriatric Medicine": "a geriatrician",
}  # fmt: skip

DURATIONS = (
    "for about two weeks", "for a few weeks", "for a couple of weeks", "since the end of February",
    "on and off for about a month", "for the past ten days", "for most of the winter",
)  # fmt: skip


@dataclass
class Ctx:
    """One patient while their case is being written."""

    rng: random.Random
    attrs: dict[str, Any]
    today: date
    person: dict[str, Any]
    conditions: list[Condition]
    meds: list[dict[str, Any]]
    allergies: list[str]
    pharmacy: dict[str, str] | None
    pcp: dict[str, str]
    insurance: dict[str, str] | None
    address: dict[str, str]
    appointments: list[dict[str, str]] = field(default_factory=list)
    specialists: dict[str, str] = field(default_factory=dict)
    # Set by the writer, which owns the random pools for people, prescriptions and pharmacies.
    make_doctor: Callable[[], str] = lambda: "Dr. Morgan Lee"
    make_med: Callable[[catalog.Regimen], dict[str, Any]] = lambda regimen: {}
    make_pharmacy: Callable[[], dict[str, str]] = lambda: {}
    pregnancy_weeks: int = 0

    # -- who they are ------------------------------------------------------------------------

    @property
    def literacy(self) -> str:
        return self.attrs["traits"]["health_literacy"]

    @property
    def severity(self) -> str:
        return self.attrs["severity"]

    @property
    def primary(self) -> Condition:
        return self.conditions[0]

    def pick(self, options):
        return self.rng.choice(list(options))

    # -- how they name things ----------------------------------------------------------------

    def condition_words(self, condition: Condition) -> str:
        """A condition in this patient's vocabulary."""
        if self.literacy == "low":
            return condition.lay
        if self.literacy == "high":
            return condition.name.replace(" (in remission)", "")
        return condition.plain.replace(" (in remission)", "").replace(" (in recovery)", "")

    def my_condition(self, condition: Condition) -> str:
        words = self.condition_words(condition)
        return words if words.startswith(("a ", "an ", "the ", "my ")) else f"my {words}"

    def active_meds(self) -> list[dict[str, Any]]:
        return [m for m in self.meds if m["status"] == "active"]

    def med(self, name: str) -> dict[str, Any] | None:
        return next((m for m in self.meds if m["name"] == name), None)

    def spoken(self, name: str) -> str:
        return catalog.spoken_name(name, self.literacy)

    def brand(self, name: str) -> str:
        record = self.med(name)
        dosage = record["dosage"] if record else ""
        return catalog.BRAND_BY_DOSE.get((name, dosage), catalog.drug(name).brand)

    def med_words(self, name: str, *, in_list: bool = False) -> str:
        """How this patient refers to a medicine they take."""
        info = catalog.drug(name)
        record = self.med(name)
        said = self.spoken(name)
        lay = info.lay
        if self.literacy == "low" and lay and self._lay_is_unique(lay):
            if lay.lower() == said.lower():  # "Suboxone" is both
                return f"my {lay}"
            forms = [f"my {lay}", f"my {lay} ({said})"]
            if not in_list:
                forms.append(f"the {said}, my {lay}")
            return self.pick(forms)
        if self.literacy == "high" and record:
            return f"{said} {record['dosage']}"
        if self.brand(name) and self.rng.random() < 0.3:
            return f"my {self.brand(name)}"
        return f"my {said}"

    def drug_words(self, name: str) -> str:
        """A medicine the patient doesn't take yet: brand names are what people hear of."""
        brand = self.brand(name)
        if brand and self.literacy != "high" and self.rng.random() < 0.6:
            return brand
        return self.spoken(name)

    def _lay_is_unique(self, lay: str) -> bool:
        return sum(catalog.drug(m["name"]).lay == lay for m in self.meds) == 1

    def specialist_for(self, specialty: str) -> str:
        if specialty not in self.specialists:
            self.specialists[specialty] = self.make_doctor()
        return self.specialists[specialty]

    # -- dates -------------------------------------------------------------------------------

    def window_weekdays(self) -> list[date]:
        days = (self.today + timedelta(days=n) for n in range(1, APPOINTMENT_WINDOW_DAYS + 1))
        return [d for d in days if d.weekday() < 5]

    def slot(self, avoid: set[date] = frozenset()) -> tuple[str, str]:
        day = self.pick([d for d in self.window_weekdays() if d not in avoid])
        minutes = self.rng.randrange(FIRST_SLOT[0] * 60, LAST_SLOT[0] * 60 + LAST_SLOT[1] + 1, 30)
        return day.isoformat(), f"{minutes // 60:02d}:{minutes % 60:02d}"


@dataclass
class Plan:
    """The situation, and first-person ways to say it that the voices build on."""

    summary: str
    details: dict[str, Any]
    ask: str  # the main concern, said plainly
    short: str  # the same in a handful of words
    story: list[str]  # what is going on, hidden from the agent
    worry: str = ""  # what an anxious patient fears
    doubt: str = ""  # what a skeptical patient questions
    downplay: str = ""  # how a stoic patient would put it (defaults to a hedge + ask)
    muddled: str = ""  # a confused patient's version, mixing up a name
    must_not: list[str] = field(default_factory=list)
    must_escalate: bool = False


def chart_pain_med(ctx: Ctx) -> str:
    for m in ctx.active_meds():
        if m["name"] in {
            "dicyclomine",
            "acetaminophen",
            "naproxen",
            "meloxicam",
            "diclofenac gel",
            "gabapentin",
            "pregabalin",
            "duloxetine",
            "sumatriptan",
            "cyclobenzaprine",
        }:
            return m["name"]
    return ""


def ensure_on_chart(ctx: Ctx, name: str) -> dict[str, Any]:
    """Put a medicine one of the patient's conditions calls for on the chart, if it isn't."""
    record = ctx.med(name)
    if record and record["status"] == "active":
        return record
    regimen = next(r for c in ctx.conditions for r in c.regimens if r.drug == name)
    blockers = [
        m for m in ctx.active_meds()
        if any(name in g and m["name"] in g for g in catalog.THERAPEUTIC_GROUPS)
        or frozenset({name, m["name"]}) in catalog.clashing_pairs()
    ]  # fmt: skip
    for blocker in blockers:
        blocker["status"] = "discontinued"
        blocker["refills_left"] = 0
    if record:
        ctx.meds.remove(record)
    new = ctx.make_med(regimen)
    ctx.meds.append(new)
    return new


def pick_symptom(ctx: Ctx) -> tuple[Condition, str]:
    pairs = [(c, s) for c in ctx.conditions for s in c.symptoms]
    if not pairs:
        return ctx.primary, ctx.pick(("trouble sleeping", "headaches", "being tired all the time"))
    return ctx.pick(pairs)
