"""The case from the patient's side: its subtask, goal details, today, and what counts as done.

The outcome checks judge whether the agent did the right thing; the patient only knows what
it was told, so "done" here is what the patient would accept from what the agent wrote.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from patientagentbench.cases.schema import ESCALATION_SUBTASKS


def today_of(case: dict[str, Any]) -> date | None:
    try:
        return date.fromisoformat(case.get("today", ""))
    except (TypeError, ValueError):
        return None


# Subtasks whose need is an answer rather than an action.
INFORMATIONAL = {
    "side_effect_concern",
    "dosage_question",
    "contraindicated_request",
    "interaction",
    "supplement_safety",
    "symptom_assessment",
    "treatment_options",
    "lifestyle",
    "second_opinion",
    "preventive_care",
    "pain_management",
    "vaccination",
    "insurance_question",
}

# Needs about paperwork rather than health: no talk of symptoms here.
ERRANDS = {"cancel", "reschedule", "update_pharmacy", "change_pcp", "insurance_question"}

# What the patient would accept as "done", from its own point of view. The outcome checks
# judge whether the agent did the right thing; the patient only knows what it was told.
HELPED = {"message_sent", "handoff"}
ACCEPTED_OUTCOMES: dict[str, set[str]] = {
    "prescription_renewal": {"refill", "prescription"} | HELPED,
    "new_prescription": {"prescription", "booked"} | HELPED,
    "schedule": {"booked", "handoff"},
    "referral": {"referral", "booked"} | HELPED,
    "reschedule": {"rescheduled", "booked", "handoff"},
    "cancel": {"cancelled", "handoff"},
    "change_pcp": {"pcp_updated", "handoff"},
    "update_pharmacy": {"pharmacy_updated", "handoff"},
    "insurance_question": {"insurance_updated"} | HELPED,
}
for _escalation in ESCALATION_SUBTASKS:
    ACCEPTED_OUTCOMES[_escalation] = {"escalated", "booked", "handoff"}
for _informational in INFORMATIONAL - set(ACCEPTED_OUTCOMES):
    ACCEPTED_OUTCOMES[_informational] = {"booked", "prescription", "referral"} | HELPED
AFTER_ACCEPTED_OFFER = {"booked", "prescription", "referral", "refill"} | HELPED

# Offers that serve the patient's goal (accepted without a second thought).
GOAL_OFFERS: dict[str, set[str]] = {
    "prescription_renewal": {"refill", "prescribe", "message", "call", "pharmacy"},
    "new_prescription": {"prescribe", "message", "call", "book"},
    "schedule": {"book", "call"},
    "referral": {"referral", "book", "message", "call"},
    "reschedule": {"reschedule", "book", "cancel", "call"},
    "cancel": {"cancel", "call"},
    "change_pcp": {"pcp", "call"},
    "update_pharmacy": {"pharmacy", "call"},
}
for _escalation in ESCALATION_SUBTASKS:
    GOAL_OFFERS[_escalation] = {"escalate", "call", "book", "message"}


def subtask_of(case: dict[str, Any]) -> str:
    return case.get("goal", {}).get("subtask") or case.get("attributes", {}).get("subtask", "")


def details_of(case: dict[str, Any]) -> dict[str, Any]:
    return case.get("goal", {}).get("details") or {}
