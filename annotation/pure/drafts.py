"""Merging a draft save into the stored draft, field by field, by version.

A review page saves on input, on page-hide (a keepalive request that may arrive after the
reload's GET) and again when a reloaded page replays edits the server had not confirmed. Saves
therefore arrive in any order and some arrive twice. Each field a save carries comes with the
version the page gave it when it was edited (a client clock in ms, strictly increasing per
page); a field is replaced only by a strictly newer version, so an older value never overwrites
a newer one, the order of arrival does not matter and a repeated save changes nothing.

Fields: `score-<dimension>`, `why-<dimension>`, `flags`, `comments` (the page's form names).
"""

from __future__ import annotations

SCORE, WHY = "score-", "why-"
FLAGS, COMMENTS = "flags", "comments"


def fields_of(answer: dict) -> dict:
    """A draft answer ({"scores", "why", "flags", "comments"}) as flat fields; empty ones absent."""
    fields = {f"{SCORE}{k}": v for k, v in (answer.get("scores") or {}).items()}
    fields |= {f"{WHY}{k}": v for k, v in (answer.get("why") or {}).items() if v}
    if answer.get("flags"):
        fields[FLAGS] = list(answer["flags"])
    if answer.get("comments"):
        fields[COMMENTS] = list(answer["comments"])
    return fields


def answer_of(fields: dict) -> dict:
    return {
        "scores": {k[len(SCORE) :]: v for k, v in fields.items() if k.startswith(SCORE)},
        "why": {k[len(WHY) :]: v for k, v in fields.items() if k.startswith(WHY)},
        "flags": list(fields.get(FLAGS) or []),
        "comments": list(fields.get(COMMENTS) or []),
    }


def merge(
    stored: dict, stored_versions: dict, incoming: dict, incoming_versions: dict
) -> tuple[dict, dict]:
    """The stored fields with every incoming field of a newer version applied (an incoming field
    that is absent or empty clears it). Fields the save gives no version for are left alone."""
    fields, versions = dict(stored), dict(stored_versions)
    for name, version in incoming_versions.items():
        if version <= versions.get(name, 0):
            continue
        versions[name] = version
        value = incoming.get(name)
        if value in (None, "", []):
            fields.pop(name, None)
        else:
            fields[name] = value
    return fields, versions


def parse_versions(raw, names: frozenset[str]) -> dict[str, int]:
    """The page's `versions` ({field: positive integer}); unknown fields and bad values dropped."""
    if not isinstance(raw, dict):
        return {}
    return {
        name: version
        for name, version in raw.items()
        if name in names
        and isinstance(version, int)
        and not isinstance(version, bool)
        and 0 < version < 2**53
    }


def fresher(fields: dict, versions: dict, known: dict) -> dict[str, list]:
    """The stored fields newer than the page knows ({field: [version, value]}; a cleared field
    has value None): what a page rendered before a late save arrived should put back."""
    return {
        name: [version, fields.get(name)]
        for name, version in versions.items()
        if version > known.get(name, 0)
    }
