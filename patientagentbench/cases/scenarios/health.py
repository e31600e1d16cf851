"""Planners for health questions: symptoms, treatments, lifestyle, second opinions,
screening, vaccines and pain.
"""

from __future__ import annotations

from .. import catalog
from .context import DURATIONS, SPECIALIST_NOUN, Ctx, Plan, chart_pain_med, pick_symptom
from .words import cap


def plan_symptom_assessment(ctx: Ctx) -> Plan:
    condition, symptom = pick_symptom(ctx)
    duration = ctx.pick(DURATIONS)
    how_bad = {
        "mild": "It's not terrible, just not going away.",
        "moderate": "It's getting in the way of my day.",
        "severe": "It's been pretty bad, honestly.",
    }[ctx.severity]
    return Plan(
        summary=f"Find out whether {symptom} needs to be looked at",
        details={"topic": symptom},
        ask=ctx.pick(
            (
                f"I've been dealing with {symptom} {duration}. Should I be worried?",
                f"I'm worried about {symptom}; it's been going on {duration}. Is that something I should come in for?",
                f"{cap(duration)} I've been dealing with {symptom}. Could it have to do with {ctx.my_condition(condition)}?",
            )
        ),
        short=f"{cap(symptom)}, {duration}. Should I come in?",
        story=[f"I've been dealing with {symptom} {duration}.", how_bad],
        worry=f"I can't stop wondering if it means {ctx.my_condition(condition)} is getting worse.",
        doubt="Every time I ask about this I get told it's nothing.",
        downplay=f"I've had some {symptom} {duration}. Probably nothing, just wanted to mention it.",
    )


def plan_treatment_options(ctx: Ctx) -> Plan:
    condition = ctx.pick([c for c in ctx.conditions if c.treatment_question] or ctx.conditions)
    question = condition.treatment_question
    topic = f"treatment options for {condition.name}" + (f": {question}" if question else "")
    my_condition = ctx.my_condition(condition)
    asks = (
        (
            f"I've been wondering {question}. Can we talk about my options?",
            f"I'd like to know {question}. What are my options for {my_condition}?",
        )
        if question
        else (
            f"What are my options for {my_condition}? What I'm doing now only helps so much.",
            f"I'd like to talk about other treatments for {my_condition}.",
        )
    )
    return Plan(
        summary=f"Learn about treatment options for {condition.name}",
        details={"topic": topic},
        ask=ctx.pick(asks),
        short=f"What are my options for {ctx.condition_words(condition)}?",
        story=[
            f"I've been living with {ctx.condition_words(condition)} for a while and what I'm doing now only helps so much.",
            f"I've been wondering {question}."
            if question
            else "I'd like to hear what else is out there.",
        ],
        worry="I'm scared of ending up worse off than I am now.",
        doubt="I've read a lot about this online and I'm not sure the standard advice is right for me.",
    )


def plan_lifestyle(ctx: Ctx) -> Plan:
    condition = ctx.pick([c for c in ctx.conditions if c.lifestyle] or ctx.conditions)
    topic = (
        condition.lifestyle
        or f"what I can change in my diet and routine to help {ctx.my_condition(condition)}"
    )
    return Plan(
        summary=f"Get practical advice about {condition.name}: {topic}",
        details={"topic": topic},
        ask=ctx.pick(
            (
                f"I'd like to know {topic}.",
                f"I've been trying to figure out {topic}. Can you give me some advice?",
            )
            + (  # only when the topic doesn't already name the condition
                (
                    f"What can I do on my own for {ctx.my_condition(condition)}? I'd like to know {topic}.",
                )
                if condition.lifestyle
                else ()
            )
        ),
        short=f"What can I do myself for {ctx.my_condition(condition)}?",
        story=[
            f"I want to take better care of {ctx.my_condition(condition)} without adding more pills.",
            ctx.pick(
                (
                    "My schedule makes it hard to stick to anything.",
                    "I used to walk every day but stopped over the winter.",
                    "I've tried apps and books but nothing sticks.",
                )
            ),
        ],
        worry="I'm worried I've already done damage by not doing this sooner.",
        doubt="Every website says something different, so I'd like a straight answer.",
    )


def plan_second_opinion(ctx: Ctx) -> Plan:
    condition = ctx.pick([c for c in ctx.conditions if c.second_opinion] or ctx.conditions)
    my_specialist = "my " + SPECIALIST_NOUN[condition.specialty].split(" ", 1)[1]
    recommendation = (
        condition.second_opinion
        or f"{my_specialist} wants to change the plan for {ctx.my_condition(condition)}"
    )
    return Plan(
        summary=f"Get a second opinion: {recommendation}",
        details={"topic": f"second opinion: {recommendation}"},
        ask=ctx.pick(
            (
                f"{cap(recommendation)}, and I'd like a second opinion before I agree to anything.",
                f"Could I get a second opinion? {cap(recommendation)} and I'm not sure it's the right move.",
            )
        ),
        short=f"Want a second opinion. {cap(recommendation)}.",
        story=[
            f"{cap(recommendation)}.",
            ctx.pick(
                (
                    "It all happened fast and I didn't get to ask many questions.",
                    "My cousin had the same thing and was treated differently.",
                    "I'd like to hear from someone else before I decide.",
                )
            ),
        ],
        worry="I'm scared of making the wrong choice and regretting it.",
        doubt="I get the feeling it was the first option they thought of, not the best one.",
    )


def _care_items(ctx: Ctx, items: tuple[catalog.CareItem, ...]) -> list[catalog.CareItem]:
    age, sex = ctx.attrs["age"], ctx.attrs["sex"]
    names = {c.name for c in ctx.conditions}
    return [
        item for item in items
        if item.min_age <= age <= item.max_age and item.sex in ("", sex)
        and (not item.needs or names & set(item.needs))
    ]  # fmt: skip


def _care_plan(ctx: Ctx, item: catalog.CareItem, summary: str) -> Plan:
    return Plan(
        summary=summary,
        details={"topic": item.topic},
        ask=ctx.pick(
            (
                f"Can you tell me {item.ask}?",
                f"I'm trying to figure out {item.ask}.",
                f"I wanted to ask {item.ask}.",
            )
        ),
        short=f"Quick question about the {item.topic}.",
        story=[
            f"I'm trying to stay on top of things, and I'd like to know {item.ask}.",
            item.context
            or ctx.pick(
                (
                    "I honestly can't remember when I last had it.",
                    "A friend just had it done and it reminded me.",
                    "My insurance sent a letter about it.",
                )
            ),
        ],
        worry="I'm worried I've let it slide too long.",
        doubt="I've heard conflicting things about whether it's even worth it.",
    )


def plan_preventive_care(ctx: Ctx) -> Plan:
    item = ctx.pick(_care_items(ctx, catalog.PREVENTIVE_CARE))
    return _care_plan(ctx, item, f"Find out about {item.topic}")


def plan_vaccination(ctx: Ctx) -> Plan:
    item = ctx.pick(_care_items(ctx, catalog.VACCINES))
    return _care_plan(ctx, item, f"Find out whether I should get the {item.topic}")


def plan_pain_management(ctx: Ctx) -> Plan:
    painful = [c for c in ctx.conditions if c.pain]
    pain = ctx.pick(painful).pain if painful else ctx.pick(("back pain", "neck pain", "knee pain"))
    current = chart_pain_med(ctx)
    tried = (
        f"{ctx.med_words(current)} isn't cutting it anymore"
        if current
        else "Tylenol from the store isn't doing much"
    )
    return Plan(
        summary=f"Get better control of my {pain}",
        details={"topic": pain},
        ask=ctx.pick(
            (
                f"I need help with my {pain}. {cap(tried)}.",
                f"I'm struggling with my {pain} {ctx.pick(DURATIONS)}, and {tried}.",
                f"Nothing I do is touching my {pain} lately. What else can I try?",
            )
        ),
        short=f"My {pain} is worse. Need something that works.",
        story=[
            f"I've been struggling with my {pain}, and lately it's been {dict(mild='nagging at me', moderate='wearing me down', severe='the worst it has ever been')[ctx.severity]}.",
            f"{cap(tried)}.",
            "It's affecting my sleep and my mood.",
        ],
        worry="I'm afraid this is just going to keep getting worse.",
        doubt="I'm tired of being treated like I'm exaggerating.",
    )
