"""Audit events as sentences: "C-AAF926 submitted scores for item 4 (version 1)".

An audit row keeps its detail as a JSON dict for machines; a researcher reading an item's
history should read what happened, so no dict or snake_case key reaches the page. Each known
action has its own sentence; an action this module does not know yet still reads as words
("Weights changed: dimension Safety, from 1 to 2"), never as `{'from': 1}`.

Pure: the caller says who acted (a clinician's code, a researcher's username, or None for
the system) and how a dimension key reads (`Rubric.label`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ratings.rating import NOT_APPLICABLE_LABEL as NOT_APPLICABLE

STUDY_STATUS_VERBS = {"open": "opened", "closed": "closed", "draft": "returned to draft"}


def sentence(
    action: str,
    detail: Mapping[str, Any] | None,
    who: str | None,
    *,
    item: int | None = None,
    label: Callable[[str], str] = lambda key: key.replace("_", " ").capitalize(),
) -> str:
    """One audit event as a sentence, starting with who acted."""
    detail = detail if isinstance(detail, Mapping) else {}
    actor = who or "The system"
    on = f"item {item}" if item is not None else "the study"
    wording = _WORDINGS.get(action)
    if wording is None and action.startswith("study_"):
        status = action.removeprefix("study_")
        verb = STUDY_STATUS_VERBS.get(status, f"set to {words(status)}")
        return f"{actor} {verb} the study."
    if wording is None:
        return _unknown(actor, action, detail, label)
    return f"{actor} {wording(detail, on, label)}."


def words(key: Any) -> str:
    return str(key).replace("_", " ")


def score_text(score: Any) -> str:
    return NOT_APPLICABLE if score in (None, "na", "") else str(score)


def scores_text(scores: Any, label: Callable[[str], str]) -> str:
    """ "Workflow accuracy 4, Clinical safety N/A" (in the order given)."""
    if not isinstance(scores, Mapping) or not scores:
        return ""
    return ", ".join(f"{label(str(k))} {score_text(v)}" for k, v in scores.items())


def _with(text: str, prefix: str = ": ") -> str:
    return f"{prefix}{text}" if text else ""


def _plural(n: Any, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _overlap(overlap: Any) -> str:
    if not isinstance(overlap, Mapping):
        return ""
    parts = [f"{n} {words(track)}" for track, n in overlap.items() if n]
    return _with(", ".join(parts) + " clinicians per item", " (") + (")" if parts else "")


def _changes(changes: Any) -> str:
    if not isinstance(changes, Mapping) or not changes:
        return ""
    parts = []
    for field, change in changes.items():
        if field == "name" or not isinstance(change, list | tuple) or len(change) != 2:
            parts.append(f"{words(field)} changed")  # the name itself is never in the trail
        else:
            parts.append(f"{words(field)} from {change[0] or 'none'} to {change[1] or 'none'}")
    return _with(", ".join(parts))


def _who(detail: Mapping[str, Any], key: str = "clinician") -> str:
    return str(detail.get(key) or "a clinician")


def _if(condition: Any, text: str) -> str:
    return text if condition else ""


_Wording = Callable[[Mapping[str, Any], str, Callable[[str], str]], str]
_WORDINGS: dict[str, _Wording] = {
    "assigned": lambda d, on, label: f"assigned {on} to {_who(d)}",
    "draft_saved": lambda d, on, label: (
        f"saved a draft of {on}" + _with(scores_text(d.get("scores"), label))
    ),
    "submitted": lambda d, on, label: (
        f"submitted scores for {on}" + _if(d.get("version"), f" (version {d.get('version')})")
    ),
    "revised": lambda d, on, label: (
        f"revised their scores for {on}"
        + _if(d.get("version"), f" (now version {d.get('version')})")
    ),
    "reassigned": lambda d, on, label: (
        f"moved {on} from {_who(d, 'from_code')} to {_who(d)}"
        + _if(d.get("tracks"), f" ({' and '.join(map(words, d.get('tracks') or []))} track)")
    ),
    "withdrawn": lambda d, on, label: f"took {on} off {_who(d)}'s list",
    "adjudicated": lambda d, on, label: (
        f"decided {label(str(d.get('dimension', '')))} on {on}: {score_text(d.get('score'))}"
    ),
    "reference_set": lambda d, on, label: (
        f"set the reference scores of {on}" + _with(scores_text(d.get("scores"), label))
    ),
    "consensus_adopted": lambda d, on, label: (
        f"adopted the consensus of study {d.get('source', '?')} as reference on "
        f"{_plural(d.get('items', 0), 'item')}"
    ),
    "study_created": lambda d, on, label: (
        f"created the study with {_plural(d.get('items', 0), 'item')}" + _overlap(d.get("overlap"))
    ),
    "clinician_invited": lambda d, on, label: (
        f"invited {_who(d)}" + _if(d.get("track"), f" to the {words(d.get('track'))} track")
    ),
    "invitation_renewed": lambda d, on, label: f"sent {_who(d)} a new invitation",
    "clinician_updated": lambda d, on, label: (
        f"updated {_who(d)}'s profile" + _changes(d.get("changes"))
    ),
    "clinician_deactivated": lambda d, on, label: (
        f"deactivated {_who(d)}"
        + _if("reassigned" in d, f"; {_plural(d.get('reassigned'), 'item')} reassigned")
    ),
    "clinician_reactivated": lambda d, on, label: f"reactivated {_who(d)}",
    "qualification_reopened": lambda d, on, label: (
        f"reopened {_who(d)}'s calibration result"
        + _if(d.get("reason"), f", saying “{d.get('reason')}”")
    ),
}


def _unknown(actor: str, action: str, detail: Mapping[str, Any], label) -> str:
    """An action without its own sentence: its name and detail in words, never a dict."""
    parts = [f"{words(key)} {_value(value, label)}" for key, value in detail.items()]
    return f"{actor}: {words(action)}" + _with("; ".join(parts)) + "."


def _value(value: Any, label) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{label(str(k))} {_value(v, label)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_value(v, label) for v in value)
    return score_text(value) if value is None else words(value)
