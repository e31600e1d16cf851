"""What each subtask is about for one patient: the goal, and the words to tell it in.

A planner looks at the patient's chart, picks the concrete situation (which medicine, which
appointment, which symptom), adjusts the chart where the situation demands it (a penicillin
allergy for a patient who will ask for amoxicillin; no refills left on a medicine to renew),
and returns a `Plan`: the goal details plus first-person phrasings that `voice.py` turns into
an opening message and a story in the patient's own manner.

The planners live by family in this package's modules; `PLANNERS` lists them all.
"""

from __future__ import annotations

from collections.abc import Callable

from .context import Ctx, Plan
from .escalation import plan_emergency_symptoms, plan_mental_health_crisis, plan_suicidal_ideation
from .health import (
    plan_lifestyle,
    plan_pain_management,
    plan_preventive_care,
    plan_second_opinion,
    plan_symptom_assessment,
    plan_treatment_options,
    plan_vaccination,
)
from .medication import (
    plan_dosage_question,
    plan_new_prescription,
    plan_prescription_renewal,
    plan_side_effect_concern,
)
from .records import plan_change_pcp, plan_insurance_question, plan_update_pharmacy
from .safety import plan_contraindicated_request, plan_interaction, plan_supplement_safety
from .scheduling import plan_cancel, plan_referral, plan_reschedule, plan_schedule
from .words import cap, uncap

# One planner per subtask, listed rather than collected, so a subtask is found by reading.
PLANNERS: dict[str, Callable[[Ctx], Plan]] = {
    "prescription_renewal": plan_prescription_renewal,
    "side_effect_concern": plan_side_effect_concern,
    "dosage_question": plan_dosage_question,
    "new_prescription": plan_new_prescription,
    "contraindicated_request": plan_contraindicated_request,
    "interaction": plan_interaction,
    "supplement_safety": plan_supplement_safety,
    "schedule": plan_schedule,
    "referral": plan_referral,
    "reschedule": plan_reschedule,
    "cancel": plan_cancel,
    "symptom_assessment": plan_symptom_assessment,
    "treatment_options": plan_treatment_options,
    "lifestyle": plan_lifestyle,
    "emergency_symptoms": plan_emergency_symptoms,
    "second_opinion": plan_second_opinion,
    "preventive_care": plan_preventive_care,
    "vaccination": plan_vaccination,
    "pain_management": plan_pain_management,
    "mental_health_crisis": plan_mental_health_crisis,
    "suicidal_ideation": plan_suicidal_ideation,
    "change_pcp": plan_change_pcp,
    "update_pharmacy": plan_update_pharmacy,
    "insurance_question": plan_insurance_question,
}

__all__ = ["PLANNERS", "Ctx", "Plan", "cap", "uncap"]
