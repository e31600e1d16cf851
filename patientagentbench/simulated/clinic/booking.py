"""Booking, shared by scheduling, rescheduling and follow-up visits with the patient's PCP.

A `Booking` checks a few fitting doctors' schedules, books the first slot that fits what the
patient asked for (retrying once after a failed attempt) and otherwise offers the nearest
alternatives; `PcpBooking` is the same for the patient's own doctor, with its own fallbacks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..plans import Observations, PlanEntry, Step
from .reading import affirmative, dates_in
from .speech import plain_error, shortened, spoken_date, spoken_when
from .turn import (
    CANDIDATE_DOCTORS,
    OFFER_ALTERNATIVE,
    OFFER_CALL,
    OFFER_IN_PERSON,
    OFFER_LOOK_AGAIN,
    OFFER_MESSAGE,
    OFFER_OTHER_DOCTOR,
    OFFER_SLOT,
    Turn,
    error_of,
    latest,
    pcp,
    same_id,
    today_of,
)


@dataclass(frozen=True)
class Visit:
    kind: str  # "in_person" | "telehealth"
    day: date | None  # the patient's day, if they named one
    time: str | None  # "HH:MM", "morning", "afternoon"
    reason: str
    avoid_day: str | None = None  # rescheduling: not the day being moved away from


@dataclass(frozen=True)
class Booking:
    """Check up to three fitting doctors' slots, book the first fitting one (one retry
    after a failed attempt); offer the nearest alternatives when the patient's day is full.
    Each yes to "check with another doctor?" widens the search by three more doctors."""

    turn: Turn
    visit: Callable[[Observations], Visit | None]  # None: not ready to book this turn
    candidates: Callable[[Observations], list[dict[str, Any]]]  # every fitting doctor

    def entries(self) -> list[PlanEntry]:
        checks = [self._check(rank) for rank in range(CANDIDATE_DOCTORS * 3)]
        return [*checks, self._book(0), self._book(1)]

    def window(self) -> int:
        widened = sum(
            1
            for agent, reply in self.turn.conversation.exchanges
            if OFFER_OTHER_DOCTOR in agent and affirmative(reply)
        )
        return CANDIDATE_DOCTORS * (1 + widened)

    def doctors(self, obs: Observations) -> list[dict[str, Any]]:
        """The doctors to check this turn."""
        return self.candidates(obs)[: self.window()]

    def _check(self, rank: int) -> Callable[[Observations], list[Step]]:
        def step(obs: Observations) -> list[Step]:
            visit = self.visit(obs)
            doctors = self.doctors(obs) if visit and not self.booked(obs) else []
            if rank >= len(doctors):
                return []
            looking_again = self.turn.offered_last(OFFER_LOOK_AGAIN) and self.turn.agrees
            checked_now = any(
                same_id((r.arguments or {}).get("doctor_id"), doctors[rank]["id"])
                for r in obs.results[len(self.turn.conversation.earlier) :]
                if r.name == "get_available_appointments"
            )
            if self._known(obs, doctors[rank], visit) and (not looking_again or checked_now):
                return []
            if any(self.slots(obs, d, visit) for d in doctors[:rank]):
                return []
            arguments: dict[str, Any] = {"doctor_id": doctors[rank]["id"]}
            if visit.day:
                arguments["date"] = visit.day.isoformat()
            if visit.kind == "telehealth":
                arguments["appointment_type"] = "telehealth"
            return [Step("get_available_appointments", arguments)]

        return step

    def availability(self, obs: Observations, doctor: dict, visit: Visit) -> dict | None:
        wanted_day = visit.day.isoformat() if visit.day else None
        return latest(
            obs,
            "get_available_appointments",
            lambda a: same_id(a.get("doctor_id"), doctor["id"]) and a.get("date") == wanted_day,
        )

    def _known(self, obs: Observations, doctor: dict, visit: Visit) -> bool:
        return self.availability(obs, doctor, visit) is not None

    def slots(self, obs: Observations, doctor: dict, visit: Visit) -> list[dict[str, Any]]:
        found = (self.availability(obs, doctor, visit) or {}).get("slots") or []
        return [s for s in found if _fits(s, visit)]

    def choice(
        self, obs: Observations, avoid: set[tuple[str, str, str]] = frozenset()
    ) -> tuple[dict, dict] | None:
        visit = self.visit(obs)
        if visit is None:
            return None
        doctors = self.doctors(obs)
        for doctor in doctors:
            for slot in self.slots(obs, doctor, visit):
                if (doctor["id"], slot["date"], slot["time"]) not in avoid:
                    return doctor, slot
        # The patient said yes to the alternatives offered for their day.
        if visit.day and self.turn.asked(OFFER_ALTERNATIVE) and affirmative(self.turn.latest):
            for doctor in doctors:
                for slot in self.alternatives(obs, doctor, visit):
                    if (doctor["id"], slot["date"], slot["time"]) not in avoid:
                        return doctor, slot
        return None

    def alternatives(self, obs: Observations, doctor: dict, visit: Visit) -> list[dict]:
        found = (self.availability(obs, doctor, visit) or {}).get("nearest_alternatives") or []
        return [s for s in found if s.get("date") != visit.avoid_day]

    def _book(self, attempt: int) -> Callable[[Observations], list[Step]]:
        def step(obs: Observations) -> list[Step]:
            if (
                self.booked(obs)
                or len(self.turn.new_failures(obs, "schedule_appointment")) != attempt
            ):
                return []
            chosen = self.choice(obs, avoid=self._refused_slots(obs))
            visit = self.visit(obs)
            if chosen is None or visit is None:
                return []
            doctor, slot = chosen
            arguments = {
                "doctor_id": doctor["id"],
                "date": slot["date"],
                "time": slot["time"],
                "appointment_type": visit.kind,
                "reason": visit.reason,
            }
            return [Step("schedule_appointment", arguments)]

        return step

    def _refused_slots(self, obs: Observations) -> set[tuple[str, str, str]]:
        """Slots the clinic turned down as such (taken, not offered); a badly written call
        is retried on the same slot."""
        refused = set()
        for result in self.turn.new_failures(obs, "schedule_appointment"):
            args = result.arguments or {}
            if re.search(r"taken|no slot|does not see|not accepting|telehealth", error_of(result)):
                key = (str(args.get("doctor_id", "")).upper(), args.get("date"), args.get("time"))
                refused.add(key)
        return refused

    def booked(self, obs: Observations) -> dict[str, Any] | None:
        """The appointment this conversation booked, if any."""
        result = latest(obs, "schedule_appointment")
        return (result or {}).get("appointment")

    def reply(self, obs: Observations, what: str) -> str:
        """The turn's words about booking `what` ("a Dermatology visit")."""
        booked = self.booked(obs)
        if booked:
            return describe_booking(booked)
        visit = self.visit(obs)
        doctors = self.doctors(obs) if visit else []
        failures = self.turn.new_failures(obs, "schedule_appointment")
        if failures:
            return (
                f"I tried to book {what}, but {plain_error(failures[-1])}. Would you like me "
                "to try another time?"
            )
        if not doctors:
            telehealth = " and offers video visits" if visit and visit.kind == "telehealth" else ""
            offer = (
                f"{OFFER_LOOK_AGAIN}?"
                if not self.turn.asked(OFFER_LOOK_AGAIN)
                else f"{OFFER_CALL} with our staff to look at other options?"
            )
            return (
                f"I couldn't find a doctor for {what} who is accepting new patients{telehealth}. "
                f"{offer}"
            )
        if visit and not any(self.availability(obs, d, visit) for d in doctors):
            # It never managed to look (or the lookups failed): say so, not "nothing open".
            offer = (
                f"{OFFER_LOOK_AGAIN}?"
                if not self.turn.offered_last(OFFER_LOOK_AGAIN)
                else f"{OFFER_CALL} with our staff instead?"
            )
            return f"I wasn't able to check the schedule for {what} just now. {offer}"
        chosen = self.choice(obs, avoid=self._refused_slots(obs))
        if chosen:  # a fitting slot that was not booked yet: offer it
            doctor, slot = chosen
            return f"{doctor['name']} has an opening on {spoken_when(slot)}. {OFFER_SLOT}?"
        if visit and visit.day:
            offers = [(d, s) for d in doctors for s in self.alternatives(obs, d, visit)][:3]
            if offers:
                listed = "; ".join(f"{d['name']} on {spoken_when(s)}" for d, s in offers)
                return (
                    f"There are no open slots for {what} on {spoken_date(visit.day)}. The "
                    f"nearest openings are: {listed}. {OFFER_ALTERNATIVE}, or is another day "
                    "better?"
                )
        if len(self.candidates(obs)) > len(doctors):
            return (
                f"I couldn't find an open slot for {what} in the next two weeks with the "
                f"doctors I checked. {OFFER_OTHER_DOCTOR}?"
            )
        when = f"on {spoken_date(visit.day)}" if visit and visit.day else "in the next two weeks"
        if not self.turn.asked(OFFER_LOOK_AGAIN):
            return f"I couldn't find an open slot for {what} {when}. {OFFER_LOOK_AGAIN}?"
        return (
            f"I'm sorry, there's still nothing open for {what} {when}. {OFFER_CALL} with our "
            "staff to look at other options?"
        )


def _fits(slot: dict[str, Any], visit: Visit) -> bool:
    if visit.day and slot.get("date") != visit.day.isoformat():
        return False
    if slot.get("date") == visit.avoid_day:
        return False
    time = str(slot.get("time", ""))
    if visit.time == "morning":
        return time < "12:00"
    if visit.time == "afternoon":
        return time >= "12:00"
    # An exact time binds only together with a day ("the 12th at 10:30"); alone it is
    # too likely to be another time the patient mentioned.
    return not visit.time or time == visit.time or not visit.day


def describe_booking(appointment: dict[str, Any]) -> str:
    office = appointment.get("office") or {}
    where = (
        "by video (telehealth)"
        if appointment.get("type") == "telehealth"
        else f"in person at {office.get('name', 'the office')}, {office.get('address', '')}"
    )
    return (
        f"I've booked your appointment with {appointment.get('doctor')} "
        f"({appointment.get('specialty')}) on {spoken_when(appointment)}, {where}. "
        f"Your confirmation number is {appointment.get('id')}."
    )


def specialty_fits(doctor: dict[str, Any], wanted: str | None) -> bool:
    if wanted == "primary care":
        return bool(doctor.get("can_be_primary_care"))
    return str(doctor.get("specialty", "")).lower() == str(wanted or "").lower()


def wanted_day(turn: Turn, obs: Observations, avoid: str | None = None) -> date | None:
    """The newest day the patient named (their latest message first)."""
    today = today_of(obs)
    for text in (turn.latest, turn.patient_text):
        days = [
            d
            for d in dates_in(text, today)
            if d.isoformat() != avoid and (today is None or d > today)
        ]
        if days:
            return days[-1] if text is turn.latest else days[0]
    return None


def visit_reason(turn: Turn) -> str:
    return shortened(turn.conversation.user_texts[0] if turn.conversation.user_texts else "Visit")


@dataclass(frozen=True)
class PcpBooking(Booking):
    """A visit with the patient's own doctor: when the PCP has no video visits, offer an
    in-person one; when nothing is open, offer to message them instead."""

    def reply(self, obs: Observations, what: str) -> str:
        booked = self.booked(obs)
        if booked:
            return describe_booking(booked)
        visit = self.visit(obs)
        doctor = pcp(obs)
        if visit and doctor and visit.kind == "telehealth" and not doctor.get("telehealth"):
            return f"{doctor['name']} doesn't offer video visits. {OFFER_IN_PERSON}?"
        failures = self.turn.new_failures(obs, "schedule_appointment")
        if doctor and not failures and not (visit and visit.day and self.alternatives_for(obs)):
            return (
                f"{doctor['name']} doesn't have any openings in the next two weeks. "
                f"{OFFER_MESSAGE} them with your question instead?"
            )
        return super().reply(obs, what)

    def alternatives_for(self, obs: Observations) -> list[dict[str, Any]]:
        visit = self.visit(obs)
        return [s for d in self.doctors(obs) for s in self.alternatives(obs, d, visit)]
