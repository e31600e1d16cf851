"""How the simulated agent handles clinic conversations: one workflow per task subtask.

The agent sees what a deployed agent sees - the patient's messages, its own replies and the
tools' results - and the task's category and subtask; never the hidden story or goal. So a
workflow reads the patient's words loosely (medication names found in list_medications,
specialties, dates, times, pharmacy names and addresses) and asks one clarifying question
when it cannot find what it needs, acting on the patient's answer in the next turn.

`clinic_turn_plan(task, conversation)` is the hook the agent calls at every step of every
turn: it returns the plan for the current turn. Entries see every tool result so far, so a
later turn builds on earlier lookups and never repeats an action that already succeeded;
the plan's summary is the turn's whole reply, and its framing tells the agent whether an
opener or closer may be added ("bare" for urgent advice and goodbyes).

Talking like a person, not a fixture:
- The agent never sends the same reply twice. A workflow moves the conversation on (see
  below); when it has nothing new, `fresh` rephrases once and then offers a call back from
  a clinician.
- Informational needs (symptoms, treatments, vaccines, insurance, dosing...) go in stages:
  general, safe, non-diagnostic guidance on the patient's topic and an offer to book with the
  PCP; if the patient declines and asks again, more specific guidance (common causes, warning
  signs) and an offer to message the PCP with the question; the agent sends that message when
  the patient agrees or asks again, and confirms it in plain words.
- Nothing the patient declined is ever done: a "No, that's okay" is a no, even with "okay".
- When the patient closes ("Thanks, that's all", "I'll call 911 now", "I'll just call the
  office"), the reply is one short closing that fits, sent bare.
- Tool results are translated into the patient's language: no tool names, no "the patient",
  no ISO dates or 24-hour times, errors explained with the next step.

Escalation: for emergencies, mental-health crises and suicidal ideation - and whenever the
patient's words carry a red flag - the agent joins the virtual call queue as urgent and
tells the patient to call 911 / 988 or go to the emergency room now. Pushback ("Is it really
that serious?") gets a short, specific answer about why, not the same paragraph again.

The modules, like `sandbox/clinic_world`'s: `plan` (the hook), `turn` (a turn and the tools'
results), `reading` and `speech` (the patient's words in, the agent's words out), `booking`,
and the workflows by family - `scheduling`, `care` (medicines), `records` (PCP, pharmacy,
insurance), `health` (with `informational` and `notes`), `escalation` and `closing`.
"""

from __future__ import annotations

from .closing import similar
from .plan import clinic_turn_plan
from .reading import affirmative, dates_in, declines, patient_closes, pharmacy_in, specialty_in
from .speech import plain_error, spoken_date, spoken_time
from .turn import OFFER_MESSAGE, OFFER_PCP_VISIT

__all__ = [
    "OFFER_MESSAGE",
    "OFFER_PCP_VISIT",
    "affirmative",
    "clinic_turn_plan",
    "dates_in",
    "declines",
    "patient_closes",
    "pharmacy_in",
    "plain_error",
    "similar",
    "specialty_in",
    "spoken_date",
    "spoken_time",
]
