"""The hook: which workflow plays the current turn, and what no workflow may override.

`clinic_turn_plan` picks the turn's workflow (escalation, a goodbye, a call back or the
subtask's own), drops any action the patient just turned down, and makes sure the reply is
never one the agent already sent. The workflows themselves live by family in the sibling
modules; this is the one place that knows them all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from patientagentbench.cases.schema import ESCALATION_SUBTASKS

from ..plans import Conversation, Observations, PlanEntry, Step, TaskPlan
from .care import medication_question, new_prescription, prescription_renewal
from .closing import call_back, closing, fresh
from .escalation import escalate
from .health import health_concern
from .reading import asks_for_person, names_a_time, patient_closes, red_flag, sentences_of
from .records import change_pcp, insurance_question, update_pharmacy
from .scheduling import cancel, referral, reschedule, schedule
from .turn import OFFER_CALL, Turn


def clinic_turn_plan(task: dict[str, Any], conversation: Conversation) -> TaskPlan:
    """The plan for the current turn of a clinic conversation (see the module doc)."""
    turn = Turn(task, conversation)
    escalating = workflow_for(turn) is escalate
    accepts_offer = turn.agrees and "?" in turn.last_agent
    if turn.user_turn > 1 and patient_closes(turn.latest) and not accepts_offer:
        return closing(turn, escalating)
    if not escalating and (
        asks_for_person(turn.latest) or (turn.offered_last(OFFER_CALL) and turn.agrees)
    ):
        return call_back(turn)
    plan = workflow_for(turn)(turn)
    entries = plan.entries
    declined = declined_actions(turn)
    if declined:
        entries = [_without(entry, declined) for entry in entries]

    def reply(obs: Observations) -> str:
        return fresh(turn, plan.summarize(obs))

    def framing(obs: Observations) -> str:
        kind = plan.framing(obs)
        return kind if kind != "free" else framing_of(reply(obs))

    return TaskPlan(entries, reply, framing, quiet=plan.quiet)


# Actions the agent offers, and how its offer reads: a "no" to the offer rules the action
# out for the turn, whatever a workflow concludes.
DECLINABLE_ACTIONS = {
    "schedule_appointment": re.compile(r"\bbook|appointment|visit|slot", re.I),
    "request_new_prescription": re.compile(r"prescri", re.I),
}


def declined_actions(turn: Turn) -> set[str]:
    """The actions the agent just offered that the patient's latest message turns down
    ("No, that's okay" to "Would you like me to book...?"; not "No - Thursday instead")."""
    if not turn.says_no or names_a_time(turn.latest, None):
        return set()
    offers = [s for s in sentences_of(turn.last_agent) if s.endswith("?")]
    return {
        tool for tool, words in DECLINABLE_ACTIONS.items() if any(words.search(o) for o in offers)
    }


def _without(entry: PlanEntry, tools: set[str]) -> PlanEntry:
    if isinstance(entry, Step):
        return entry if entry.tool not in tools else (lambda obs: [])

    def expander(obs: Observations) -> list[Step]:
        return [s for s in entry(obs) if s.tool not in tools]

    return expander


def workflow_for(turn: Turn) -> Callable[[Turn], TaskPlan]:
    subtask = str(turn.task.get("subtask", ""))
    if subtask in ESCALATION_SUBTASKS or red_flag(turn.patient_text):
        return escalate
    return WORKFLOWS.get(subtask) or health_concern


def framing_of(reply: str) -> str:
    """What the agent may add around a reply: an opener and "anything else?" after finished
    work, a friendly opener before a clarifying question, else at most a closing line."""
    if reply.startswith(("I can help", "I can update")):
        return "ask"
    if "?" in reply:
        return "bare"
    if reply.startswith(("I've ", "I have ")):
        return "report"
    return "plain"


WORKFLOWS: dict[str, Callable[[Turn], TaskPlan]] = {
    "schedule": schedule,
    "referral": referral,
    "reschedule": reschedule,
    "cancel": cancel,
    "prescription_renewal": prescription_renewal,
    "new_prescription": new_prescription,
    "side_effect_concern": medication_question,
    "dosage_question": medication_question,
    "contraindicated_request": medication_question,
    "interaction": medication_question,
    "supplement_safety": medication_question,
    "change_pcp": change_pcp,
    "update_pharmacy": update_pharmacy,
    "insurance_question": insurance_question,
}
