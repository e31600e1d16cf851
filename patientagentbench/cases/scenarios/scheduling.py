"""Planners for getting care: booking, referrals, rescheduling and cancelling.

Existing appointments a reschedule or cancel refers to are put on the chart here.
"""

from __future__ import annotations

from datetime import date

from .. import catalog
from .context import SPECIALIST_NOUN, Ctx, Plan, pick_symptom
from .words import cap, date_words, ordinal, time_words


def _appointment_type(ctx: Ctx) -> str:
    preference = ctx.attrs["care_preference"]
    if preference == "remote":
        return "telehealth"
    if preference == "in_person":
        return "in_person"
    return "in_person" if ctx.rng.random() < 0.7 else "telehealth"


def _visit_words(kind: str) -> str:
    return "a video visit" if kind == "telehealth" else "an in-person appointment"


def plan_schedule(ctx: Ctx) -> Plan:
    condition, symptom = pick_symptom(ctx)
    specialty = ctx.pcp["specialty"] if ctx.rng.random() < 0.4 else condition.specialty
    kind = _appointment_type(ctx)
    wants_date = ctx.attrs["complexity"] == "infeasible" or ctx.rng.random() < 0.5
    preferred = ctx.pick(ctx.window_weekdays()).isoformat() if wants_date else ""
    doctor_words = (
        "my regular doctor" if specialty == ctx.pcp["specialty"] else SPECIALIST_NOUN[specialty]
    )
    when = f" on {date_words(preferred)}" if preferred else ""
    return Plan(
        summary=f"Book {_visit_words(kind)} with {specialty}"
        + (f" on {preferred}" if preferred else ""),
        details={"specialty": specialty, "appointment_type": kind, "preferred_date": preferred},
        ask=ctx.pick(
            (
                f"I'd like to book {_visit_words(kind)} with {doctor_words}{when}. I've been dealing with {symptom}.",
                f"Can I get {_visit_words(kind)} with {doctor_words}{when if when else ' soon'}? It's about {ctx.my_condition(condition)}.",
            )
        ),
        short=f"Need an appointment, {doctor_words}{when}.",
        story=[
            f"I've been dealing with {symptom} and want someone to look at it.",
            f"{date_words(preferred)} is the day that works best for me."
            if preferred
            else "Any day works as long as it's soon.",
        ],
        worry="I keep thinking it could be something serious.",
        doubt="Last time it took six weeks to get in, so I'm not holding my breath.",
    )


def plan_referral(ctx: Ctx) -> Plan:
    specialists = [c for c in ctx.conditions if c.specialty not in catalog.PCP_SPECIALTIES]
    condition = ctx.pick(specialists or ctx.conditions)
    specialty = condition.specialty if specialists else "Pulmonology"
    noun = SPECIALIST_NOUN[specialty]
    symptom = ctx.pick(condition.symptoms) if condition.symptoms else "things getting worse"
    return Plan(
        summary=f"Get a referral to {specialty}",
        details={"specialty": specialty},
        ask=ctx.pick(
            (
                f"My doctor said I should see {noun} about {ctx.my_condition(condition)}. Can you set up the referral?",
                f"I'd like a referral to {noun}. {cap(symptom)} isn't getting any better.",
                f"My insurance says I need a referral before I can see {noun}. Can you help with that?",
            )
        ),
        short=f"Need a referral to {noun}.",
        story=[
            f"I keep dealing with {symptom}, and what I'm doing for {ctx.my_condition(condition)} isn't enough.",
            "At my last visit the doctor mentioned seeing a specialist but nothing happened after that.",
        ],
        worry="I feel like it's getting worse while I wait.",
        doubt="I've asked twice already and I'm starting to think the referral got lost.",
    )


def _existing_appointment(ctx: Ctx) -> dict[str, str]:
    on_pcp = ctx.rng.random() < 0.6
    condition = ctx.pick(ctx.conditions)
    if on_pcp or condition.specialty in catalog.PCP_SPECIALTIES:
        doctor = ctx.pcp["name"]
        reason = ctx.pick(
            (
                f"follow-up for {condition.name}",
                "annual physical",
                "medication check",
                f"{condition.name} check-in",
            )
        )
    else:
        doctor = ctx.specialist_for(condition.specialty)
        reason = f"{condition.specialty.lower()} follow-up"
    day, time = ctx.slot()
    appointment = {
        "doctor": doctor,
        "date": day,
        "time": time,
        "type": _appointment_type(ctx),
        "reason": reason,
    }
    ctx.appointments.append(appointment)
    return appointment


def plan_reschedule(ctx: Ctx) -> Plan:
    booked = _existing_appointment(ctx)
    booked_day = date.fromisoformat(booked["date"])
    preferred = ctx.pick([d for d in ctx.window_weekdays() if d != booked_day]).isoformat()
    reasons = ["my car is in the shop", "something came up that day"]
    if ctx.attrs["age"] < 65:
        reasons += [
            "my work schedule changed",
            "I have to take my mom to her surgery that day",
            "I picked up an extra shift",
        ]
    else:
        reasons += [
            "my daughter needs me to watch the kids that day",
            "I can't get a ride that day",
        ]
    why = ctx.pick(reasons)
    when = f"{date_words(booked['date'])} at {time_words(booked['time'])}"
    return Plan(
        summary=f"Move my {booked['date']} appointment with {booked['doctor']} to {preferred}",
        details={
            "doctor": booked["doctor"],
            "date": booked["date"],
            "time": booked["time"],
            "preferred_date": preferred,
        },
        ask=ctx.pick(
            (
                f"I have an appointment with {booked['doctor']} on {when} and I can't make it. Could we move it to {date_words(preferred)}?",
                f"I need to reschedule my appointment on {when} with {booked['doctor']}, because {why}. Is {date_words(preferred)} possible?",
            )
        ),
        short=f"Need to move my {date_words(booked['date'])} appointment to {date_words(preferred)}.",
        story=[
            f"I'm booked with {booked['doctor']} on {when} but {why}.",
            f"{date_words(preferred)} would work much better.",
        ],
        worry="I don't want to lose my spot and wait another month.",
        doubt="Last time I rescheduled they lost my appointment entirely.",
        muddled=f"I have an appointment on the {ordinal(booked_day.day)}, or maybe it's that week, with {booked['doctor']}. Can I move it to {date_words(preferred)}?",
    )


def plan_cancel(ctx: Ctx) -> Plan:
    booked = _existing_appointment(ctx)
    why = ctx.pick((
        "I'm feeling a lot better", "I'll be out of town visiting family",
        "I already saw someone at urgent care for it", "I can't get the time off work",
    ))  # fmt: skip
    when = f"{date_words(booked['date'])} at {time_words(booked['time'])}"
    return Plan(
        summary=f"Cancel my {booked['date']} appointment with {booked['doctor']}",
        details={"doctor": booked["doctor"], "date": booked["date"], "time": booked["time"]},
        ask=ctx.pick(
            (
                f"I need to cancel my appointment with {booked['doctor']} on {when}.",
                f"Please cancel my {when} appointment with {booked['doctor']}; {why}.",
            )
        ),
        short=f"Cancel my {date_words(booked['date'])} appointment, please.",
        story=[
            f"I'm booked with {booked['doctor']} on {when}.",
            f"I want to cancel because {why}.",
        ],
        worry="I hope there's no fee for cancelling.",
        doubt="I'd like a confirmation this time, the last cancellation never went through.",
    )
