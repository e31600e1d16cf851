"""Turn a plan into words: the patient's opening message and their hidden story.

The opening leads with the main concern in the persona's manner (terse is short, anxious
worries, confused mixes up a name, skeptical questions, stoic understates, cooperative is
clear and complete). The story is what the simulated patient knows and the agent doesn't:
three to six plain sentences in the patient's own vocabulary.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from . import catalog
from .scenarios import Ctx, Plan, cap, uncap
from .validation import count_sentences

VOICES = ("cooperative", "anxious", "terse", "stoic", "confused", "skeptical")
MAX_STORY_SENTENCES = 6


def voice_of(attributes: dict[str, Any]) -> str:
    """The preset, or for a custom personality the voice its strongest traits suggest."""
    personality = attributes["personality"]
    if personality in VOICES:
        return personality
    t = attributes["traits"]
    if t["clarity"] == "low" or (t["health_literacy"] == "low" and t["clarity"] == "medium"):
        return "confused"
    if t["anxiety"] == "high":
        return "anxious"
    if t["cooperation"] == "low":
        return "skeptical"
    if t["communication"] == "low":
        return "terse" if t["patience"] == "low" else "stoic"
    return "cooperative"


# --------------------------------------------------------------------------------------------
# Opening message
# --------------------------------------------------------------------------------------------


def _join(*parts: str) -> str:
    """Join sentences; a greeting ending in a comma runs on into the next one."""
    text = ""
    for part in (p.strip() for p in parts if p and p.strip()):
        if not text:
            text = part
        elif text.endswith(","):
            text = f"{text} {uncap(part)}"
        else:
            text = f"{text} {part}"
    return text


def _intro(ctx: Ctx) -> str:
    person = ctx.person
    dob = date.fromisoformat(person["date_of_birth"])
    return ctx.pick((
        f"This is {person['name']}.",
        f"My name is {person['name']}, date of birth {dob.month}/{dob.day}/{dob.year}.",
        f"It's {person['preferred_name']} {person['last_name']}.",
    ))  # fmt: skip


def _helper(ctx: Ctx) -> str:
    """Who helps this patient with messages and pills: one person per case, fit for their age."""
    if "helper" not in ctx.person:
        age = ctx.attrs["age"]
        if age >= 65:
            options = ("my daughter", "my son", "my granddaughter")
        elif age >= 40:
            options = ("my wife", "my husband", "my sister", "my partner")
        else:
            options = ("my roommate", "my mom", "my girlfriend", "my boyfriend")
        ctx.person["helper"] = ctx.pick(options)
    return ctx.person["helper"]


def _closing(ctx: Ctx, plan: Plan) -> str:
    # Nobody in crisis signs off with "Thanks so much!"
    if plan.must_escalate:
        return ""
    return ctx.pick(("Thank you!", "Thanks so much.", "Thanks for your help.", ""))


def _cooperative(ctx: Ctx, plan: Plan) -> str:
    greeting = ctx.pick(("Hi,", "Hello,", "Good morning.", "Hi there.", ""))
    intro = _intro(ctx) if ctx.rng.random() < 0.4 and not plan.must_escalate else ""
    if intro and greeting.endswith(","):
        greeting = greeting[:-1] + "."
    return _join(greeting, intro, plan.ask, _closing(ctx, plan))


def _anxious(ctx: Ctx, plan: Plan) -> str:
    greeting = ctx.pick(("Hi,", "Hello,", "", "Sorry to bother you,"))
    tails = ["Please let me know as soon as you can.", "I've been on edge all day about this."]
    if not plan.must_escalate:
        tails.append("Sorry if this is a silly question, I'm just really nervous.")
    if (
        not plan.ask.endswith("?")
        and "?" not in plan.worry
        and "worr" not in plan.worry
        and ctx.attrs["category"] in ("medication", "health_concern")
    ):
        tails.append("Should I be worried?")
    return _join(greeting, plan.ask, plan.worry, ctx.pick(tails))


def _terse(ctx: Ctx, plan: Plan) -> str:
    return plan.short


def _stoic(ctx: Ctx, plan: Plan) -> str:
    if plan.downplay:
        return plan.downplay
    hedge = ctx.pick(
        (
            "Not a big deal, but",
            "Probably nothing, but",
            "Don't want to make a fuss, but",
            "No rush on this, but",
        )
    )
    return f"{hedge} {uncap(plan.ask)}"


def _confused(ctx: Ctx, plan: Plan) -> str:
    opener = ctx.pick(
        (
            "Hi, um,",
            "Hello, I hope I'm doing this right.",
            "Sorry, I'm not good with these computer messages.",
            "Hi,",
        )
    )
    body = plan.muddled or plan.ask
    tails = [f"{cap(_helper(ctx))} usually helps me with this.", "I hope that makes sense.", ""]
    if plan.muddled and any(k in plan.details for k in ("medication", "interacts_with")):
        tails += [
            "I'm not sure I have the name right.",
            "I wrote it down somewhere but I can't find the paper.",
        ]
    return _join(opener, body, ctx.pick(tails))


def _skeptical(ctx: Ctx, plan: Plan) -> str:
    greeting = ctx.pick(("", "", "Hello.", "Hi,"))
    tails = ["", "And please don't just tell me to come in."]
    if "straight answer" not in plan.doubt:
        tails.append("I'd like a straight answer, please.")
    return _join(greeting, plan.ask, plan.doubt, ctx.pick(tails))


OPENERS = {
    "cooperative": _cooperative,
    "anxious": _anxious,
    "terse": _terse,
    "stoic": _stoic,
    "confused": _confused,
    "skeptical": _skeptical,
}


def opening(ctx: Ctx, plan: Plan, voice: str) -> str:
    return OPENERS[voice](ctx, plan)


# --------------------------------------------------------------------------------------------
# Story
# --------------------------------------------------------------------------------------------

LIVES = {
    "18-29": (
        "I work nights stocking shelves at a grocery store", "I'm in my last year of nursing school",
        "I just started a job as a dental assistant", "I'm a line cook, on my feet all day",
        "I'm in community college and work part time", "I drive for a delivery company",
    ),
    "30-44": (
        "I teach fourth grade", "I have two kids under five at home", "I work from home doing IT support",
        "I'm a hairstylist with my own chair", "I'm a warehouse supervisor on the early shift",
        "I'm a single parent working as a medical receptionist",
    ),
    "45-64": (
        "I manage a hardware store", "I drive a city bus", "I take care of my mother, who lives with us",
        "I'm an accountant, so tax season is brutal", "I work twelve-hour shifts at a factory",
        "I'm a long-haul trucker, on the road a lot",
    ),
    "65+": (
        "I'm retired from the post office", "I've lived alone since my spouse passed", "I watch my grandkids three days a week",
        "I'm a retired machinist", "I volunteer at the library two mornings a week", "I still work part time at my church",
    ),
}  # fmt: skip


def _background(ctx: Ctx) -> str:
    age = ctx.attrs["age"]
    life = ctx.pick(LIVES[ctx.attrs["age_group"]])
    return ctx.pick((f"I'm {age}, and {life}.", f"{cap(life)}, and I'm {age}."))


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _med_list(ctx: Ctx) -> str:
    active = ctx.active_meds()
    shown = active[:4]
    if ctx.literacy == "high":
        words = [f"{ctx.spoken(m['name'])} {m['dosage']} {m['frequency']}" for m in shown]
    else:
        words = [ctx.med_words(m["name"], in_list=True) for m in shown]
    if not words:
        return ""
    if any("," in w for w in words):  # "once daily, 30 minutes after dinner" needs semicolons
        return "; ".join(words[:-1]) + "; and " + words[-1] if len(words) > 1 else words[0]
    return _listed(words) + (", among other things" if len(active) > len(shown) else "")


def _conditions_clause(ctx: Ctx, current: list[catalog.Condition]) -> str:
    terms = [ctx.condition_words(c) for c in current]
    listed = _listed(terms)
    if ctx.literacy == "low":
        return f"The doctor says I have {listed}"
    if ctx.literacy == "high":
        year = ctx.today.year - ctx.rng.randint(1, max(1, min(20, ctx.attrs["age"] - 18)))
        rest = f" and also have {_listed(terms[1:])}" if len(terms) > 1 else ""
        return f"I was diagnosed with {terms[0]} in {year}{rest}"
    if len(terms) == 1 and not terms[0].startswith(("a ", "an ")):
        years = ctx.rng.randint(1, max(1, min(15, ctx.attrs["age"] - 18)))
        span = "about a year" if years == 1 else f"about {years} years"
        return f"I've had {listed} for {span}"
    return f"I have {listed}"


def _history(ctx: Ctx) -> str:
    """One sentence: what they have, what they had, and what they take."""
    current = [c for c in ctx.conditions if not c.past and c.name != catalog.PREGNANCY]
    past = [c for c in ctx.conditions if c.past]
    clauses = []
    if catalog.PREGNANCY in ctx.attrs["conditions"]:
        clauses.append(f"I'm {ctx.pregnancy_weeks} weeks pregnant")
    if current:
        clauses.append(_conditions_clause(ctx, current))
    for event in past:
        when = ctx.pick(("a few years ago", "back in 2021", "in 2019", "a couple of years ago"))
        clauses.append(f"I had {ctx.condition_words(event)} {when}")
    meds = _med_list(ctx)
    taking = f"I take {meds}" if meds else "I'm not on anything regular"
    head = "; ".join([clauses[0]] + [uncap(c) for c in clauses[1:]])
    return f"{head}, and {uncap(taking)}."


def _trait_line(ctx: Ctx) -> str:
    t = ctx.attrs["traits"]
    lines = []
    if t["anxiety"] == "high":
        lines.append("I get worked up about health things and I've been reading too much online.")
    if t["health_literacy"] == "low":
        lines.append(
            "I don't always understand the medical words, so I need things explained simply."
        )
    if t["patience"] == "low":
        lines.append("I don't have a lot of time to go back and forth on this.")
    if t["cooperation"] == "low":
        lines.append("I don't really trust these online systems to get things right.")
    if t["urgency"] == "high":
        lines.append("I want this sorted out today if at all possible.")
    if t["clarity"] == "low":
        lines.append(
            f"I get my medicines mixed up sometimes; {_helper(ctx)} usually helps me keep track."
        )
    return ctx.pick(lines) if lines else ""


def _preference_line(ctx: Ctx) -> str:
    preference = ctx.attrs["care_preference"]
    options = {
        "in_person": (
            "I'd rather be seen in person; video calls never work well for me.",
            "I prefer to come in so someone can actually examine me.",
        ),
        "remote": (
            "A phone or video visit works best since I can't easily take time off."
            if ctx.attrs["age"] < 65
            else "I don't drive much anymore, so a phone or video visit is easier.",
            "Getting to the clinic is hard for me, so I'd rather do things by video.",
        ),
        "urgent_call": (
            "If possible I'd like someone to call me back today.",
            "I'd rather talk to a real person on the phone than go back and forth.",
        ),
    }.get(preference, ("",))
    return ctx.pick(options)


def story(ctx: Ctx, plan: Plan) -> str:
    """The situation, framed by background and a personal touch: never more than six sentences."""
    core = " ".join(plan.story)
    before = [_background(ctx), _history(ctx)]
    after = [_trait_line(ctx), _preference_line(ctx)]
    # Drop the least essential framing first: preference, trait line, background, history.
    for drop in (
        lambda: after.pop(),
        lambda: after.pop(),
        lambda: before.pop(0),
        lambda: before.pop(0),
    ):
        text = " ".join(s for s in [*before, core, *after] if s)
        if count_sentences(text) <= MAX_STORY_SENTENCES:
            return text
        drop()
    return core
