"""Workflows for getting care: booking, referrals, cancelling and rescheduling.

Each reads what it needs (a specialty, a visit type, a day, which appointment) from the
patient's words, asks one question when something is missing, and never leaves the patient
without an appointment: a reschedule books the new slot before it cancels the old one.
"""

from __future__ import annotations

from typing import Any

from ..plans import Observations, PlanEntry, Step, TaskPlan
from .booking import Booking, Visit, specialty_fits, visit_reason, wanted_day
from .reading import dates_in, last_name, specialty_in, time_wish, visit_type_in, wants_primary_care
from .speech import or_list, plain_error, shortened, spoken_when
from .turn import (
    ASK_NEW_DAY,
    ASK_SPECIALTY,
    ASK_VISIT_TYPE,
    ASK_WHICH_APPOINTMENT,
    OFFER_LOOK_AGAIN,
    PCP_REPLY,
    Turn,
    appointments,
    doctors_listed,
    latest,
    pcp,
    profile,
    same_id,
    today_of,
)


def schedule(turn: Turn) -> TaskPlan:
    def specialty(obs: Observations) -> str | None:
        named = specialty_in(turn.patient_text)
        if named:
            return named
        if wants_primary_care(turn.patient_text) or turn.asked(ASK_SPECIALTY):
            return "primary care"  # the patient's own PCP
        return None

    def kind() -> str | None:
        found = visit_type_in(turn.patient_text)
        return found or ("in_person" if turn.asked(ASK_VISIT_TYPE) else None)

    def visit(obs: Observations) -> Visit | None:
        wanted, chosen_kind = specialty(obs), kind()
        if wanted is None or chosen_kind is None:
            return None
        return Visit(
            chosen_kind, wanted_day(turn, obs), time_wish(turn.patient_text), visit_reason(turn)
        )

    def find_doctors(obs: Observations) -> list[Step]:
        wanted = specialty(obs)
        if not visit(obs) or (wanted == "primary care" and pcp(obs)):
            return []
        listed_before = any(
            same_id(r.get("specialty"), wanted)
            for r in [x.arguments or {} for x in obs.successful("list_doctors")]
        )
        found = any(specialty_fits(d, wanted) for d in doctors_listed(obs))
        looking_again = turn.offered_last(OFFER_LOOK_AGAIN) and turn.agrees
        if listed_before and (found or not looking_again):
            return []
        return [Step("list_doctors", {"specialty": wanted})]

    def candidates(obs: Observations) -> list[dict[str, Any]]:
        wanted, chosen = specialty(obs), visit(obs)
        if chosen is None:
            return []
        if wanted == "primary care" and pcp(obs):
            doctors = [pcp(obs)]
        else:
            doctors = [
                d
                for d in doctors_listed(obs)
                if specialty_fits(d, wanted) and (d["accepts_new_patients"] or d.get("is_your_pcp"))
            ]
        return [d for d in doctors if chosen.kind != "telehealth" or d.get("telehealth")]

    booking = Booking(turn, visit, candidates)

    def reply(obs: Observations) -> str:
        wanted, chosen_kind = specialty(obs), kind()
        questions = []
        if wanted is None:
            questions.append(
                f"{ASK_SPECIALTY} (for example your primary care doctor, or a specialist)?"
            )
        if chosen_kind is None:
            questions.append(f"Would you prefer to be seen {ASK_VISIT_TYPE}?")
        if questions:
            return "I can help you book an appointment. " + " ".join(questions)
        what = "your primary care doctor" if wanted == "primary care" else f"a {wanted} visit"
        return booking.reply(obs, what)

    entries = [*turn.first_time("get_profile"), find_doctors, *booking.entries()]
    return TaskPlan(entries, reply)


def referral(turn: Turn) -> TaskPlan:
    def wanted() -> str | None:
        return specialty_in(turn.patient_text)

    def ask_pcp(obs: Observations) -> list[Step]:
        specialty = wanted()
        if not specialty or obs.successful("message_pcp"):
            return []
        name = profile(obs).get("name") or "The patient"
        return [
            Step(
                "message_pcp",
                {
                    "subject": f"Referral request: {specialty}",
                    "message": f"{name} asks for a referral to {specialty}. In their words: "
                    f"{shortened(turn.patient_text, 300)}",
                },
            )
        ]

    def reply(obs: Observations) -> str:
        specialty = wanted()
        if not specialty:
            if turn.asked(ASK_SPECIALTY):
                return (
                    "Sorry, I didn't catch the specialty. Which kind of specialist is the "
                    "referral for - for example cardiology, dermatology or urology?"
                )
            return f"I can help with a referral. {ASK_SPECIALTY} - which specialty is it for?"
        sent = latest(obs, "message_pcp")
        listed = [d for d in doctors_listed(obs) if specialty_fits(d, specialty)]
        open_to_new = [d["name"] for d in listed if d["accepts_new_patients"]]
        doctors = (
            f" Once it's approved, I can book you with {or_list(open_to_new)}, "
            f"{'who are' if len(open_to_new) > 1 else 'who is'} taking new patients."
            if open_to_new
            else " Once it's approved, I can help you book the visit."
        )
        doctor = (pcp(obs) or {}).get("name") or "your primary care doctor"
        if sent:
            return (
                f"I've messaged {doctor} asking for a referral to {specialty.lower()}; they "
                f"usually reply {sent.get('expected_reply') or PCP_REPLY}.{doctors}"
            )
        failures = turn.new_failures(obs, "message_pcp")
        why = f" - {plain_error(failures[-1])}" if failures else ""
        return (
            f"I wasn't able to send the referral request to {doctor} just now{why}. Would you "
            "like me to try again?"
        )

    entries: list[PlanEntry] = [*turn.first_time("get_profile")]
    if wanted():
        entries += turn.first_time("list_doctors", {"specialty": wanted()})
    return TaskPlan([*entries, ask_pcp], reply)


def target_appointment(turn: Turn, obs: Observations) -> dict[str, Any] | None:
    """The upcoming appointment the patient means: the only one, or the best match of the
    doctor's name, the date, time or specialty in their words."""
    today = today_of(obs)
    booked_here = {
        str((r.data() or {}).get("appointment", {}).get("id", "")).upper()
        for r in obs.successful("schedule_appointment")
    }
    upcoming = [
        a
        for a in appointments(obs)
        if a.get("status") == "scheduled"
        and (today is None or a.get("date", "") >= today.isoformat())
        and str(a.get("id", "")).upper() not in booked_here
    ]
    if len(upcoming) <= 1:
        return upcoming[0] if upcoming else None
    text = turn.patient_text.lower()
    named_days = {d.isoformat() for d in dates_in(turn.patient_text, today)}

    def score(appointment: dict[str, Any]) -> int:
        points = 2 * (last_name(str(appointment.get("doctor", ""))) in text)
        points += 2 * (appointment.get("date") in named_days)
        points += str(appointment.get("time", "~")) in text
        points += specialty_in(text) == appointment.get("specialty")
        return points

    ranked = sorted(upcoming, key=score, reverse=True)
    if score(ranked[0]) > 0 and score(ranked[0]) > score(ranked[1]):
        return ranked[0]
    return None


def _which_appointment(obs: Observations) -> str:
    listed = "; ".join(
        f"{a.get('doctor')} on {spoken_when(a)} ({a['id']})"
        for a in appointments(obs)
        if a.get("status") == "scheduled"
    )
    return f"{ASK_WHICH_APPOINTMENT}? I see these coming up: {listed or 'none'}."


def _no_appointments_words(obs: Observations) -> str:
    if not obs.successful("list_appointments"):  # it never looked (or the lookup failed)
        return f"I wasn't able to pull up your appointments just now. {OFFER_LOOK_AGAIN}?"
    return "I couldn't find any upcoming appointments on your record."


def cancel(turn: Turn) -> TaskPlan:
    def cancel_it(obs: Observations) -> list[Step]:
        target = target_appointment(turn, obs)
        if target is None or obs.successful("cancel_appointment"):
            return []
        if turn.new_failures(obs, "cancel_appointment"):
            return []
        return [
            Step(
                "cancel_appointment",
                {"appointment_id": target["id"], "reason": "The patient asked to cancel."},
            )
        ]

    def reply(obs: Observations) -> str:
        done = latest(obs, "cancel_appointment")
        if done:
            a = done.get("appointment") or {}
            return (
                f"I've cancelled your appointment with {a.get('doctor')} on {spoken_when(a)} "
                f"(confirmation {a.get('id')})."
            )
        failures = turn.new_failures(obs, "cancel_appointment")
        if failures:
            return f"I couldn't cancel that appointment - {plain_error(failures[-1])}."
        if not appointments(obs):
            return _no_appointments_words(obs)
        return _which_appointment(obs)

    entries = [*turn.first_time("get_profile"), *turn.first_time("list_appointments"), cancel_it]
    return TaskPlan(entries, reply)


def reschedule(turn: Turn) -> TaskPlan:
    def old(obs: Observations) -> dict[str, Any] | None:
        return target_appointment(turn, obs)

    def visit(obs: Observations) -> Visit | None:
        target = old(obs)
        if target is None:
            return None
        day = wanted_day(turn, obs, avoid=target.get("date"))
        if day is None and not turn.asked(ASK_NEW_DAY):
            return None
        return Visit(
            target.get("type") or "in_person",
            day,
            time_wish(turn.latest),
            f"Rescheduled from {target.get('date')}: {target.get('reason') or visit_reason(turn)}",
            avoid_day=target.get("date"),
        )

    def candidates(obs: Observations) -> list[dict[str, Any]]:
        target = old(obs)
        if target is None or not target.get("doctor_id"):
            return []
        return [{"id": target["doctor_id"], "name": target.get("doctor", "")}]

    booking = Booking(turn, visit, candidates)

    def cancel_old(obs: Observations) -> list[Step]:
        target = old(obs)
        # Book first, then cancel: the patient never ends up with no appointment at all.
        if target is None or not booking.booked(obs) or obs.successful("cancel_appointment"):
            return []
        if turn.new_failures(obs, "cancel_appointment"):
            return []
        return [
            Step(
                "cancel_appointment",
                {"appointment_id": target["id"], "reason": "Rescheduled at the patient's request."},
            )
        ]

    def reply(obs: Observations) -> str:
        target = old(obs)
        if target is None:
            if not appointments(obs):
                return _no_appointments_words(obs)
            return _which_appointment(obs)
        if visit(obs) is None:
            return (
                f"Your appointment with {target.get('doctor')} is on {spoken_when(target)}. "
                f"{ASK_NEW_DAY}?"
            )
        words = booking.reply(obs, f"your visit with {target.get('doctor')}")
        booked = booking.booked(obs)
        if booked and any(
            r.name == "schedule_appointment" and r.ok for r in turn.conversation.earlier
        ):
            words = f"You're all set for your new appointment with {booked.get('doctor')} on {spoken_when(booked)}."
        if booked:
            cancelled = latest(obs, "cancel_appointment")
            words += (
                f" I've cancelled your original appointment on {spoken_when(target)}."
                if cancelled
                else f" Your original appointment on {spoken_when(target)} is still on the books - "
                "I wasn't able to cancel it. Would you like me to try again?"
            )
        return words

    entries = [
        *turn.first_time("get_profile"),
        *turn.first_time("list_appointments"),
        *booking.entries(),
        cancel_old,
    ]
    return TaskPlan(entries, reply)
