"""Workflows for the patient's record: the PCP, the pharmacy, and questions about insurance.

A change is made only to something the patient named or chose; insurance questions get what
the record shows and where the rest can be confirmed, never a booking.
"""

from __future__ import annotations

import re
from typing import Any

from ..plans import Observations, Step, TaskPlan
from .booking import specialty_fits
from .informational import informational
from .notes import follow_up_note
from .reading import last_name, pharmacy_in, specialty_in
from .speech import joined, plain_error
from .turn import (
    ASK_PHARMACY,
    OFFER_CALL,
    OFFER_LOOK_AGAIN,
    OFFER_MESSAGE,
    Turn,
    doctors_listed,
    latest,
    pcp,
    profile,
    same_id,
)


def change_pcp(turn: Turn) -> TaskPlan:
    def wanted_specialty() -> str:
        named = specialty_in(turn.patient_text)
        pcp_kinds = ("Family Medicine", "Internal Medicine", "Geriatric Medicine")
        return named if named in pcp_kinds else "primary care"

    def find(obs: Observations) -> list[Step]:
        """List the doctors once; again only when the patient says yes to looking again
        and nothing fitting was found."""
        listed = any(r.name == "list_doctors" and r.ok for r in turn.conversation.earlier)
        looking_again = turn.offered_last(OFFER_LOOK_AGAIN) and turn.agrees
        if listed and (choice(obs) is not None or not looking_again):
            return []
        if obs.successful("update_pcp"):
            return []
        return [Step("list_doctors", {"specialty": wanted_specialty()})]

    def choice(obs: Observations) -> dict[str, Any] | None:
        current = (pcp(obs) or {}).get("id")
        options = [
            d
            for d in doctors_listed(obs)
            if d.get("can_be_primary_care")
            and d["accepts_new_patients"]
            and not same_id(d["id"], current)
            and specialty_fits(d, wanted_specialty())
        ]
        named = [d for d in options if last_name(d["name"]) in turn.patient_text.lower()]
        return (named or options or [None])[0]

    def update(obs: Observations) -> list[Step]:
        doctor = choice(obs)
        if doctor is None or obs.successful("update_pcp") or turn.new_failures(obs, "update_pcp"):
            return []
        return [Step("update_pcp", {"doctor_id": doctor["id"]})]

    def reply(obs: Observations) -> str:
        done = latest(obs, "update_pcp")
        if done:
            new = done.get("pcp") or {}
            office = (new.get("office") or {}).get("name", "")
            return (
                f"I've changed your primary care physician to {new.get('name')} "
                f"({new.get('specialty')}){' at ' + office if office else ''}."
            )
        failures = turn.new_failures(obs, "update_pcp")
        if failures:
            return f"I couldn't change your primary care doctor - {plain_error(failures[-1])}."
        found = choice(obs)
        if found:
            return (
                f"{found['name']} ({found.get('specialty')}) is accepting new patients. Would you "
                "like me to make them your primary care doctor?"
            )
        wanted = wanted_specialty()
        who = "primary care doctor" if wanted == "primary care" else f"{wanted} doctor"
        if turn.asked(OFFER_LOOK_AGAIN):
            return (
                f"I'm sorry, I still can't find a {who} who is accepting new patients. "
                f"{OFFER_CALL} with our staff to look at other options?"
            )
        return f"I couldn't find a {who} who is accepting new patients. {OFFER_LOOK_AGAIN}?"

    entries = [*turn.first_time("get_profile"), find, update]
    return TaskPlan(entries, reply)


def update_pharmacy(turn: Turn) -> TaskPlan:
    def found(obs: Observations) -> dict[str, str] | None:
        return pharmacy_in(turn.patient_text, profile(obs).get("pharmacy"))

    def update(obs: Observations) -> list[Step]:
        pharmacy = found(obs)
        if not pharmacy or obs.successful("update_pharmacy"):
            return []
        if turn.new_failures(obs, "update_pharmacy"):
            return []
        return [Step("update_pharmacy", pharmacy)]

    def reply(obs: Observations) -> str:
        done = latest(obs, "update_pharmacy")
        if done:
            new = done.get("pharmacy") or {}
            return f"I've updated your pharmacy to {new.get('name')} ({new.get('address')})."
        failures = turn.new_failures(obs, "update_pharmacy")
        if failures:
            return f"I couldn't update the pharmacy - {plain_error(failures[-1])}."
        return f"I can update that for you. What's the {ASK_PHARMACY} you'd like to use?"

    return TaskPlan([*turn.first_time("get_profile"), update], reply)


def insurance_question(turn: Turn) -> TaskPlan:
    """What the record says about coverage, how to check the rest, and - for a referral - an
    offer to ask the PCP for one. Never books anything."""
    text = turn.first.lower()
    referral_wanted = "referral" in text
    specialty = specialty_in(turn.first)

    def record(obs: Observations) -> str:
        insurance = profile(obs).get("insurance")
        if not insurance:
            return "I don't see any insurance on your record."
        plan = f" ({insurance.get('plan')})" if insurance.get("plan") else ""
        return (
            f"Your record shows {insurance.get('provider')}{plan}, member ID "
            f"{insurance.get('member_id')}."
        )

    def answer(obs: Observations) -> str:
        insurance = profile(obs).get("insurance") or {}
        insurer = insurance.get("provider") or "your insurer"
        if not insurance:
            return (
                "The cost of a self-pay visit depends on the kind of visit, and our billing "
                "office can give you an exact price - many clinics also offer a self-pay "
                "discount. If you have new coverage, you can send me the card details and I'll "
                "add them."
            )
        if referral_wanted:
            who = f" for {specialty.lower()}" if specialty else ""
            return (
                "Whether you need a referral depends on your plan type: HMO and local-network "
                "plans usually require one from your primary care doctor, while PPO plans "
                f"often don't. {insurer}'s member services number on the back of your card "
                f"can confirm it{who}."
            )
        if re.search(r"on file|switched|new card|changed plans", text):
            return (
                "If you've switched plans, you can send me the new insurer, plan name and "
                "member ID, and I'll update your record before your next visit."
            )
        return (
            "Coverage and any copay depend on your plan's benefits, so the member services "
            f"number on the back of your {insurer} card, or their website, can confirm exactly "
            "what's covered."
        )

    def first(obs: Observations) -> str:
        doctor = pcp(obs)
        offer = (
            f"{OFFER_MESSAGE} {doctor['name']} to ask for a referral, just in case?"
            if referral_wanted and doctor
            else ""
        )
        return joined(record(obs), answer(obs), offer)

    def more(obs: Observations) -> str:
        insurance = profile(obs).get("insurance") or {}
        insurer = insurance.get("provider") or "your insurer"
        return (
            f"I'm sorry I can't give you a definite answer from here - only {insurer} can "
            "confirm what your plan covers, and a quick call to their member services line is "
            "the surest way. It helps to have your member ID ready."
        )

    if referral_wanted:
        return informational(
            turn,
            first,
            more,
            "",
            "They can send it if you need one.",
            f"Referral request: {specialty or 'specialist'} (insurance requires one)",
            door="If you change your mind, I can ask {doctor} for the referral any time.",
            answered_first=True,
            sent_what="your referral request",
            intros=(),
        )

    # Nothing to send: a question asked again gets how to check, then where else to ask.
    def reply(obs: Observations) -> str:
        if turn.user_turn == 1:
            return first(obs)
        answer_now = follow_up_note(turn)
        if turn.user_turn == 2:
            return joined(answer_now, more(obs))
        return joined(
            answer_now,
            "I'm sorry I can't check your benefits myself. Our front desk can also look into it "
            "when you call the office, and they can tell you what the visit would cost.",
        )

    return TaskPlan([*turn.first_time("get_profile")], reply)
