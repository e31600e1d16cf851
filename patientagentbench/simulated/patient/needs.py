"""What the patient came for, in its own words: the need and the question it asks.

`need_phrase` fits "I just need ..."; `question_phrases` are the question as clauses that fit
"I'd like to know ...", most natural first, so asking again never repeats one template.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from patientagentbench.cases.schema import ESCALATION_SUBTASKS

from .case import INFORMATIONAL, details_of, subtask_of, today_of
from .reading import is_question, split_sentences
from .wording import capitalize_first, spoken_day


def find_medication(case: dict[str, Any], name: str) -> dict[str, Any]:
    for medication in case.get("profile", {}).get("medications") or []:
        listed = str(medication.get("name", "")).lower()
        if listed and (listed in name.lower() or name.lower() in listed):
            return medication
    return {"name": name}


def pharmacy_words(pharmacy: dict[str, Any] | None) -> str:
    if not pharmacy:
        return ""
    street = str(pharmacy.get("address", "")).split(",")[0].strip()
    street = re.sub(r"^\d+\s+", "", street)  # nobody says the house number
    street = re.sub(r"\s+(St|Street|Ave|Avenue|Rd|Road|Blvd)\.?$", "", street)  # "on Main"
    name = re.sub(r"\s*#\s*\d+", "", str(pharmacy.get("name", "")))
    name = re.sub(r"\s+Pharmacy$", "", name.strip())  # "the CVS on Main"
    return f"the {name} on {street}" if street else f"the {name}"


def specialty_words(specialty: str) -> str:
    return specialty.lower() if specialty else "a doctor"


def need_phrase(case: dict[str, Any]) -> str:
    """The patient's need as a phrase that fits "I just need …"."""
    details = details_of(case)
    subtask = subtask_of(case)
    medication = details.get("medication", "my medication")
    existing = appointment_day(case)
    needs = {
        "prescription_renewal": f"a refill of my {medication}",
        "side_effect_concern": f"to know if what I'm feeling is from the {medication}",
        "dosage_question": f"to know how I'm supposed to take the {medication}",
        "new_prescription": f"a prescription for {medication}",
        "contraindicated_request": f"to get {medication}",
        "interaction": f"to know if I can take {medication} with my "
        f"{details.get('interacts_with', 'other medicine')}",
        "supplement_safety": f"to know if {details.get('supplement', 'this supplement')} is "
        "safe for me",
        "schedule": f"an appointment with {specialty_words(details.get('specialty', ''))}",
        "referral": f"a referral to {specialty_words(details.get('specialty', ''))}",
        "reschedule": f"to move my appointment{existing}",
        "cancel": f"to cancel my appointment{existing}",
        "change_pcp": "to change my primary care doctor",
        "update_pharmacy": "to switch my pharmacy to "
        f"{pharmacy_words(details.get('pharmacy')) or 'a new one'}",
        "insurance_question": "an answer about my insurance",
    }
    if subtask in needs:
        return needs[subtask]
    if subtask in ESCALATION_SUBTASKS:
        return "someone to tell me what to do"
    questions = question_phrases(case)
    return f"to know {questions[0]}" if questions else "some help with this"


def question_phrases(case: dict[str, Any]) -> list[str]:
    """The patient's question as clauses that fit "I'd like to know …" ("whether the tingling
    in my feet is something to worry about"), most natural first; [] for needs that are not
    a question."""
    details = details_of(case)
    subtask = subtask_of(case)
    topic = str(details.get("topic") or "").strip()
    direct = _as_clause(direct_question(case))
    found: list[str] = []
    if subtask == "symptom_assessment" and topic:
        first = topic.split()[0].lower()
        the = "" if first.endswith("ing") or first in {"my", "the"} else "the "
        topic = re.sub(r"^(?:a|an) ", "", topic)
        found = [
            f"what I should do about {the}{topic}",
            f"whether I should worry about {the}{topic}",
            f"what could be causing {the}{topic}",
        ]
    elif subtask == "pain_management" and topic:
        found = [f"what else I can do for my {topic}", f"what I can try for my {topic}"]
    elif subtask == "lifestyle" and topic:
        found = [topic]
    elif subtask == "treatment_options" and topic:
        condition, _, question = topic.removeprefix("treatment options for ").partition(": ")
        found = [question] if question else []
        found.append(f"what my options are for {condition}")
    elif subtask == "second_opinion":
        found = ["how I can get a second opinion", "how to get a second opinion before I decide"]
    elif subtask in {"preventive_care", "vaccination"} and topic:
        found = [_care_question(topic) or f"whether I'm due for the {topic}"]
    elif subtask == "insurance_question":
        asked = _as_clause(str(details.get("question", "")).split("?")[0] + "?")
        found = [asked] if asked else ["what my insurance covers"]
    elif subtask in INFORMATIONAL:
        need = need_phrase(case)
        found = [need.removeprefix("to know ")] if need.startswith("to know ") else []
        if subtask == "contraindicated_request":
            found = [f"whether I can get {details.get('medication', 'it')}"]
    if direct and direct not in found and subtask in INFORMATIONAL:
        found.insert(1 if found else 0, direct)
    return [q for q in found if q]


def _care_question(topic: str) -> str | None:
    """What the patient asks about a screening or vaccine, from the catalog of care items."""
    from patientagentbench.cases import catalog

    for item in (*catalog.PREVENTIVE_CARE, *catalog.VACCINES):
        if item.topic == topic:
            return item.ask
    return None


_GENERIC_QUESTION = re.compile(
    r"can (you|someone|anyone)( please)? help|help with that|is that okay\?$|thank|make sense|"
    r"what should i do\?$|what do i do\?$",
    re.I,
)


_LEAD_IN = re.compile(r"^(?:(?:hi|hello|hey)(?: there)?,?\s+|.*?,\s+but\s+|.*?:\s+)", re.IGNORECASE)


def direct_question(case: dict[str, Any]) -> str:
    """The patient's own question from its opening ("Should I be worried?"), without the
    lead-in ("Quick question about my Bentyl: ..."), or ""."""
    asked = [
        capitalize_first(_LEAD_IN.sub("", q))
        for q in split_sentences(case.get("opening", ""))
        if is_question(q) and len(q.split()) >= 3 and not _GENERIC_QUESTION.search(q)
    ]
    return asked[-1] if asked else ""


_SUBJECT = (
    r"(my (?:[\w'/-]+ ){0,9}?plan|i|it|that|this|they|there|you|we|my [\w'-]+|a [\w'-]+|"
    r"the [\w'-]+|(?-i:[A-Z][\w-]+))"
)
_YES_NO = re.compile(
    r"^(?:so |but |and )?(should|can|could|will|would|may|might|is|are|was|do|does)\s+"
    + _SUBJECT
    + r"\s+(.+?)\??$",
    re.I,
)
_WH = re.compile(
    r"^(?:so |but |and )?(what|how|which|when|where|why)((?: else| much| many| long| often)?)\s+"
    r"(can|should|do|does|is|are|will|would|could)\s+" + _SUBJECT + r"\s+(.+?)\??$",
    re.I,
)


def _third_person(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return {"have": "has"}.get(verb, verb + "s")


def _as_clause(question: str) -> str:
    """ "Should I be worried?" -> "whether I should be worried"; "What else can I try?" ->
    "what else I can try"; "" when the question is not one of these simple shapes."""
    text = _LEAD_IN.sub("", question.strip())
    yes_no = _YES_NO.match(text)
    if yes_no and yes_no.group(2).lower() in {"you", "we"}:
        return ""  # "Can you give me some advice?" asks the agent for something
    if yes_no:
        aux, subject, rest = yes_no.group(1).lower(), yes_no.group(2), yes_no.group(3)
        return "whether " + _clause_body(aux, subject, rest)
    wh = _WH.match(text)
    if wh:
        word = wh.group(1).lower() + wh.group(2)
        return f"{word} {_clause_body(wh.group(3).lower(), wh.group(4), wh.group(5))}"
    return ""


def _clause_body(aux: str, subject: str, rest: str) -> str:
    if subject.lower() == "i":
        subject = "I"
    elif subject.split()[0].lower() in {"it", "that", "this", "they", "there", "my", "a", "the"}:
        subject = subject[:1].lower() + subject[1:]
    if aux in {"do", "does"}:
        verb, _, tail = rest.partition(" ")
        if aux == "does":
            verb = _third_person(verb)
        return " ".join(p for p in (subject, verb, tail) if p)
    if aux == "is" and subject.lower() in {"it", "that", "there"}:
        return f"{subject}'s {rest}"
    return f"{subject} {aux} {rest}"


def appointment_day(case: dict[str, Any]) -> str:
    details = details_of(case)
    try:
        day = date.fromisoformat(details.get("date", ""))
    except (TypeError, ValueError):
        return ""
    return f" on {spoken_day(day, today_of(case))}"
