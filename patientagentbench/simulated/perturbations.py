"""The ways the simulated agent departs from its reference plan, as real agents do.

Structure (which calls, in what order) is perturbed once per conversation, on plan entries;
surface (how arguments are written) and malformed calls are decided per concrete step. All
choices come from the `random.Random` the caller passes, so they are reproducible.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, replace
from typing import Any

from .plans import Observations, PlanEntry, Step, expand, plausible_arguments


@dataclass(frozen=True)
class StructureRates:
    drop_call: float
    insert_call: float
    swap_calls: float
    replace_call: float


def perturb_structure(
    entries: list[PlanEntry],
    rates: StructureRates,
    rng: random.Random,
    tools: list[dict[str, Any]],
    task: dict[str, Any],
) -> list[PlanEntry]:
    """Drop, replace, swap and insert plan entries. Every draw is made whatever the rates,
    so a lower rate (a lower temperature) only removes perturbations, never reshuffles them."""
    kept = [e for e in entries if rng.random() >= rates.drop_call]
    if entries and not kept:  # an agent that does nothing at all is a different failure
        kept = [entries[0]]
    replaced = []
    for entry in kept:
        draw, choice = rng.random(), rng.random()
        replaced.append(
            replacement_entry(entry, choice, tools, task) if draw < rates.replace_call else entry
        )
    swapped = _swap_neighbours(replaced, rates.swap_calls, rng)
    return _insert_extras(swapped, rates.insert_call, rng, tools, task)


def _swap_neighbours(entries: list[PlanEntry], rate: float, rng: random.Random) -> list[PlanEntry]:
    result = list(entries)
    draws = [rng.random() for _ in range(max(0, len(result) - 1))]
    just_swapped = False
    for i, draw in enumerate(draws):
        # A swapped pair is not swapped again, or an entry could travel down the whole plan.
        if draw < rate and not just_swapped:
            result[i], result[i + 1] = result[i + 1], result[i]
            just_swapped = True
        else:
            just_swapped = False
    return result


def _insert_extras(
    entries: list[PlanEntry],
    rate: float,
    rng: random.Random,
    tools: list[dict[str, Any]],
    task: dict[str, Any],
) -> list[PlanEntry]:
    result: list[PlanEntry] = []
    for gap in range(len(entries) + 1):
        choice = rng.random()
        if rng.random() < rate:
            extra = extra_entry(entries, gap, choice, tools, task)
            if extra is not None:
                result.append(extra)
        if gap < len(entries):
            result.append(entries[gap])
    return result


def extra_entry(
    entries: list[PlanEntry],
    gap: int,
    choice: float,
    tools: list[dict[str, Any]],
    task: dict[str, Any],
) -> PlanEntry | None:
    """A call the plan did not need: re-running a nearby lookup, or a read-only probe."""
    neighbours = [e for e in entries[max(0, gap - 1) : gap + 1] if isinstance(e, Step)]
    if neighbours and choice < 0.5:
        return neighbours[int(choice * 2 * len(neighbours)) % len(neighbours)]
    probes = [t for t in tools if t["name"].startswith(("get_", "list_", "search_"))] or tools
    if not probes:
        return None
    tool = probes[int(choice * len(probes)) % len(probes)]
    return Step(tool["name"], plausible_arguments(tool.get("parameters", {}), task))


def replacement_entry(
    entry: PlanEntry, choice: float, tools: list[dict[str, Any]], task: dict[str, Any]
) -> PlanEntry:
    """The entry with each of its steps done by a neighbouring tool instead."""

    def replaced(observations: Observations) -> list[Step]:
        return [replacement_step(s, choice, tools, task) for s in expand(entry, observations)]

    return replaced


def replacement_step(
    step: Step, choice: float, tools: list[dict[str, Any]], task: dict[str, Any]
) -> Step:
    names = {t["name"] for t in tools}
    swapped = _CLOSE_TOOLS.get(step.tool)
    if swapped and (not names or swapped[0] in names):
        return Step(swapped[0], swapped[1](step.arguments))
    others = [t for t in tools if t["name"] != step.tool]
    if not others:
        return step
    tool = others[int(choice * len(others)) % len(others)]
    arguments = plausible_arguments(tool.get("parameters", {}), task)
    shared = {k: v for k, v in step.arguments.items() if k in arguments}
    return Step(tool["name"], {**arguments, **shared})


def _text(arguments: dict[str, Any], key: str) -> str:
    return str(arguments.get(key, ""))


# The mix-ups real agents make between tools that do nearly the same thing.
_CLOSE_TOOLS = {
    "get_contact": ("search_contacts", lambda a: {"query": _text(a, "name").title()}),
    "search_contacts": (
        "get_contact",
        lambda a: {"name": (_text(a, "query").lower().split() or [""])[0]},
    ),
    "send_email": (
        "create_note",
        lambda a: {
            "title": _text(a, "subject") or "Draft",
            "content": f"To {_text(a, 'to')}: {_text(a, 'body')}",
        },
    ),
    "search_emails": ("search_contacts", lambda a: {"query": _text(a, "query")}),
}


# --- Argument surface -----------------------------------------------------------------------

ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
CLOCK_TIME = re.compile(r"^(\d{2}):(\d{2})$")
MONTHS = "January February March April May June July August September October November December"
FREE_TEXT_KEYS = ("body", "content", "message", "text", "description")

# Some synonyms keep a search working, some do not; both happen with real models.
SYNONYMS = {
    "budget": "budget review",
    "StartupXYZ": "Startup XYZ",
    "electronics": "electronic",
    "furniture": "Furniture",
    "office_supplies": "office supplies",
    "marketing campaign": "campaign results",
    "Acme Corp": "Acme",
    "board deck": "board",
    "Design Review": "Design review meeting",
    "Strategy Session": "Strategy session",
    "please": "follow up",
    "review": "pending review",
    "metrics": "MRR",
    "san_francisco": "San Francisco",
    "new_york": "New York",
}


def vary_surface(step: Step, rng: random.Random, schema: dict[str, Any]) -> Step:
    """The same call written differently: case, date or time format, a synonym, an optional
    key added or left out, or free text worded otherwise."""
    options = [
        (rewrite, key)
        for find_keys, rewrite in _SURFACE_VARIANTS
        for key in find_keys(step.arguments, schema)
    ]
    if not options:
        return step
    rewrite, key = rng.choice(options)
    return replace(step, arguments=rewrite(step.arguments, key, schema, rng))


def _short_words(arguments: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    return [
        k
        for k, v in arguments.items()
        if isinstance(v, str) and 0 < len(v) <= 40 and "@" not in v and re.search("[A-Za-z]", v)
    ]


def _recase(arguments, key, schema, rng):
    value = arguments[key]
    changed = value.title() if value == value.lower() else value.lower()
    return {**arguments, key: changed if changed != value else value.upper()}


def _iso_dates(arguments: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    return [k for k, v in arguments.items() if isinstance(v, str) and ISO_DATE.match(v)]


def _reformat_date(arguments, key, schema, rng):
    year, month, day = (int(p) for p in ISO_DATE.match(arguments[key]).groups())
    month_name = MONTHS.split()[month - 1]
    formats = [
        f"{month_name} {day}, {year}",
        f"{month:02d}/{day:02d}/{year}",
        f"{year}-{month}-{day}",
    ]
    return {**arguments, key: rng.choice(formats)}


def _clock_times(arguments: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    return [k for k, v in arguments.items() if isinstance(v, str) and CLOCK_TIME.match(v)]


def _reformat_time(arguments, key, schema, rng):
    hours, mins = (int(p) for p in CLOCK_TIME.match(arguments[key]).groups())
    twelve = hours % 12 or 12
    suffix = "pm" if hours >= 12 else "am"
    spoken = f"{twelve}{suffix}" if mins == 0 else f"{twelve}:{mins:02d}{suffix}"
    formats = [spoken, f"{twelve}:{mins:02d} {suffix.upper()}", f"{arguments[key]}:00"]
    return {**arguments, key: rng.choice(formats)}


def _known_synonyms(arguments: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    return [k for k, v in arguments.items() if isinstance(v, str) and v in SYNONYMS]


def _use_synonym(arguments, key, schema, rng):
    return {**arguments, key: SYNONYMS[arguments[key]]}


def _optional_keys(arguments: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    required = set(schema.get("required", []))
    present = [k for k in arguments if k not in required]
    absent = [k for k in schema.get("properties", {}) if k not in arguments and k not in required]
    return present + absent


def _toggle_optional_key(arguments, key, schema, rng):
    if key in arguments:
        return {k: v for k, v in arguments.items() if k != key}
    return {**arguments, key: _optional_value(key, schema["properties"][key], arguments)}


def _optional_value(key: str, spec: dict[str, Any], arguments: dict[str, Any]) -> Any:
    dates = [v for v in arguments.values() if isinstance(v, str) and ISO_DATE.match(v)]
    if "date" in key and dates:
        return dates[0]  # e.g. an end_date equal to the start_date
    context = {"task": " ".join(map(str, arguments.values()))}
    return plausible_arguments({"properties": {key: spec}, "required": [key]}, context)[key]


def _free_text(arguments: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    return [k for k in FREE_TEXT_KEYS if isinstance(arguments.get(k), str) and arguments[k]]


def _reword(arguments, key, schema, rng):
    text = arguments[key]
    rewordings = [
        f"Hello,\n\n{text}",
        f"{text}\n\nBest regards",
        f"{text} Thanks!",
        f"Hi there - {text[0].lower()}{text[1:]}",
    ]
    return {**arguments, key: rng.choice(rewordings)}


_SURFACE_VARIANTS = (
    (_short_words, _recase),
    (_iso_dates, _reformat_date),
    (_clock_times, _reformat_time),
    (_known_synonyms, _use_synonym),
    (_optional_keys, _toggle_optional_key),
    (_free_text, _reword),
)


# --- Malformed calls ------------------------------------------------------------------------


def malformed_arguments(arguments: dict[str, Any], rng: random.Random) -> str:
    """An argument string that does not parse: cut short, single-quoted, or with a stray comma."""
    text = json.dumps(arguments)
    candidates = [
        text[: rng.randint(1, max(1, len(text) - 1))],
        text.replace('"', "'"),
        text[:-1] + ",}" if len(text) > 2 else "{,}",
    ]
    for candidate in rng.sample(candidates, len(candidates)):
        if not _parses_to_object(candidate):
            return candidate
    return "{"


def _parses_to_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except json.JSONDecodeError:
        return False
