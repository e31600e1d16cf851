"""Workflows for health concerns: symptoms, treatments, lifestyle, screening, pain, vaccines.

All of them are informational (see `informational`); a yes to the visit the agent offers
books the PCP's earliest fitting slot.
"""

from __future__ import annotations

import re
from typing import Any

from ..plans import Observations, TaskPlan
from .booking import PcpBooking, Visit, visit_reason, wanted_day
from .informational import Stages, informational, offer_visit
from .notes import (
    GENERAL_NOTE,
    LIFESTYLE_GENERAL,
    LIFESTYLE_NOTES,
    PAIN_GENERAL,
    PAIN_NOTES,
    PREVENTIVE_GENERAL,
    PREVENTIVE_NOTES,
    SYMPTOM_NOTES,
    VACCINE_GENERAL,
    VACCINE_NOTES,
    note_for,
)
from .reading import time_wish, visit_type_in
from .speech import asked_clause, concern_words, joined, shortened
from .turn import OFFER_IN_PERSON, Turn, pcp


def _since(text: str) -> str:
    return (
        ", especially since it's been going on for a while"
        if re.search(r"\b(weeks?|months?|years?|since|winter|a while)\b", text, re.I)
        else ""
    )


def health_concern(turn: Turn) -> TaskPlan:
    """Symptoms, treatments, lifestyle, second opinions, screening, pain, vaccines: general
    guidance in stages (see `informational`); a yes to the visit books the PCP's earliest
    fitting slot."""
    subtask = turn.subtask
    stages = Stages(turn)
    text = turn.first

    def visit(obs: Observations) -> Visit | None:
        if not stages.wants_visit:
            return None
        wished = visit_type_in(turn.latest) or visit_type_in(turn.patient_text) or "in_person"
        if turn.offered_last(OFFER_IN_PERSON):
            wished = "in_person"
        return Visit(wished, wanted_day(turn, obs), time_wish(turn.latest), visit_reason(turn))

    def candidates(obs: Observations) -> list[dict[str, Any]]:
        doctor = pcp(obs)
        chosen = visit(obs)
        if not doctor or chosen is None:
            return []
        return [doctor] if chosen.kind != "telehealth" or doctor.get("telehealth") else []

    booking = PcpBooking(turn, visit, candidates)
    concern = concern_words(text)
    asked = asked_clause(text)
    symptom = note_for(turn.patient_text, SYMPTOM_NOTES, GENERAL_NOTE)

    def first(obs: Observations) -> str:
        offer = offer_visit(obs)
        words = {
            "symptom_assessment": f"I'm sorry you're dealing with {concern or 'this'}. I can't "
            f"diagnose it over chat, but it's worth having your doctor take a look{_since(text)}.",
            "pain_management": "I'm sorry you're in pain. Please don't take more than the label "
            "allows of any pain reliever while this gets sorted out; your doctor can look at "
            "options that are safe with your other conditions and medicines.",
            "treatment_options": "That's a good question to go through with your doctor - the "
            "right choice depends on your health, your other medicines and what you've already "
            "tried.",
            "lifestyle": "It's great that you're working on this, and your doctor can tailor "
            "the advice to your health.",
            "second_opinion": "Wanting a second opinion before a big decision is completely "
            "reasonable, and your primary care doctor can refer you to another specialist for "
            "one.",
            "preventive_care": "Good thinking. Whether you're due depends on your age, your "
            "history and when you were last checked, and your doctor's office can look at your "
            "record.",
            "vaccination": "Your doctor's office can check your record to see which vaccines "
            "you're due for, and give them at a visit.",
        }.get(subtask, "Your doctor can help you with this.")
        return f"{words} {offer}"

    def more(obs: Observations) -> str:
        intro = ""  # `informational` leads with an answer or an intro
        if subtask == "symptom_assessment":
            what = f"Symptoms like {concern}" if concern else "Symptoms like this"
            return joined(
                intro,
                f"{what} can have several causes, such as {symptom.causes}, so it's worth "
                "getting checked rather than waiting it out.",
                f"If {_watch_sentence(symptom.watch)}",
            )
        if subtask == "pain_management":
            general = f"For {concern}, options" if concern else "In general, options"
            about = note_for(
                turn.patient_text, PAIN_NOTES, PAIN_GENERAL.replace("In general, options", general)
            )
            return joined(
                intro,
                f"{about} - but which medicines are safe for you depends on your health and "
                "what you already take, so that part is for your doctor.",
                "If the pain suddenly gets much worse, or comes with a fever, numbness or "
                "weakness, please get urgent care.",
            )
        if subtask == "treatment_options":
            about = f"About {asked}: " if asked else ""
            return joined(
                intro,
                f"{about}I can't recommend a treatment myself, but it helps to go in with your "
                "questions written down - what each option involves, its side effects and how "
                "soon it would help.",
                "Please don't stop or change any of your current medicines before talking it "
                "over with your doctor.",
            )
        if subtask == "lifestyle":
            return joined(intro, note_for(turn.patient_text, LIFESTYLE_NOTES, LIFESTYLE_GENERAL))
        if subtask == "second_opinion":
            return joined(
                intro,
                "Usually your primary care doctor refers you to another specialist in the same "
                "field, and it helps to have your records and test results sent ahead. It's "
                "also worth checking whether your insurance needs a referral for it.",
            )
        if subtask == "preventive_care":
            return joined(intro, note_for(turn.patient_text, PREVENTIVE_NOTES, PREVENTIVE_GENERAL))
        if subtask == "vaccination":
            return joined(intro, note_for(turn.patient_text, VACCINE_NOTES, VACCINE_GENERAL))
        return joined(intro, "A doctor is the right person to advise you on this.")

    meanwhile = {
        "symptom_assessment": symptom.meanwhile,
        "pain_management": "Heat or ice and gentle movement can help in the meantime.",
        "treatment_options": "Writing down your questions before a visit makes it easier to "
        "go through the options.",
        "second_opinion": "It's fine to take a little time before agreeing to anything.",
    }.get(subtask, "")
    purpose = {
        "symptom_assessment": "They can tell you whether you need to come in.",
        "pain_management": "They can tell you what's safe to try next.",
        "treatment_options": "They can tell you which options fit you.",
        "lifestyle": "They can tailor the advice to your health.",
        "second_opinion": "They can arrange the referral for a second opinion.",
        "preventive_care": "They can check whether you're due.",
        "vaccination": "They can tell you which vaccines you're due for.",
    }.get(subtask, "They can advise you directly.")
    subject = f"Question: {shortened(concern or asked or subtask.replace('_', ' '), 60)}"
    return informational(turn, first, more, meanwhile, purpose, subject, booking)


def _watch_sentence(watch: str) -> str:
    """ "..., call 911" stays as it is; otherwise "..., please get emergency care"."""
    return f"{watch}." if watch.endswith("911") else f"{watch}, please get emergency care."
