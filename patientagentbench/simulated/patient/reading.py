"""Reading the agent's message the way a person at a chat window would.

What it asks for (by kind, in the order asked), the yes/no offer it closes with, the
outcomes it reports ("I've booked..."; never a negated or conditional one), the options it
offers, and whether it says anything of substance. Only what the agent wrote counts, never
its tool calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .case import subtask_of, today_of
from .options import OFFERING, Option, parse_options, plain_text
from .wording import word_set

# An abbreviation's dot does not end a sentence - unless a new sentence plainly starts after
# it ("... 6657 Magnolia St. Anything else I can help with?").
_ABBREVIATION = re.compile(
    r"\b(Dr|Mr|Mrs|Ms|St|Mt|Jr|Sr|Ave|Rd|Blvd|approx|vs|e\.g|i\.e)\."
    r"(?!\s+(?:Anything|Is|Let|Would|Please|Your|If|You|Thanks|Have|Do|Can|Should|Take|See|"
    r"I)\b)"
)
_LIST_MARK = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+")


def split_sentences(text: str) -> list[str]:
    sentences = []
    for line in plain_text(text).splitlines():
        line = _LIST_MARK.sub("", line).strip()
        guarded = _ABBREVIATION.sub(lambda m: m.group(0).replace(".", "\x00"), line)
        for piece in re.split(r"(?<=[.!?])\s+", guarded):
            piece = piece.replace("\x00", ".").strip()
            if piece:
                sentences.append(piece)
    return sentences


def is_question(sentence: str) -> bool:
    return sentence.rstrip(" )\"'").endswith("?")


_REQUEST = re.compile(
    r"\b(please|kindly) (provide|share|confirm|tell|give|send|let me know|verify|spell)"
    r"|\b(can|could|may) i (have|get|ask|confirm)\b"
    r"|\bi('ll| will)? need (your|to know|a few|some|the)\b"
    r"|\blet me know\b",
    re.I,
)


def _is_request(sentence: str) -> bool:
    return is_question(sentence) or bool(_REQUEST.search(sentence))


# Order matters only for ties at the same position; each pattern is searched in request
# sentences (questions and "please tell me …"), never in statements.
QUESTION_KINDS: list[tuple[str, str]] = [
    ("dob", r"date of birth|\bdob\b|birth ?date|when were you born|birthday"),
    (
        "name",
        r"\byour (full |first and last |legal )?name\b|\b(full|legal) name\b"
        r"|who (am i|i'm|i am) (speaking|chatting|talking) (with|to)|spell your",
    ),
    (
        "phone",
        r"(phone|cell|mobile|contact|callback|telephone) number|number (to|where|we can|i can)"
        r" reach|best number|reach you at",
    ),
    ("email", r"e-?mail"),
    ("address", r"\b(home |mailing |street )?address\b|zip ?code|postal code"),
    ("insurance", r"insurance|member (id|number)|policy number|subscriber|insurer"),
    ("pharmacy", r"pharmac|drug ?store"),
    (
        "current_medications",
        r"(what|which|any|other|list|current|all( of)?( your)?) (other )?(current )?"
        r"(medications|medicines|meds|prescriptions)\b|taking (any|other)"
        r"|(medications|medicines|meds) (are you|you're|do you) (currently )?tak",
    ),
    (
        "medication",
        r"(which|what) (medication|medicine|prescription|drug|med)\b|name of the "
        r"(medication|medicine|drug|prescription)|medication name|what (is|was) it called",
    ),
    (
        "dosage",
        r"\bdos(e|age|ing)\b|how (much|many|often) (do|are|did) you (take|taking)|\bmg\b"
        r"|strength|milligram",
    ),
    ("allergies", r"allerg"),
    (
        "conditions",
        r"medical (history|conditions?)|health (conditions?|problems|history|issues)"
        r"|(other|any|chronic) (conditions|diagnoses|health issues)",
    ),
    (
        "duration",
        r"how long|when did (it|this|they|the|these|your|you (first )?(notice|start))"
        r"|since when|how many (days|weeks|hours)",
    ),
    (
        "severity",
        r"scale of|out of (10|ten)|rate (it|the|your|how)|how (bad|severe|intense|strong)",
    ),
    (
        "safety",
        r"(thoughts?|thinking) (of|about) (harming|hurting|killing|ending|suicide|dying)"
        r"|harm(ing)? yourself|hurt(ing)? yourself|kill(ing)? yourself|end(ing)? your life"
        r"|suicid|are you safe|feel safe|in (immediate )?danger",
    ),
    (
        "plan",
        r"\b(a|any) plan (to|for)\b|do you have a plan|how you would|access to (a )?(weapon|firearm|gun|pills)",
    ),
    (
        "alone",
        r"(anyone|someone|somebody) (with you|there|nearby|around|who can)|are you alone"
        r"|by yourself",
    ),
    (
        "able_to_call",
        r"(can|are) you (able to )?(call|get to|dial)\b|(can|could) (someone|somebody|anyone)"
        r" (drive|take) you",
    ),
    (
        "appointment_type",
        r"in[- ]person|tele-?health|virtual|video|\bremote|phone (visit|call|appointment)"
        r"|online (visit|appointment)",
    ),
    (
        "when",
        r"what (day|date|days|dates)|which (day|date)|when would you|when (are|is) (you|it)"
        r" (available|free|best)|preferred (date|day|time)|what time|morning or afternoon"
        r"|availability|when works|what works (best )?for you|date and time",
    ),
    (
        "which_appointment",
        r"(which|what) appointment|appointment (date|details)|date (and time )?of (the|your) "
        r"appointment",
    ),
    (
        "doctor",
        r"(which|what) (doctor|provider|physician)|(doctor|provider)'?s? name|specific "
        r"(doctor|provider)|particular (doctor|provider)|preferred (doctor|provider)"
        r"|anyone in mind",
    ),
    (
        "specialty",
        r"what (kind|type|sort) of (doctor|specialist|appointment|visit|care)|which "
        r"(specialty|specialist|department)",
    ),
    ("supplement", r"(which|what) (supplement|vitamin|herb)"),
    (
        "reason",
        r"reason for|what (is|'s) (the|this) (appointment|visit) for|what brings you"
        r"|(purpose|reason) of|what would you like to (discuss|be seen for)"
        r"|what('s| is) (going on|the concern|bothering you)|how (can|may) i (help|assist)",
    ),
    (
        "symptoms",
        r"symptoms?|describe|tell me (more|a bit more|a little more|about)|more (detail|about)"
        r"|what (are you|have you been) (feeling|experiencing|noticing)|where (is|does|exactly)"
        r"|what kind of (pain|side effect)|side effects?|what happened|what happens"
        r"|anything else (about|you've|you have|going on)|anything more",
    ),
    (
        "anything_else",
        r"(anything|something) else (i|we) can|anything else (today|for you|you need)"
        r"|is there anything else\W*$|any other (questions|concerns)|else i can (help|do)",
    ),
]
_KIND_PATTERNS = [(kind, re.compile(pattern, re.I)) for kind, pattern in QUESTION_KINDS]
IDENTITY_KINDS = ("name", "dob", "phone", "email", "address")
# Plain data the patient looks up or recites; a "Sure." before it reads naturally.
DATA_KINDS = {
    *IDENTITY_KINDS,
    "insurance",
    "pharmacy",
    "medication",
    "current_medications",
    "dosage",
    "allergies",
    "conditions",
}
# Talk about how the patient is, where an unprompted detail fits.
ANSWERED_BY_PICKING = {"when", "appointment_type", "doctor"}
CLINICAL_KINDS = {"symptoms", "duration", "severity", "reason", "conditions"}
OFFER_CONTEXT_KINDS = {
    "pharmacy",
    "medication",
    "current_medications",
    "dosage",
    "insurance",
    "symptoms",
    "doctor",
    "specialty",
    "allergies",
    "conditions",
    "appointment_type",
    "which_appointment",
}
# Kinds that only make sense in crisis conversations ("a plan for your visit" is not this).
CRISIS_ONLY_KINDS = {"plan"}

_OFFER = re.compile(
    r"\b(shall i|should i|would you like me to|do you want me to|want me to|(can|may) i go "
    r"ahead|would you like (to|a|an|the|me|us|that|this|it|one)|is (that|this|it) (ok|okay|"
    r"alright|all right|correct|right|accurate|still)|does (that|this) (work|sound|look)|"
    r"(can|could) you confirm|please confirm|to confirm|ok(ay)? to proceed|go ahead|proceed|"
    r"are you (speaking|calling) about|am i speaking with|would that (work|be))\b",
    re.I,
)
_OFFER_TOPICS: list[tuple[str, str]] = [
    ("escalate", r"\b911\b|\b988\b|emergency|\ber\b|ambulance|crisis|urgent care"),
    ("cancel", r"\bcancel"),
    ("reschedule", r"reschedul|\bmove\b"),
    ("refill", r"refill|renew"),
    ("referral", r"\brefer"),
    ("prescribe", r"prescri"),
    ("pharmacy", r"pharmac"),
    ("insurance", r"insurance"),
    ("call", r"call you|call back|callback|queue|nurse (call|reach)|have someone"),
    (
        "message",
        r"message|notify|let (dr|your doctor|your provider|the doctor)|reach out to|send (a note|"
        r"this|that|it|your question|the question|your questions) to",
    ),
    ("book", r"\bbook|schedul|appointment|visit|slot"),
    # Last: "book an appointment with your primary care doctor" is a booking, not a PCP change.
    ("pcp", r"primary care|\bpcp\b"),
    ("verify", r"correct|right|accurate|speaking with|calling about"),
]
_OFFER_TOPIC_PATTERNS = [(topic, re.compile(p, re.I)) for topic, p in _OFFER_TOPICS]

_NEGATION = re.compile(
    r"\b(not|no longer|unable|cannot|can't|couldn't|won't|wasn't|isn't|hasn't|haven't|"
    r"didn't|don't|doesn't|failed|unfortunately|yet to|no need)\b",
    re.I,
)
_CONDITIONAL = re.compile(r"^\s*(if|in case|should you|whenever|anytime|any time)\b", re.I)
_RIGHT_NOW = re.compile(r"\b(now|right away|immediately|right now|as soon as possible)\b", re.I)
_WORKING = re.compile(
    r"\b(let me (check|look|see|pull)|one moment|give me a (moment|second|minute)|"
    r"checking (on )?(that|this|now)|looking into|bear with me|still checking)\b",
    re.I,
)

# Outcomes the patient can read in a statement: (outcome, main pattern, optional pattern
# that must also appear in the same sentence).
_OUTCOMES: list[tuple[str, str, str | None]] = [
    (
        "escalated",
        r"\b911\b|\b988\b|emergency (room|department|services)|\bER\b|urgent care|crisis "
        r"(line|lifeline|hotline|text line|center)|suicide (and crisis )?(line|lifeline|hotline)"
        r"|ambulance",
        None,
    ),
    (
        "booked",
        r"\b(i've|i have|i|we've|we have|has been|have been|is now|is|you're|you are) "
        r"(booked|scheduled|reserved|confirmed)|\ball set\b|you're on the schedule|^booked\b"
        r"|made (you )?an appointment|got you (in|booked|scheduled)",
        None,
    ),
    ("rescheduled", r"\b(rescheduled|moved)\b", None),
    ("cancelled", r"\bcancell?ed\b|cancellation (is |has been )?(confirmed|complete)", None),
    (
        "refill",
        r"\brefill",
        r"\b(sent|requested|submitted|placed|processed|called in|on its way|put in|ordered|"
        r"approved|requesting)\b",
    ),
    (
        "referral",
        r"\breferral",
        r"\b(sent|submitted|placed|requested|created|made|put in|entered)\b",
    ),
    (
        "prescription",
        r"\bprescription",
        r"\b(sent|requested|submitted|forwarded|placed|called in)\b",
    ),
    (
        "message_sent",
        r"\b(sent|forwarded|passed (it |this )?along|messaged|notified|relayed|let .{1,30} "
        r"know)\b",
        r"\b(doctor|dr\.?|pcp|provider|care team|physician|nurse|clinic|office)\b",
    ),
    (
        "handoff",
        r"\btransferr?(ing|ed)? you|connect(ing)? you|will (call|contact|reach out to|get "
        r"back to) you|call you back|in the (virtual )?(call )?queue|added you to|join(ed)? "
        r"the queue",
        None,
    ),
    ("pharmacy_updated", r"pharmac", r"\b(updated|changed|switched|set to|is now|now)\b"),
    (
        "pcp_updated",
        r"primary care|\bpcp\b|primary (doctor|physician)",
        r"\b(updated|changed|switched|set to|is now|now)\b",
    ),
    ("insurance_updated", r"insurance", r"\b(updated|changed|added|saved|is now)\b"),
]
_OUTCOME_PATTERNS = [
    (name, re.compile(main, re.I), re.compile(extra, re.I) if extra else None)
    for name, main, extra in _OUTCOMES
]


def _negated_before(sentence: str, start: int) -> bool:
    """A negation within the six words before the keyword ("couldn't be booked")."""
    window = " ".join(sentence[:start].split()[-6:])
    return bool(_NEGATION.search(window))


def _outcomes_in(sentence: str) -> set[str]:
    found = set()
    for name, main, extra in _OUTCOME_PATTERNS:
        match = main.search(sentence)
        if not match or (extra and not extra.search(sentence)):
            continue
        if _negated_before(sentence, match.start()):
            continue
        if name == "escalated":
            # Safety-netting ("if it gets worse, call 911") is not an escalation unless it is
            # about right now.
            if _CONDITIONAL.search(sentence) and not _RIGHT_NOW.search(sentence):
                continue
        elif is_question(sentence) or _CONDITIONAL.search(sentence):
            continue
        found.add(name)
    return found


# "Your doctor can advise you" defers the question; it does not answer it.
_DEFERRING = re.compile(
    r"can't diagnose|cannot diagnose|best person to|is the right person|your doctor(?:'s office)? "
    r"(?:can|will|would) (?:help|advise|confirm|tell|tailor|assess|look|check|review|suggest|"
    r"refer|go through)|go through (?:it |this |them )?with your doctor|can advise you",
    re.I,
)


@dataclass(frozen=True)
class AgentTurn:
    """What the patient took in from one agent turn."""

    text: str
    asks: tuple[tuple[str, str], ...] = ()  # (kind, clause), in the order asked
    offer: str | None = None  # topic of a yes/no offer or check ("book", "verify", …)
    offer_sentence: str = ""  # the offer and the sentence before it, which names its object
    options: tuple[Option, ...] = ()
    outcomes: frozenset[str] = frozenset()
    substantive: bool = False  # an answer of some length, not only questions or deferrals
    statement_words: frozenset[str] = frozenset()
    working: bool = False  # "Let me look into that."

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(kind for kind, _ in self.asks if kind != "unknown")

    @property
    def unknown_questions(self) -> tuple[str, ...]:
        return tuple(clause for kind, clause in self.asks if kind == "unknown")


def read_agent_turn(text: str, case: dict[str, Any]) -> AgentTurn:
    if not text.strip():
        return AgentTurn(text="")
    crisis = subtask_of(case) in {"suicidal_ideation", "mental_health_crisis"}
    sentences = split_sentences(text)
    requests = [s for s in sentences if _is_request(s)]
    asks = _asks(requests, crisis)
    offer, offer_sentence = _offer(sentences)
    outcomes: set[str] = set()
    for sentence in sentences:
        outcomes |= _outcomes_in(sentence)
    statements = [s for s in sentences if not _is_request(s) and not _DEFERRING.search(s)]
    options = parse_options(text, today_of(case))
    offering = bool(OFFERING.search(text)) and not (outcomes & {"booked", "rescheduled"})
    return AgentTurn(
        text=text,
        asks=tuple((k, c) for k, c in asks if k != "unknown" or c not in offer_sentence),
        offer=offer,
        offer_sentence=offer_sentence,
        options=tuple(options) if offering else (),
        outcomes=frozenset(outcomes),
        substantive=sum(len(s.split()) for s in statements) >= 18,
        statement_words=frozenset(word_set(" ".join(statements))),
        working=bool(_WORKING.search(text)) and len(sentences) <= 2,
    )


# "How long have you had it, and do you have a fever?" asks two things.
_CLAUSE_BREAK = re.compile(
    r",?\s+(?:and|or|also)\s+(?=(?:do|does|did|are|is|have|has|any|can|could|were|was|when|"
    r"how|what|where|which)\b)|;\s+",
    re.I,
)


def _asks(requests: list[str], crisis: bool) -> list[tuple[str, str]]:
    """(kind, clause) for everything asked, in the order asked; "unknown" for a question the
    patient has no slot for ("Do you have a fever?")."""
    asks: list[tuple[str, str]] = []
    for sentence in requests:
        question = is_question(sentence)
        for clause in _CLAUSE_BREAK.split(sentence):
            kinds = _kinds_in(clause, crisis)
            if kinds:
                asks.extend((kind, clause) for kind in kinds)
            elif question and not _OFFER.search(clause):
                asks.append(("unknown", clause))
    seen: set[str] = set()
    ordered = []
    for kind, clause in asks:
        if kind == "unknown" or kind not in seen:
            seen.add(kind)
            ordered.append((kind, clause))
    return ordered


def _kinds_in(clause: str, crisis: bool) -> list[str]:
    found = []
    for kind, pattern in _KIND_PATTERNS:
        if kind in CRISIS_ONLY_KINDS and not crisis:
            continue
        match = pattern.search(clause)
        if match:
            found.append((match.start(), kind))
    kept = _drop_overlaps({kind for _, kind in found}, clause)
    return [kind for _, kind in sorted(found) if kind in kept]


def _drop_overlaps(names: set[str], sentence: str) -> set[str]:
    """Pharmacy phone numbers and phone visits are not the patient's phone number."""
    lowered = sentence.lower()
    drop = set()
    if "pharmacy" in names:
        drop |= {"phone", "address"}
    if "plan" in names:
        drop.add("safety")  # "a plan to hurt yourself" asks about the plan
    if "appointment_type" in names and re.search(r"phone (visit|call|appointment)", lowered):
        drop.add("phone")
    if "anything_else" in names:
        drop |= {"symptoms", "reason"}
    if names & {"medication", "current_medications"} and not re.search(r"\bdos(e|age)", lowered):
        drop.add("dosage")  # "metformin 500 mg" names the medicine, it does not ask the dose
    if "symptoms" in names and names - {"symptoms", "anything_else"}:
        drop.add("symptoms")  # "where exactly" or "describe" inside a more specific question
    if _OFFER.search(sentence) and not re.search(
        r"\b(which|what|where|when|who|how)\b|\bor\b", lowered
    ):
        # "Shall I send the metformin refill to your pharmacy?" offers an action; the words
        # it names are not questions.
        drop |= OFFER_CONTEXT_KINDS
    return names - drop


def _offer(sentences: list[str]) -> tuple[str | None, str]:
    """The last yes/no offer or check, with the sentence before it ("I have CVS on Main as
    your pharmacy. Is that correct?")."""
    for index in range(len(sentences) - 1, -1, -1):  # the closing question is the one to answer
        sentence = sentences[index]
        if _is_request(sentence) and _OFFER.search(sentence):
            context = " ".join(sentences[max(0, index - 1) : index + 1])
            for topic, pattern in _OFFER_TOPIC_PATTERNS:
                if pattern.search(sentence):
                    return topic, context
            for topic, pattern in _OFFER_TOPIC_PATTERNS:
                if pattern.search(context):
                    return topic, context
            return "other", context
    return None, ""
