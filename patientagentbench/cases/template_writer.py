"""The offline, seeded case writer: a full case from sampled attributes, no model needed.

It builds a chart a clinic could really hold (medicines that fit the conditions and each
other, allergies, insurance by age, a pharmacy near home), lets the subtask's planner pick
the concrete situation, and writes the opening and story in the persona's voice. The same
(attributes, seed, case id, today) always gives the same case.
"""

from __future__ import annotations

import copy
import random
import re
import string
import unicodedata
from datetime import date, timedelta
from typing import Any

from sandbox.seeding import stable_rng

from . import catalog, voice
from .catalog import City, Condition, Regimen
from .sampler import weighted_choice
from .scenarios import PLANNERS, Ctx

# Subtasks that send something to a pharmacy: their patients always have one on file.
NEEDS_PHARMACY = frozenset({"prescription_renewal", "new_prescription", "update_pharmacy"})
NO_PHARMACY_SHARE = 0.12
# Conditions a primary care doctor usually prescribes for; specialists handle the rest.
PCP_MANAGED = frozenset({
    "type 2 diabetes", "hypertension", "hyperlipidemia", "hypothyroidism", "GERD", "asthma", "allergic rhinitis",
    "COPD", "osteoarthritis", "chronic low back pain", "insomnia", "generalized anxiety disorder",
    "major depressive disorder", "nicotine dependence", "obesity", "osteoporosis", "irritable bowel syndrome", "gout",
    "benign prostatic hyperplasia", "erectile dysfunction", "overactive bladder", "iron deficiency anemia",
    "vitamin B12 deficiency", "acne", "atopic dermatitis", "benign paroxysmal positional vertigo",
    "recurrent urinary tract infections", "menopause symptoms", "shingles", "rosacea",
})  # fmt: skip
EXTRA_APPOINTMENT_SHARE = 0.2
MED_PAUSED_SHARE = 0.04
SWITCH_HISTORY_SHARE = 0.2  # a medicine on file replaced an older one from the same class


def write_case(
    attributes: dict[str, Any], seed: int, case_id: str, today: str = "2026-03-09"
) -> dict[str, Any]:
    rng = stable_rng("template-writer", seed)
    today_date = date.fromisoformat(today)
    ctx = _build_context(rng, attributes, today_date)
    subtask = attributes["subtask"]
    plan = PLANNERS[subtask](ctx)
    if attributes["category"] != "provider_access" and rng.random() < EXTRA_APPOINTMENT_SHARE:
        _add_routine_appointment(ctx)
    persona = voice.voice_of(attributes)
    return {
        "case_id": case_id,
        "seed": seed,
        "today": today,
        "writer": "template",
        "attributes": copy.deepcopy(attributes),
        "profile": _profile(ctx),
        "story": _tidy(voice.story(ctx, plan)),
        "opening": _tidy(voice.opening(ctx, plan, persona)),
        "goal": {
            "summary": plan.summary,
            "subtask": subtask,
            "details": plan.details,
            "must_escalate": plan.must_escalate,
            "must_not": plan.must_not,
        },
    }


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"\.\.(?!\.)", ".", text)  # "at 2 p.m.." where a time ends a sentence


# --------------------------------------------------------------------------------------------
# The patient
# --------------------------------------------------------------------------------------------


def _build_context(rng: random.Random, attrs: dict[str, Any], today: date) -> Ctx:
    city = rng.choice(catalog.CITIES)
    person = _person(rng, attrs, today)
    taken_names: set[str] = {person["name"]}
    conditions = [catalog.CONDITIONS[name] for name in attrs["conditions"]]
    ctx = Ctx(
        rng=rng,
        attrs=attrs,
        today=today,
        person=person,
        conditions=conditions,
        meds=[],
        allergies=_allergies(rng),
        pharmacy=None,
        pcp={},
        insurance=_insurance(rng, attrs["age"], city.state),
        address=_address(rng, city),
    )
    ctx.make_doctor = lambda: _doctor_name(rng, taken_names)
    ctx.pcp = {"name": ctx.make_doctor(), "specialty": _pcp_specialty(rng, attrs["age"])}
    ctx.make_pharmacy = lambda: _pharmacy(rng, city, exclude=ctx.pharmacy)
    ctx.make_med = lambda regimen: _med_record(
        rng, regimen, today, _prescriber(ctx, regimen), "active"
    )
    needs_pharmacy = attrs["subtask"] in NEEDS_PHARMACY
    if needs_pharmacy or rng.random() >= NO_PHARMACY_SHARE:
        ctx.pharmacy = ctx.make_pharmacy()
    ctx.person["contact"] = _contact(rng, person, city, attrs["age"])
    ctx.meds = _medications(ctx)
    ctx.pregnancy_weeks = _pregnancy_weeks(rng, attrs["conditions"])
    return ctx


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def _person(rng: random.Random, attrs: dict[str, Any], today: date) -> dict[str, Any]:
    heritage = weighted_choice(rng, catalog.NAME_POOL_WEIGHTS)
    pool = catalog.NAME_POOLS[heritage]
    first = _first_name(rng, pool, attrs["gender"], attrs["sex"], attrs["age"])
    # Families mix: now and then the surname comes from another heritage.
    surname_pool = (
        pool
        if rng.random() < 0.9
        else catalog.NAME_POOLS[weighted_choice(rng, catalog.NAME_POOL_WEIGHTS)]
    )
    last = rng.choice(surname_pool.surnames)
    nicknames = catalog.NICKNAMES.get(first, ())
    preferred = rng.choice(nicknames) if nicknames and rng.random() < 0.4 else first
    return {
        "name": f"{first} {last}",
        "first_name": first,
        "last_name": last,
        "preferred_name": preferred,
        "date_of_birth": _birth_date(rng, attrs["age"], today).isoformat(),
        "pronouns": {"woman": "she/her", "man": "he/him"}.get(attrs["gender"], "they/them"),
    }


def _first_name(rng: random.Random, pool: catalog.NamePool, gender: str, sex: str, age: int) -> str:
    if gender == "non-binary" and rng.random() < 0.7:
        return rng.choice(pool.neutral)
    feminine = gender == "woman" or (gender == "non-binary" and sex == "female")
    older = pool.older_women if feminine else pool.older_men
    if age >= 60 and older and rng.random() < 0.85:
        return rng.choice(older)
    return rng.choice(pool.women if feminine else pool.men)


def _years_before(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February in a non-leap year
        return day.replace(year=day.year - years, day=28)


def _birth_date(rng: random.Random, age: int, today: date) -> date:
    """A birthday that makes the patient exactly `age` today."""
    latest = _years_before(today, age)
    earliest = _years_before(today, age + 1) + timedelta(days=1)
    return earliest + timedelta(days=rng.randint(0, (latest - earliest).days))


def _doctor_name(rng: random.Random, taken: set[str]) -> str:
    while True:
        pool = catalog.NAME_POOLS[weighted_choice(rng, catalog.NAME_POOL_WEIGHTS)]
        first = rng.choice(pool.women + pool.men)
        name = f"Dr. {first} {rng.choice(pool.surnames)}"
        if name not in taken:
            taken.add(name)
            return name


def _pcp_specialty(rng: random.Random, age: int) -> str:
    if age >= 65 and rng.random() < 0.25:
        return "Geriatric Medicine"
    return rng.choice(catalog.PCP_SPECIALTIES)


def _address(rng: random.Random, city: City) -> dict[str, str]:
    street = f"{rng.randint(12, 9850)} {rng.choice(catalog.STREETS)}"
    if rng.random() < 0.25:
        street += f", Apt {rng.randint(1, 24)}{rng.choice('ABCD')}"
    return {"street": street, "city": city.name, "state": city.state, "zip": city.zip}


def _phone(rng: random.Random, city: City) -> str:
    # 555-0100 to 555-0199 are reserved for fiction: no real person is ever dialled.
    return f"+1-{city.area_code}-555-01{rng.randint(0, 99):02d}"


def _contact(rng: random.Random, person: dict[str, Any], city: City, age: int) -> dict[str, str]:
    if age >= 75 and rng.random() < 0.25:
        email = ""  # plenty of older patients have none
    else:
        first = _ascii(person["first_name"]).lower().replace("-", "")
        last = _ascii(person["last_name"]).lower()
        handle = rng.choice(
            (f"{first}.{last}", f"{first[0]}{last}", f"{first}{last}{rng.randint(2, 99)}")
        )
        email = f"{handle}@{rng.choice(('example.com', 'example.net', 'example.org'))}"
    return {"phone": _phone(rng, city), "email": email}


def _insurance(rng: random.Random, age: int, state: str) -> dict[str, str] | None:
    if age >= 65:
        provider, plan = rng.choice(catalog.MEDICARE_PLANS)
        member_id = _medicare_id(rng) if provider == "Medicare" else _member_id(rng, provider[:1])
        return {"provider": provider, "plan": plan, "member_id": member_id}
    roll = rng.random()
    if roll < 0.07:
        return None
    if roll < 0.22:
        name = catalog.MEDICAID_NAMES.get(state, f"{state} Medicaid")
        return {"provider": name, "plan": "Managed care", "member_id": _member_id(rng, "")}
    if state in catalog.KAISER_STATES and rng.random() < 0.25:
        return {
            "provider": "Kaiser Permanente",
            "plan": "HMO Silver 70",
            "member_id": _member_id(rng, ""),
        }
    provider, plan, prefix = rng.choice(catalog.COMMERCIAL_PLANS)
    return {"provider": provider, "plan": plan, "member_id": _member_id(rng, prefix)}


def _member_id(rng: random.Random, prefix: str) -> str:
    return prefix + "".join(rng.choice(string.digits) for _ in range(9))


def _medicare_id(rng: random.Random) -> str:
    """A Medicare Beneficiary Identifier in CMS's 11-character format, e.g. 1EG4-TE5-MK73."""
    letters = "ACDEFGHJKMNPQRTUVWXY"  # no S, L, O, I, B, Z
    either = letters + string.digits
    pattern = (
        "123456789",
        letters,
        either,
        string.digits,
        letters,
        either,
        string.digits,
        letters,
        letters,
        string.digits,
        string.digits,
    )
    raw = "".join(rng.choice(chars) for chars in pattern)
    return f"{raw[:4]}-{raw[4:7]}-{raw[7:]}"


def _pharmacy(rng: random.Random, city: City, exclude: dict[str, str] | None) -> dict[str, str]:
    regional = [
        name for name, states in catalog.REGIONAL_PHARMACIES.items() if city.state in states
    ]
    while True:
        if rng.random() < 0.15:
            fmt = rng.choice(catalog.INDEPENDENT_PHARMACY_FORMATS)
            pool = catalog.NAME_POOLS[weighted_choice(rng, catalog.NAME_POOL_WEIGHTS)]
            street_word = rng.choice(("Main", "Market", "Church", "Broad"))
            name = fmt.format(
                surname=rng.choice(pool.surnames), street_word=street_word, city=city.name
            )
            street_name = (
                f"{street_word} St" if "{street_word}" in fmt else rng.choice(catalog.STREETS)
            )
        else:
            name = rng.choice(catalog.NATIONAL_PHARMACIES + tuple(regional))
            street_name = rng.choice(catalog.STREETS)
        street = f"{rng.randint(100, 8999)} {street_name}"
        pharmacy = {
            "name": name,
            "address": f"{street}, {city.name}, {city.state} {city.zip}",
            "phone": _phone(rng, city),
        }
        if not exclude or (pharmacy["name"], pharmacy["address"]) != (
            exclude["name"],
            exclude["address"],
        ):
            return pharmacy


def _pregnancy_weeks(rng: random.Random, conditions: list[str]) -> int:
    if catalog.PREGNANCY not in conditions:
        return 0
    if "gestational diabetes" in conditions:
        return rng.randint(26, 35)  # it is found on the 24–28 week screen
    return rng.randint(10, 34)


# --------------------------------------------------------------------------------------------
# The chart
# --------------------------------------------------------------------------------------------


def _allergies(rng: random.Random) -> list[str]:
    count = rng.choices((0, 1, 2), weights=(55, 33, 12))[0]
    names = list(catalog.ALLERGIES)
    weights = [catalog.ALLERGIES[n][0] for n in names]
    chosen: list[str] = []
    while len(chosen) < count:
        pick = rng.choices(names, weights=weights)[0]
        if pick not in chosen:
            chosen.append(pick)
    return chosen


def _prescriber(ctx: Ctx, regimen: Regimen) -> str:
    condition = next((c for c in ctx.conditions if regimen in c.regimens), ctx.primary)
    by_pcp = condition.name in PCP_MANAGED and ctx.rng.random() < 0.75
    if by_pcp or condition.specialty in catalog.PCP_SPECIALTIES:
        return ctx.pcp["name"]
    return ctx.specialist_for(condition.specialty)


def _med_record(
    rng: random.Random, regimen: Regimen, today: date, prescriber: str, status: str
) -> dict[str, Any]:
    info = catalog.drug(regimen.drug)
    if status == "discontinued":
        refills, days_ago = 0, rng.randint(60, 300)
    else:
        refills = rng.choices((0, 1, 2, 3, 5, 11), weights=(3, 3, 2, 2, 1, 1))[0]
        days_ago = rng.randint(15, 150) if info.as_needed else rng.randint(3, 40)
        if status == "paused":
            days_ago = rng.randint(40, 120)
    if info.controlled == "II":
        refills = 0  # federal law: no refills on schedule II
    elif info.controlled:
        refills = min(refills, 5)
    return {
        "name": regimen.drug,
        "dosage": regimen.dosage,
        "frequency": regimen.frequency,
        "status": status,
        "refills_left": refills,
        "last_fill": (today - timedelta(days=days_ago)).isoformat(),
        "prescriber": prescriber,
    }


def _ranked_sample(rng: random.Random, regimens: tuple[Regimen, ...]) -> list[Regimen]:
    """All regimens in a random order that favours the commonest (listed first)."""
    keyed = [(rng.random() ** (index + 1), r) for index, r in enumerate(regimens)]
    return [r for _, r in sorted(keyed, key=lambda pair: pair[0], reverse=True)]


def _medications(ctx: Ctx) -> list[dict[str, Any]]:
    rng, age = ctx.rng, ctx.attrs["age"]
    names = [c.name for c in ctx.conditions]
    meds: list[dict[str, Any]] = []
    for index, condition in enumerate(ctx.conditions):
        wanted = max(condition.core, rng.choice((1, 2, 2, 3) if index == 0 else (1, 1, 2)))
        added = 0
        core = list(condition.regimens[: condition.core])
        for regimen in core + _ranked_sample(rng, condition.regimens[condition.core :]):
            if added == wanted:
                break
            chart = [m["name"] for m in meds if m["status"] == "active"]
            if any(m["name"] == regimen.drug for m in meds):
                continue
            if catalog.fits_chart(regimen.drug, chart, names, ctx.allergies, age):
                meds.append(ctx.make_med(regimen))
                added += 1
                _maybe_switch_history(ctx, condition, regimen, meds)
    _maybe_pause_one(ctx, meds)
    return meds


def _maybe_switch_history(
    ctx: Ctx, condition: Condition, current: Regimen, meds: list[dict[str, Any]]
) -> None:
    """Sometimes the chart still lists the medicine this one replaced, as discontinued."""
    if ctx.rng.random() >= SWITCH_HISTORY_SHARE:
        return
    group = next((g for g in catalog.THERAPEUTIC_GROUPS if current.drug in g), None)
    older = [r for r in condition.regimens if group and r.drug in group and r.drug != current.drug]
    older = [r for r in older if not any(m["name"] == r.drug for m in meds)]
    if older:
        regimen = ctx.pick(older)
        meds.append(
            _med_record(ctx.rng, regimen, ctx.today, _prescriber(ctx, regimen), "discontinued")
        )


def _maybe_pause_one(ctx: Ctx, meds: list[dict[str, Any]]) -> None:
    active = [m for m in meds if m["status"] == "active"]
    if len(active) > 1 and ctx.rng.random() < MED_PAUSED_SHARE * len(active):
        paused = ctx.pick(active[1:])  # never the first: the primary condition keeps its treatment
        paused["status"] = "paused"


def _add_routine_appointment(ctx: Ctx) -> None:
    condition = ctx.pick(ctx.conditions)
    day, time = ctx.slot(avoid={date.fromisoformat(a["date"]) for a in ctx.appointments})
    kind = "telehealth" if ctx.attrs["care_preference"] == "remote" else "in_person"
    reason = ctx.pick(
        (f"follow-up for {condition.name}", "annual physical", "lab review", "medication check")
    )
    ctx.appointments.append(
        {"doctor": ctx.pcp["name"], "date": day, "time": time, "type": kind, "reason": reason}
    )


def _profile(ctx: Ctx) -> dict[str, Any]:
    person = ctx.person
    return {
        "patient_id": f"P-{ctx.rng.randint(10000, 99999)}",
        "name": person["name"],
        "preferred_name": person["preferred_name"],
        "date_of_birth": person["date_of_birth"],
        "sex": ctx.attrs["sex"],
        "pronouns": person["pronouns"],
        "contact": person["contact"],
        "address": ctx.address,
        "insurance": ctx.insurance,
        "pharmacy": ctx.pharmacy,
        "pcp": ctx.pcp,
        "medications": ctx.meds,
        "allergies": ctx.allergies,
        "problems": [c.name for c in ctx.conditions],
        "appointments": sorted(ctx.appointments, key=lambda a: (a["date"], a["time"])),
    }
