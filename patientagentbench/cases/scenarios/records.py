"""Planners for the patient's record: a new PCP, a new pharmacy, and insurance questions."""

from __future__ import annotations

from .. import catalog
from .context import SPECIALIST_NOUN, Ctx, Plan
from .words import cap, uncap


def plan_change_pcp(ctx: Ctx) -> Plan:
    age = ctx.attrs["age"]
    specialty = (
        "Geriatric Medicine"
        if age >= 70 and ctx.rng.random() < 0.4
        else ctx.pick(catalog.PCP_SPECIALTIES)
    )
    named = ctx.attrs["complexity"] == "infeasible" or ctx.rng.random() < 0.5
    doctor = ctx.make_doctor() if named else ""
    reason = ctx.pick((
        f"{ctx.pcp['name']} is retiring this spring", "I moved to the other side of town",
        "I don't feel listened to at my visits", "it takes weeks to get an appointment",
        "I'd like someone who sees a lot of patients like me",
    ))  # fmt: skip
    target = doctor or SPECIALIST_NOUN[specialty]
    return Plan(
        summary=f"Switch my primary care doctor to {target}",
        details={"specialty": specialty, "doctor": doctor},
        ask=ctx.pick(
            (
                f"I'd like to switch my primary care doctor to {target}. {cap(reason)}.",
                f"Can I change my PCP? {cap(reason)}, so I'd like {target} instead.",
            )
        ),
        short=f"Want to change my PCP to {target}.",
        story=[
            f"My primary care doctor is {ctx.pcp['name']}.",
            f"{cap(reason)}.",
            f"I'd like {target} instead.",
        ],
        worry="I'm nervous about starting over with someone new.",
        doubt="I've heard switching is a whole process, so I hope it's not complicated.",
    )


def plan_update_pharmacy(ctx: Ctx) -> Plan:
    new = ctx.make_pharmacy()
    street = new["address"].split(",")[0]
    reason = ctx.pick((
        "it's right by my new job" if ctx.attrs["age"] < 65 else "it's close to my daughter's place", "my old one keeps running out of my medicines",
        "the old one closed", "it's open later, which works better for me",
    ))  # fmt: skip
    old = f"from {ctx.pharmacy['name']} " if ctx.pharmacy else ""
    return Plan(
        summary=f"Change my pharmacy to {new['name']} at {street}",
        details={"pharmacy": new},
        ask=ctx.pick(
            (
                f"Please switch my pharmacy {old}to the {new['name']} at {street}. {cap(reason)}.",
                f"Can you update my pharmacy to {new['name']}, {new['address']}? {cap(reason)}.",
            )
        ),
        short=f"Change pharmacy to {new['name']}, {street}.",
        story=[
            f"I want my prescriptions to go to the {new['name']} at {new['address']}.",
            f"{cap(reason)}.",
        ],
        muddled=f"I want to change my pharmacy to the {new['name']}, the one on {street.split(' ', 1)[1]}, I think? I'm not sure of the number.",
        worry="I'm worried my next refill will go to the wrong place.",
        doubt="I asked at the front desk last time and it never got changed.",
    )


def plan_insurance_question(ctx: Ctx) -> Plan:
    insurance = ctx.insurance
    if insurance is None:
        question = "How much does a visit cost if I pay out of pocket? I lost my insurance."
    else:
        plan_name = _plan_short_name(insurance)
        noun = SPECIALIST_NOUN[ctx.primary.specialty]
        options = [
            f"Does my {plan_name} plan cover video visits?",
            f"Will my {plan_name} plan cover a visit with {noun}?",
            f"Do I need a referral to see {noun} with my plan?",
            "Do you have my current insurance card on file? I switched plans in January.",
        ]
        if ctx.attrs["age"] >= 65:
            options.append("Does Medicare pay for my yearly wellness visit?")
        question = ctx.pick(options)
    return Plan(
        summary=f"Get an answer to my insurance question: {question}",
        details={"question": question},
        ask=ctx.pick((f"I have an insurance question. {question}", question)),
        short=question,
        story=[
            f"I want to know before I book anything: {uncap(question)}",
            "I got a surprise bill last year and don't want that again.",
        ],
        worry="I really can't afford another surprise bill.",
        doubt="The insurance company told me to ask you, and I bet you'll tell me to ask them.",
    )


def _plan_short_name(insurance: dict[str, str]) -> str:
    if insurance["provider"] == "Medicare":
        return "Medicare"
    plan = insurance["plan"].split(" (")[0]
    return (
        plan
        if "Medicare" in plan or insurance["provider"] in plan
        else f"{insurance['provider']} {plan}"
    )
