"""Answers from the patient's record: who it is, its coverage, pharmacy and medicines.

Plain data the patient looks up or recites, in its persona's style: a terse patient gives
bare values, a patient with low health literacy names medicines by what they are for, and a
confused one may mix a name up and correct itself.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from ..speech import and_list
from . import phrases
from .needs import find_medication, pharmacy_words
from .reply import Reply
from .wording import capitalize_first, ordinal, phone_words


def identity_answer(reply: Reply, kinds: list[str]) -> str:
    if reply.state.challenges < 2 and reply.chance(reply.persona.challenge_rate):
        reply.remember(challenges=reply.state.challenges + 1)
        reply.data_first = False  # no "Sure." before "Why do you need that?"
        return reply.say(phrases.CHALLENGES["identity"]) + " " + identity_text(reply, kinds)
    return identity_text(reply, kinds)


def identity_text(reply: Reply, kinds: list[str]) -> str:
    name = reply.profile.get("name", "")
    dob = dob_words(reply)
    contact = reply.profile.get("contact") or {}
    phone = phone_words(contact.get("phone", ""))
    address = reply.profile.get("address") or {}
    street = ", ".join(p for p in (address.get("street"), address.get("city")) if p)
    if reply.persona.brief:
        short = {
            "name": name,
            "dob": dob,
            "phone": phone,
            "email": contact.get("email", ""),
            "address": street,
        }
        return ", ".join(short[k] for k in kinds if short[k])
    long = {
        "name": f"it's {name}",
        "dob": f"my date of birth is {dob}" if len(kinds) == 1 else f"born {dob}",
        "phone": f"my number is {phone}",
        "email": f"my email is {contact.get('email', '')}",
        "address": f"I live at {street}",
    }
    if kinds == ["dob"]:
        return capitalize_first(
            reply.habits.choice([f"{dob}.", f"It's {dob}.", f"My date of birth is {dob}."])
        )
    return capitalize_first(", ".join(long[k] for k in kinds)) + "."


def dob_words(reply: Reply) -> str:
    try:
        born = date.fromisoformat(reply.profile.get("date_of_birth", ""))
    except (TypeError, ValueError):
        return reply.profile.get("date_of_birth", "")
    if reply.persona.brief:
        return reply.habits.choice(
            [
                f"{born.month}/{born.day}/{born.year % 100:02d}",
                f"{born.month}/{born.day}/{born.year}",
            ]
        )
    return reply.habits.choice(
        [
            f"{born.strftime('%B')} {born.day}, {born.year}",
            f"{born.strftime('%B')} {ordinal(born.day)}, {born.year}",
            f"{born.month}/{born.day}/{born.year}",
            f"{born.month:02d}/{born.day:02d}/{born.year}",
        ]
    )


def about_insurance(reply: Reply) -> str:
    insurance = reply.profile.get("insurance")
    if not insurance:
        return "I don't have insurance right now."
    member = insurance.get("member_id", "")
    if reply.persona.brief:
        return f"{insurance.get('provider', '')}, {member}".strip(", ")
    plan = f" {insurance['plan']}" if insurance.get("plan") else ""
    return f"I have {insurance.get('provider', '')}{plan}. Member ID is {member}."


def about_pharmacy(reply: Reply) -> str:
    if reply.subtask == "update_pharmacy" and reply.details.get("pharmacy"):
        new = pharmacy_words(reply.details["pharmacy"])
        return new + "." if reply.persona.brief else f"I want to use {new} from now on."
    current = pharmacy_words(reply.profile.get("pharmacy"))
    if not current:
        city = (reply.profile.get("address") or {}).get("city", "my house")
        return f"I don't think I have one on file. Whichever is closest to {city} is fine."
    return capitalize_first(current) + "." if reply.persona.brief else f"I use {current}."


def about_medication(reply: Reply) -> str:
    wanted = reply.details.get("medication") or reply.details.get("supplement")
    if not wanted:
        return about_current_medications(reply)
    medication = find_medication(reply.case, wanted)
    name = str(medication.get("name", wanted))
    if reply.persona.lay_terms and name.lower() not in reply.state.lay_named:
        lay = phrases.LAY_MEDICATIONS.get(name.lower())
        if lay:
            reply.remember(lay_named=reply.state.lay_named | {name.lower()})
            return capitalize_first(f"it's {lay}. I'm not sure how you say the name.")
    spoken = reply.maybe_mix_up(name, confusable_medication(reply, name))
    if reply.persona.brief:
        return " ".join(p for p in (spoken, str(medication.get("dosage", ""))) if p)
    dosage = dosage_words(reply, medication)
    return capitalize_first(f"it's {spoken}" + (f", {dosage}" if dosage else "") + ".")


def confusable_medication(reply: Reply, name: str) -> str | None:
    if name.lower() in phrases.SOUND_ALIKES:
        return phrases.SOUND_ALIKES[name.lower()]
    others = [
        str(m.get("name"))
        for m in reply.profile.get("medications") or []
        if m.get("name") and str(m.get("name")).lower() != name.lower()
    ]
    return others[0] if others else None


def dosage_words(reply: Reply, medication: dict[str, Any]) -> str:
    dosage = str(medication.get("dosage", ""))
    frequency = str(medication.get("frequency", ""))
    frequency = phrases.FREQUENCIES.get(frequency.lower(), frequency)
    return " ".join(p for p in (dosage, frequency) if p)


def dose_words(reply: Reply) -> list[str]:
    wanted = reply.details.get("medication")
    dosage = find_medication(reply.case, wanted).get("dosage") if wanted else None
    return [dosage] if dosage else []


def about_dosage(reply: Reply) -> str:
    wanted = reply.details.get("medication")
    medication = find_medication(reply.case, wanted) if wanted else {}
    words = dosage_words(reply, medication)
    if not words:
        return reply.say(phrases.DONT_KNOW)
    if reply.persona.brief:
        return words
    return reply.hedged(f"I take {words}.")


def about_current_medications(reply: Reply) -> str:
    active = [
        m for m in reply.profile.get("medications") or [] if m.get("status", "active") == "active"
    ]
    if not active:
        return "I'm not on anything right now."
    if reply.persona.lay_terms:
        kinds = list(
            dict.fromkeys(
                phrases.LAY_MEDICATIONS.get(str(m.get("name", "")).lower(), "") for m in active
            )
        )
        kinds = [k.replace("my ", "a ", 1) for k in kinds if k]
        if kinds:
            return f"I take {and_list(kinds)}. I'd have to look at the bottles for the names."
    listed = [f"{m.get('name', '')} {m.get('dosage', '')}".strip() for m in active]
    if reply.persona.brief:
        return ", ".join(listed)
    return f"I take {and_list(listed)}."


def about_allergies(reply: Reply) -> str:
    allergies = reply.profile.get("allergies") or []
    if not allergies:
        return "no allergies" if reply.persona.brief else "No allergies that I know of."
    return and_list(allergies) if reply.persona.brief else f"I'm allergic to {and_list(allergies)}."


def about_conditions(reply: Reply) -> str:
    problems = list(
        reply.profile.get("problems") or reply.case.get("attributes", {}).get("conditions") or []
    )
    if reply.persona.lay_terms:
        problems = [phrases.LAY_CONDITIONS.get(p.lower(), p) for p in problems]
    if not problems:
        return "Nothing major."
    return and_list(problems) if reply.persona.brief else f"I have {and_list(problems)}."


def about_supplement(reply: Reply) -> str:
    supplement = reply.details.get("supplement", "")
    return f"It's {supplement}." if supplement else reply.say(phrases.DONT_KNOW)
