"""Small phrasing helpers the planners share: numbers, dates and times in words, and the
medicine names a confused patient mixes up.
"""

from __future__ import annotations

from datetime import date

from .. import catalog
from .context import Ctx


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def uncap(text: str) -> str:
    """Lower-case the first letter for use mid-sentence, but never the pronoun "I"."""
    if text.startswith(("I ", "I'")):
        return text
    return text[:1].lower() + text[1:]


def number_words(n: int) -> str:
    words = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    return words[n] if 0 <= n < len(words) else str(n)


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def date_words(iso: str) -> str:
    d = date.fromisoformat(iso)
    return f"{d:%A}, {d:%B} {d.day}"


def time_words(hhmm: str) -> str:
    hour, minute = (int(p) for p in hhmm.split(":"))
    if (hour, minute) == (12, 0):
        return "noon"
    suffix = "a.m." if hour < 12 else "p.m."
    hour12 = hour if hour <= 12 else hour - 12
    return f"{hour12}:{minute:02d} {suffix}" if minute else f"{hour12} {suffix}"


def _misspell(name: str) -> str:
    """How a name comes out when someone half-remembers it."""
    known = {
        "metformin": "metaformin", "lisinopril": "lysinopril", "atorvastatin": "atorvastin",
        "levothyroxine": "levothyroxin", "amlodipine": "amlodapine", "sertraline": "sertaline",
        "gabapentin": "gabapentine", "omeprazole": "omeprazol", "escitalopram": "escitalapram",
        "tamsulosin": "tamsulosen", "hydrochlorothiazide": "hydro-something", "apixaban": "apixiban",
        "carvedilol": "carvedolol", "montelukast": "montelucast", "furosemide": "furosamide",
        "losartan": "lorsartan", "rosuvastatin": "rosuvastin", "clopidogrel": "clopidigrel",
        "levetiracetam": "levetiram-something", "donepezil": "donepezel", "allopurinol": "allopurinal",
    }  # fmt: skip
    return known.get(name, name.split("/")[0] + "-something")


# Names people really do confuse (ISMP look-alike/sound-alike pairs).
SOUND_ALIKES = {
    "metformin": "metoprolol", "metoprolol succinate": "metformin", "metoprolol tartrate": "metformin",
    "hydroxyzine": "hydralazine", "lamotrigine": "lamivudine", "losartan": "lisinopril",
    "lisinopril": "losartan", "clonazepam": "clonidine", "tramadol": "trazodone", "trazodone": "tramadol",
    "escitalopram": "citalopram", "glipizide": "glyburide", "sertraline": "cetirizine", "cetirizine": "sertraline",
}  # fmt: skip


def muddle_med(ctx: Ctx, name: str) -> str:
    """A confused patient's way of naming a medicine: wrong, misspelt, or only described."""
    info = catalog.drug(name)
    purpose = f"the {info.lay} one" if info.lay else "the one the doctor started"
    options = [f"the {_misspell(name)}, {purpose}"]
    if name in SOUND_ALIKES:
        options.append(f"my {SOUND_ALIKES[name]}, no wait, I mean {name}")
    if info.lay.endswith(" pill"):
        options.append(f"the little pill for my {info.lay.removesuffix(' pill')}")
    return ctx.pick(options)
