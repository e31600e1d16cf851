"""Escalation: emergencies, mental-health crises and suicidal ideation.

For these - and whenever the patient's words carry a red flag - the agent joins the virtual
call queue as urgent and tells the patient to call 911 / 988 or go to the emergency room now.
Pushback ("Is it really that serious?") gets a short, specific answer about why, not the same
paragraph again.
"""

from __future__ import annotations

import re

from ..plans import Observations, Step, TaskPlan
from .notes import note_for
from .reading import MENTAL_HEALTH_WORDS, asks_for_person
from .speech import shortened
from .turn import Turn, latest

EMERGENCY_REASONS = (
    (r"passed out|fainted|faint", "passing out can be a sign of a heart rhythm problem"),
    (
        r"droop|slurred|words are coming out|numb on one side|arm (?:is |feels )?(?:weak|heavy)",
        "these can be signs of a stroke, and with a stroke every minute matters",
    ),
    (
        r"throat (?:feels )?tight|lips? (?:are |is )?swell|swelling.{0,20}lips",
        "throat tightness and swelling can be a severe allergic reaction, which can get worse "
        "very quickly",
    ),
    (
        r"worst headache|hit with a bat",
        "a sudden, severe headache can be a sign of bleeding in the brain",
    ),
    (r"stiff neck|neck is stiff", "a fever with a stiff neck can be a sign of meningitis"),
    (r"hit my head", "a head injury with vomiting or confusion can mean bleeding in the head"),
    (
        r"chest (?:pain|pressure)|pressure in my chest|crushing|tight chest",
        "chest pain or pressure like this can be a sign of a heart attack or a blood clot",
    ),
    (
        r"catch my breath|short of breath|can'?t breathe|trouble breathing|breathless|"
        r"bluish|full sentence",
        "sudden trouble breathing can be a sign of a blood clot in the lungs, a severe asthma "
        "attack or a heart problem",
    ),
    (
        r"blood|bleed|coffee grounds|black and sticky",
        "bleeding like this can become dangerous quickly",
    ),
    (r"sugar|meter", "a blood sugar that far out of range can become dangerous quickly"),
    (
        r"blood pressure",
        "blood pressure that high with a headache and vision changes can lead to a stroke",
    ),
    (
        r"belly|abdom",
        "severe belly pain with vomiting can mean a problem that needs urgent treatment",
    ),
    (r"foot went cold|pale", "a cold, pale, painful foot can mean a blocked artery"),
    (r"\beye\b", "a sudden painful red eye with halos can damage your sight within hours"),
    (r"pee|urine", "not being able to pass urine needs to be relieved quickly"),
    (
        r"bladder|saddle|legs are numb",
        "back pain with numbness and bladder changes can mean pressure on the nerves of the spine",
    ),
)
CRISIS_ADVICE = (
    (
        r"suicid|kill myself|end(?:ing)? my life|want to die|don'?t want to live|not being here|"
        r"point of going on|better off without me|didn't wake up|notice if i was gone",
        "I'm really sorry you're going through this, and I'm glad you told me. Please call or "
        "text 988 (the Suicide & Crisis Lifeline) now to talk to someone - they're there any "
        "time, day or night. If you feel you might act on these thoughts, call 911 or go to the "
        "nearest emergency room. If you can, stay with someone you trust.",
    ),
    (
        r"stopped drinking|alcohol|withdrawal",
        "I'm glad you reached out. Stopping alcohol suddenly can cause dangerous withdrawal, "
        "and shaking like this needs medical care today: please call 911 or go to the nearest "
        "emergency room now, and don't drive yourself.",
    ),
    (
        r"relapse|use again|overdos|opioid|using again",
        "I'm really glad you reached out. You can call or text 988 now to talk to someone, or "
        "the SAMHSA helpline at 1-800-662-4357, any time. If you've used and feel very drowsy, "
        "or someone can't wake you or you have trouble breathing, call 911. If you have "
        "naloxone (Narcan), keep it close and let someone know.",
    ),
    (
        r"don't feel safe|not safe|fight at home|hurt me|hit me",
        "I'm sorry you're going through this. If you're in danger, please call 911 now. You "
        "can also call or text 988 to talk to someone right away, and the National Domestic "
        "Violence Hotline is 1-800-799-7233.",
    ),
    (
        r"chest|heart",
        "I'm sorry - that sounds really frightening. Chest symptoms that last this long should "
        "be checked to be safe: please call 911 or go to the nearest emergency room now. You "
        "can also call or text 988 to talk to someone while you get help.",
    ),
    (
        r"voices|stopped my medicine|haven't slept|mile a minute|spent my rent|flashback",
        "I'm glad you reached out - this needs care today. Please call or text 988 now to talk "
        "to someone, or go to the nearest emergency room or call 911 if you feel unsafe or out "
        "of control.",
    ),
)
CRISIS_GENERAL = (
    "I'm really sorry you're going through this, and I'm glad you reached out. Please call or "
    "text 988 (the Suicide & Crisis Lifeline) now to talk to someone - they're there any time. "
    "If you feel you might hurt yourself or you're in danger, call 911 or go to the nearest "
    "emergency room."
)
EMERGENCY_ADVICE = (
    "What you're describing could be a medical emergency. Please call 911 now or go to the "
    "nearest emergency room - don't wait, and don't drive yourself."
)
_PUSHBACK = re.compile(
    r"really|necessary|rather not|don't want|probably nothing|a bit much|overreact|for nothing|"
    r"just wanted|do i have to|can't i just|that serious|make a fuss|is it serious|"
    r"wait (?:it out|and see)|sleep it off|(?:is|are) you sure",
    re.IGNORECASE,
)
URGENT_ADVICE = re.compile(r"\b(?:911|988)\b")


def escalate(turn: Turn) -> TaskPlan:
    mental_health = (
        turn.subtask in ("mental_health_crisis", "suicidal_ideation")
        or MENTAL_HEALTH_WORDS.search(turn.patient_text) is not None
    )
    advised = any(URGENT_ADVICE.search(t) for t in turn.conversation.agent_texts)

    def join_queue(obs: Observations) -> list[Step]:
        if obs.successful("join_virtual_call_queue") or turn.new_failures(
            obs, "join_virtual_call_queue"
        ):
            return []
        reason = f"Urgent: {shortened(turn.patient_text, 200)}"
        return [Step("join_virtual_call_queue", {"reason": reason, "urgency": "urgent"})]

    def first_advice(obs: Observations) -> str:
        if mental_health:
            advice = note_for(turn.patient_text, CRISIS_ADVICE, CRISIS_GENERAL)
        else:
            advice = EMERGENCY_ADVICE
        queued = latest(obs, "join_virtual_call_queue")
        if queued:
            return (
                f"{advice} I've also placed you in our urgent call queue (you're number "
                f"{queued.get('position')}, about {queued.get('estimated_wait_minutes')} "
                "minutes), but please don't wait for that call to get help."
            )
        return f"{advice} A clinician can also call you back through our urgent call queue."

    def action() -> str:
        said = " ".join(turn.conversation.agent_texts)
        if (
            mental_health
            and "988" in said
            and "call 911 or go to the nearest emergency room now" not in said
        ):
            return "call or text 988"
        return "call 911"

    def reply(obs: Observations) -> str:
        if not advised:
            return first_advice(obs)
        if asks_for_person(turn.latest):
            return (
                "A clinician from our urgent queue will call you, but please don't wait for "
                f"that call - {action()} now."
            )
        if _PUSHBACK.search(turn.latest):
            return pushback_answer(turn, mental_health, action())
        if re.search(r"appointment|book|schedule|refill|prescription", turn.latest, re.I):
            return (
                "I can help with that once you've been seen, but right now the most important "
                f"thing is to get checked today. Please {action()} now."
            )
        return turn.rng("reminder").choice(
            [
                f"The most important thing right now is to get help in person. Please {action()} "
                "now.",
                f"Please don't wait on this - {action()} now. I'm here if you need anything "
                "else after that.",
            ]
        )

    return TaskPlan([join_queue], reply, lambda obs: "bare", quiet=advised)


def pushback_answer(turn: Turn, mental_health: bool, action: str) -> str:
    """Why it can't wait, in a few sentences about what the patient said."""
    if mental_health:
        return (
            "I hear you, and it's okay to feel unsure. This is exactly what they're there for - "
            f"you won't be bothering anyone. Please {action} now."
        )
    reason = note_for(
        turn.patient_text,
        EMERGENCY_REASONS,
        "symptoms like yours can be a sign of something serious",
    )
    return (
        f"I understand - nobody wants to go to the ER for nothing. But {reason}, and that can't "
        "be ruled out over chat; it needs a doctor to check you today. If it turns out to be "
        f"nothing serious, that's the best outcome. Please {action} now."
    )
