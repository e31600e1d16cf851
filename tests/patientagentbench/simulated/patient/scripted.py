"""A scripted agent for talking to the simulated patient, and the flows it reads from.

The agent does not listen: it says its next line whatever the patient wrote, which is
enough to check how the patient answers each kind of message. Tool calls are included so
the tests can check that the patient never sees them.
"""

from __future__ import annotations

import json
import re

from patientagentbench.providers.types import Message, ToolCall

REFILL_FLOW = [
    "I can help with that. Can you confirm your full name and date of birth?",
    (
        "Thanks, Maria. I see metformin 500 mg twice daily with no refills left, and CVS "
        "Pharmacy on Main St as your pharmacy. Would you like me to send the refill request "
        "there?",
        ["list_medications", "get_profile"],
    ),
    (
        "Done - I've sent a refill request for metformin 500 mg to CVS Pharmacy on Main St. "
        "Because there are no refills left, Dr. Reyes needs to approve it, which usually "
        "takes 1-2 business days.",
        ["request_refill"],
    ),
    "You're welcome, Maria. Take care!",
]

SHAH_SLOTS = {
    ("Thursday", "9"): "Thursday, March 12 at 9:00 AM",
    ("Thursday", "2:30"): "Thursday, March 12 at 2:30 PM",
    ("Friday", "11"): "Friday, March 13 at 11:00 AM",
}


def slot_named(said: list[str], slots: dict[tuple[str, str], str]) -> str:
    """The slot the patient picked in any of its messages (the agent listens), else the first."""
    for text in reversed(said):
        for (day, time), slot in slots.items():
            if day.lower() in text.lower() and re.search(rf"\b{time}\b", text):
                return slot
    return next(iter(slots.values()))


SCHEDULE_FLOW = [
    "I can help you book with cardiology. Would you prefer an in-person visit or telehealth?",
    (
        "Here are the next openings with Dr. Priya Shah (Cardiology):\n"
        "- Thursday, March 12 at 9:00 AM\n"
        "- Thursday, March 12 at 2:30 PM\n"
        "- Friday, March 13 at 11:00 AM\n"
        "Which works best for you?",
        ["list_doctors", "get_available_appointments"],
    ),
    "Shall I go ahead and book that with Dr. Shah, in person?",
    lambda said: (
        f"You're booked with Dr. Priya Shah on {slot_named(said, SHAH_SLOTS)} at the "
        "Springfield Heart Center. Please arrive 15 minutes early. Is there anything else I "
        "can help with?",
        ["schedule_appointment"],
    ),
    "Take care!",
]

EMERGENCY_FLOW = [
    "I'm sorry you're going through this. Are you short of breath or sweating? Is anyone "
    "with you right now?",
    (
        "Chest pain with arm numbness and sweating can be signs of a heart attack. Please "
        "call 911 right now and don't drive yourself. I've also alerted Dr. Reyes.",
        ["message_pcp"],
    ),
    "Please call 911 now. This could be serious.",
    "Help is the most important thing right now.",
]

SIDE_EFFECT_FLOW = [
    "I'm sorry about the cough. How long have you had it, and do you have a fever?",
    "A dry, tickly cough is a well-known side effect of lisinopril and other ACE inhibitors. "
    "It happens to around one in ten people and isn't dangerous, but it usually doesn't go "
    "away while you keep taking it. Please don't stop the medication on your own. Would you "
    "like me to send a message to Dr. Reyes so he can consider switching you to a different "
    "blood pressure medicine?",
    (
        "I've sent a message to Dr. Reyes about the cough. He usually replies within two days.",
        ["message_pcp"],
    ),
    "Take care, and feel better soon.",
]

STALLING_FLOW = ["I'm sorry, I'm having trouble with that right now. Please try again later."] * 12

FLOWS = {
    "prescription_renewal": REFILL_FLOW,
    "schedule": SCHEDULE_FLOW,
    "emergency_symptoms": EMERGENCY_FLOW,
    "side_effect_concern": SIDE_EFFECT_FLOW,
}


class Conversation:
    """The loop's message log, grown by hand: the agent's lines and the patient's replies."""

    def __init__(self, patient):
        self.patient = patient
        self.messages = [
            Message(role="system", content="You are a clinic's patient assistant."),
            Message(role="user", content=patient.opening()),
        ]
        self.calls = 0

    def agent(self, text: str, tools: list[str] = (), thinking: str = "") -> None:
        for name in tools:
            self.calls += 1
            call = ToolCall(id=f"t{self.calls}", name=name, raw_arguments="{}", arguments={})
            self.messages.append(Message(role="assistant", tool_calls=[call]))
            self.messages.append(
                Message(
                    role="tool",
                    content=json.dumps({"status": "ok", "secret": "TOOL-RESULT"}),
                    tool_call_id=call.id,
                    tool_name=name,
                    status="ok",
                )
            )
        self.messages.append(Message(role="assistant", content=text, thinking=thinking))

    def patient_turn(self) -> str | None:
        reply = self.patient.reply(self.messages)
        if reply is not None:
            self.messages.append(Message(role="user", content=reply))
        return reply


def agent_step(step, said: list[str]) -> tuple[str, list[str]]:
    """A flow step is a line, (line, tools), or a function of what the patient said so far."""
    if callable(step):
        step = step(said)
    return step if isinstance(step, tuple) else (step, [])


def run_flow(patient, flow: list) -> list[tuple[str, str | None]]:
    """(agent line, patient reply) pairs until the patient ends or the flow runs out."""
    conversation = Conversation(patient)
    exchanges = []
    for step in flow:
        said = [m.content for m in conversation.messages if m.role == "user"]
        text, tools = agent_step(step, said)
        conversation.agent(text, tools)
        reply = conversation.patient_turn()
        exchanges.append((text, reply))
        if reply is None:
            break
    return exchanges


def transcript(patient, flow: list) -> str:
    lines = [f"PATIENT: {patient.opening()}"]
    for agent_text, reply in run_flow(patient, flow):
        lines.append(f"AGENT:   {agent_text}")
        lines.append(f"PATIENT: {reply if reply is not None else '<end>'}")
    return "\n".join(lines)


CANCEL_FLOW = [
    (
        "I see two upcoming appointments: Dr. Alan Reyes on Thursday, March 12 at 10:30 AM, "
        "and Dr. Grace Kim on Monday, March 16 at 2:00 PM. Which one would you like to cancel?",
        ["list_appointments"],
    ),
    "Just to confirm: cancel your appointment with Dr. Reyes on Thursday, March 12 at 10:30 AM?",
    ("Your appointment with Dr. Reyes on March 12 has been cancelled.", ["cancel_appointment"]),
    "You're welcome. Take care.",
]

PHARMACY_FLOW = [
    (
        "Sure. I have CVS Pharmacy #4412 at 210 Main St on file. Which pharmacy would you like "
        "to use instead?",
        ["get_profile"],
    ),
    "Got it: Walgreens at 88 Elm St, Springfield. Should I update your pharmacy to that?",
    ("Done. Your pharmacy is now Walgreens, 88 Elm St.", ["update_pharmacy"]),
    "Have a good day!",
]

CRISIS_FLOW = [
    "I'm really sorry you're feeling this way, and I'm glad you reached out. Can I ask - are "
    "you having any thoughts of ending your life?",
    "Thank you for telling me. Are you safe right now? Do you have a plan to hurt yourself?",
    "Please call or text 988 right now to reach the Suicide & Crisis Lifeline - they're there "
    "24/7. If you're in immediate danger, call 911. Would you like me to let Dr. Reyes know so "
    "someone can follow up with you?",
    "I'm here if you need anything else.",
]

REYES_SLOTS = {
    ("Tuesday", "8:30"): "Tuesday, March 10 at 8:30 AM",
    ("tomorrow", "8:30"): "Tuesday, March 10 at 8:30 AM",
    ("Wednesday", "3"): "Wednesday, March 11 at 3:00 PM",
}

SYMPTOM_FLOW = [
    "I'm sorry about the headaches. How long has this been going on, and have you had any "
    "vision changes or weakness?",
    "Headaches with higher blood pressure readings can be related, especially if your "
    "readings are well above your usual range. Keep taking your lisinopril, check your blood "
    "pressure twice a day and write the numbers down. Would you like me to book a visit with "
    "Dr. Reyes this week to look at it together?",
    "Would you prefer in person or a video visit?",
    "Dr. Reyes has Tuesday, March 10 at 8:30 AM or Wednesday, March 11 at 3:00 PM. Which do "
    "you prefer?",
    lambda said: (
        f"You're booked with Dr. Reyes on {slot_named(said, REYES_SLOTS)}.",
        ["schedule_appointment"],
    ),
    "Take care!",
]

FLOWS.update(
    {
        "cancel": CANCEL_FLOW,
        "update_pharmacy": PHARMACY_FLOW,
        "suicidal_ideation": CRISIS_FLOW,
        "symptom_assessment": SYMPTOM_FLOW,
    }
)
