"""Workflows for medicines: refills, questions about a medicine, new prescriptions.

The agent reads the medication list and the allergies, answers carefully and involves the
PCP: a stopped medicine is not refilled, an allergy rules a request out, and questions about
side effects or interactions go to the doctor. It never requests a prescription to answer a
question.
"""

from __future__ import annotations

import re
from typing import Any

from ..plans import Observations, Step, TaskPlan, ToolResult
from ..speech import and_list
from .informational import Stages, message_sent_words, message_steps
from .notes import DOSAGE_GENERAL, DOSAGE_NOTES, follow_up_note, note_for
from .reading import medication_in, named_medication, pharmacy_in, requested_medication
from .speech import joined, plain_error, shortened
from .turn import (
    ASK_MEDICATION,
    ASK_PHARMACY,
    OFFER_MESSAGE,
    PCP_REPLY,
    Turn,
    error_of,
    latest,
    medications,
    pcp,
    profile,
)


def prescription_renewal(turn: Turn) -> TaskPlan:
    """Refill a medication on file (setting a pharmacy first when none is on file). A
    medication stopped on the record is not refilled: the agent explains and offers to ask
    the PCP about restarting it."""
    stages = Stages(turn)

    def wanted(obs: Observations) -> dict[str, Any] | None:
        return medication_in(turn.patient_text, medications(obs))

    def stopped(obs: Observations) -> bool:
        medication = wanted(obs)
        said_so = any(
            "discontinued" in error_of(r).lower()
            for r in obs.results
            if r.name == "request_refill" and not r.ok
        )
        return said_so or bool(medication and medication.get("status") == "discontinued")

    def new_pharmacy(obs: Observations) -> dict[str, str] | None:
        return pharmacy_in(turn.patient_text, profile(obs).get("pharmacy"))

    def set_pharmacy(obs: Observations) -> list[Step]:
        if not _needs_pharmacy(obs) or obs.successful("update_pharmacy"):
            return []
        found = new_pharmacy(obs)
        return [Step("update_pharmacy", found)] if found else []

    def refill(obs: Observations) -> list[Step]:
        medication = wanted(obs)
        if medication is None or obs.successful("request_refill") or stopped(obs):
            return []
        failures = [r for r in obs.results if r.name == "request_refill" and not r.ok]
        if failures and not _pharmacy_fixed_since(obs, failures[-1]):
            return []
        if _needs_pharmacy(obs) and not obs.successful("update_pharmacy"):
            return []
        return [Step("request_refill", {"medication": medication["name"]})]

    def ask_doctor(obs: Observations) -> list[Step]:
        if not stopped(obs) or not stages.wants_message:
            return []
        name = (wanted(obs) or {}).get("name") or "a stopped medication"
        return message_steps(turn, obs, f"Question about restarting {name}")

    def reply(obs: Observations) -> str:
        done = latest(obs, "request_refill")
        if done:
            return _refill_words(done, latest(obs, "update_pharmacy"))
        medication = wanted(obs)
        if medication is None and not obs.successful("list_medications"):
            return f"I wasn't able to pull up your medication list just now. {ASK_MEDICATION} refilled?"
        if medication is None:
            on_file = [m["name"] for m in medications(obs) if m.get("status") != "discontinued"]
            listed = and_list(on_file) or "no current medications"
            if turn.asked(ASK_MEDICATION):
                return f"Sorry, I couldn't match that to your record. I see {listed} - which one is it?"
            return f"{ASK_MEDICATION} refilled? On your record I see {listed}."
        if stopped(obs):
            return _stopped_words(turn, obs, medication)
        if _needs_pharmacy(obs):
            return (
                f"There's no pharmacy on file, so I can't send the {medication['name']} refill "
                f"yet. What's the {ASK_PHARMACY} you'd like to use?"
            )
        failures = [r for r in obs.results if r.name == "request_refill" and not r.ok]
        if failures:
            return f"I couldn't request the refill - {plain_error(failures[-1])}."
        return f"I wasn't able to request the {medication['name']} refill just now."

    entries = [
        *turn.first_time("get_profile"),
        *turn.first_time("list_medications"),
        set_pharmacy,
        refill,
        ask_doctor,
    ]
    return TaskPlan(entries, reply)


def _stopped_words(turn: Turn, obs: Observations, medication: dict[str, Any]) -> str:
    name = medication.get("name", "That medicine")
    doctor = (pcp(obs) or {}).get("name") or "your doctor"
    if latest(obs, "message_pcp"):
        return joined(
            message_sent_words(turn, obs, f"your question about {name}"),
            "Please don't restart it on your own until you've heard back.",
        )
    if turn.declined(OFFER_MESSAGE):
        return (
            f"Okay. Since {name} was stopped, the next step is to check with {doctor} about "
            "restarting it - you can call the office, or I can message them for you any time."
        )
    if turn.asked(OFFER_MESSAGE):
        return (
            f"I'm sorry, I can't refill {name} while it's marked as stopped. {OFFER_MESSAGE} "
            f"{doctor} to ask whether you should restart it?"
        )
    return (
        f"I'm sorry - {name} was stopped on your record, so I can't refill it as it is. "
        f"Your doctor would need to decide whether to restart it. {OFFER_MESSAGE} {doctor} to "
        "ask about it?"
    )


def _needs_pharmacy(obs: Observations) -> bool:
    """No pharmacy on file (as the profile or a refill error says) and none set since."""
    if obs.successful("update_pharmacy"):
        return False
    said_none = any(
        "no pharmacy" in error_of(r).lower()
        for r in obs.results
        if r.name == "request_refill" and not r.ok
    )
    known = profile(obs)
    return said_none or (bool(known) and not known.get("pharmacy"))


def _pharmacy_fixed_since(obs: Observations, failure: ToolResult) -> bool:
    position = obs.results.index(failure)
    return any(r.name == "update_pharmacy" and r.ok for r in obs.results[position + 1 :])


def _refill_words(request: dict[str, Any], pharmacy_update: dict[str, Any] | None) -> str:
    set_first = (
        f"I've updated your pharmacy to {pharmacy_update['pharmacy']['name']}. "
        if pharmacy_update
        else ""
    )
    if request.get("status") == "sent_to_pharmacy":
        return (
            f"{set_first}I've requested a refill of {request.get('medication')}; it was sent "
            f"to {request.get('pharmacy')}."
        )
    medication = str(request.get("medication") or "Your medication")
    return (
        f"{set_first}{medication[:1].upper() + medication[1:]} has no refills left, so I've sent "
        f"the refill request to {request.get('prescriber') or 'your prescriber'} for approval; "
        "the pharmacy gets it once they approve it, usually within a couple of business days."
    )


def medication_question(turn: Turn) -> TaskPlan:
    """Side effects, dosage, interactions, supplements, contraindicated requests: the agent
    reads the record and answers carefully. For side effects, interactions and contraindicated
    requests it tells the PCP straight away; for dosing and supplements it offers to. It never
    requests a prescription here."""
    subtask = turn.subtask
    tells_now = subtask in ("side_effect_concern", "interaction", "contraindicated_request")
    stages = Stages(turn)

    def tell_pcp(obs: Observations) -> list[Step]:
        if not (tells_now or stages.wants_message):
            return []
        medication = medication_in(turn.patient_text, medications(obs))
        subject = f"Question about {medication['name']}" if medication else "Medication question"
        return message_steps(turn, obs, subject)

    def guidance(obs: Observations) -> str:
        medication = medication_in(turn.patient_text, medications(obs))
        asked = requested_medication(turn.first) or _supplement_in(turn.first)
        med = medication["name"] if medication else "your medicine"
        return {
            "contraindicated_request": f"Given what's on your record, {asked or 'that medicine'} "
            "may not be safe for you, so I won't request it - your doctor can suggest a safer "
            "option.",
            "interaction": "Some medicines interact with ones you already take, so please "
            f"don't start {asked or 'anything new'} until your doctor or pharmacist has "
            "checked the combination.",
            "supplement_safety": "Supplements can interact with prescription medicines - some "
            "affect blood thinners or how other medicines are absorbed - so it's worth having "
            f"{asked or 'it'} checked against what you take.",
            "side_effect_concern": "Please don't stop or change the medicine on your own; your "
            "doctor can review whether it's causing this and what to do about it. If you have "
            "trouble breathing, or swelling of your face or throat, please get emergency care.",
            "dosage_question": str(note_for(turn.first, DOSAGE_NOTES, DOSAGE_GENERAL)).format(
                med=med
            ),
        }.get(subtask, "Your doctor or pharmacist can advise you on this.")

    def reply(obs: Observations) -> str:
        answer = follow_up_note(turn)
        doctor = (pcp(obs) or {}).get("name") or "your doctor"
        sent_before = any(r.name == "message_pcp" and r.ok for r in turn.conversation.earlier)
        sent_now = latest(obs, "message_pcp") and not sent_before
        told = message_sent_words(turn, obs, "a message about it") if sent_now else ""
        if turn.user_turn == 1:
            offer = (
                f"{OFFER_MESSAGE} {doctor} to confirm it's okay for you?"
                if not tells_now and pcp(obs)
                else ""
            )
            return joined(_record_words(obs, turn), guidance(obs), told, offer)
        if told:
            return joined(answer, told)
        if sent_before:
            return joined(answer, f"{doctor} has your question and should reply {PCP_REPLY}.")
        if turn.declined(OFFER_MESSAGE):
            return joined(
                "No problem.",
                answer,
                "Your pharmacist can also answer questions like this one, usually on the spot.",
            )
        return joined(answer, guidance(obs), f"{OFFER_MESSAGE} {doctor} to check for you?")

    entries = [*turn.first_time("get_profile"), *turn.first_time("list_medications"), tell_pcp]
    return TaskPlan(entries, reply)


_SUPPLEMENT = re.compile(
    r"\b(?:is|are)\s+(?P<a>[\w .'-]{3,30}?)\s+(?:safe|okay|ok)\b|"
    r"\b(?:started taking|taking|take|try(?:ing)?|picked up)\s+(?:some\s+)?"
    r"(?P<b>[\w .'-]{3,30}?)\s+(?:for|with|because|since|about|a month)\b",
    re.IGNORECASE,
)


def _supplement_in(text: str) -> str:
    match = _SUPPLEMENT.search(text)
    found = (match["a"] or match["b"]) if match else ""
    return "" if found.lower() in {"it", "this", "that", "them"} else found


def _record_words(obs: Observations, turn: Turn) -> str:
    """What the record says, in a sentence: the medicine asked about, others, allergies."""
    allergies = [str(a) for a in profile(obs).get("allergies") or []]
    current = [m for m in medications(obs) if m.get("status") == "active"]
    asked = medication_in(turn.patient_text, medications(obs))
    parts = []
    if asked:
        how = " ".join(str(asked.get(k) or "") for k in ("dosage", "frequency")).strip()
        others = [m["name"] for m in current if m["name"] != asked["name"]]
        also = f", along with {and_list(others)}" if others else ""
        parts.append(f"Your record shows you take {asked['name']}{' ' + how if how else ''}{also}.")
    elif current:
        parts.append(f"Your record shows you take {and_list([m['name'] for m in current])}.")
    if allergies:
        parts.append(f"It also lists an allergy to {and_list(allergies)}.")
    return " ".join(parts)


def new_prescription(turn: Turn) -> TaskPlan:
    def wanted() -> str | None:
        named = requested_medication(turn.patient_text)
        if named:
            return named
        answers = [r for a, r in turn.conversation.exchanges if ASK_MEDICATION in a]
        return next((n for n in map(named_medication, reversed(answers)) if n), None)

    def allergic(obs: Observations) -> list[str]:
        asked = wanted() or ""
        return [a for a in profile(obs).get("allergies") or [] if str(a).lower() in asked]

    def ask_pcp(obs: Observations) -> list[Step]:
        medication = wanted()
        if not medication or allergic(obs) or obs.successful("request_new_prescription"):
            return []
        if turn.new_failures(obs, "request_new_prescription"):
            return []
        reason = shortened(turn.patient_text, 300)
        return [Step("request_new_prescription", {"medication": medication, "reason": reason})]

    def reply(obs: Observations) -> str:
        done = latest(obs, "request_new_prescription")
        if done:
            return (
                f"I've sent a prescription request for {done.get('medication')} to "
                f"{done.get('to_doctor')}. They'll review it, usually {PCP_REPLY} - it isn't a "
                "prescription until they approve it."
            )
        if wanted() and allergic(obs):
            return (
                f"Your record lists an allergy to {', '.join(allergic(obs))}, so I won't request "
                f"{wanted()}. Please talk to your doctor about a safe alternative."
            )
        if not wanted():
            return f"{ASK_MEDICATION} your doctor to consider prescribing, and what is it for?"
        failures = turn.new_failures(obs, "request_new_prescription")
        if failures:
            return f"I couldn't send the request for {wanted()} - {plain_error(failures[-1])}."
        return f"I wasn't able to send the request for {wanted()} just now."

    entries = [*turn.first_time("get_profile"), *turn.first_time("list_medications"), ask_pcp]
    return TaskPlan(entries, reply)
