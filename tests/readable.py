"""What a person reads on a page, and the raw identifiers in it (`clinical_safety`,
`traits.anxiety`, `split_half.py`): a page meant for people shows words."""

from __future__ import annotations

import html
import re

_HIDDEN = re.compile(r"(?is)<(script|style|code|textarea)\b.*?</\1>")
_TAG = re.compile(r"(?s)<[^>]+>")
# snake_case (two or more lowercase parts), a dotted key, or a file name.
_RAW = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\btraits\.[a-z_]+\b|\b\w+\.py\b")


def visible_text(body: str) -> str:
    """The page's text as shown: no tags, attributes, scripts or styles; code spans left out
    (a command a researcher types is meant to be read as written)."""
    return html.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", body)))


def raw_identifiers(body: str) -> list[str]:
    return sorted(set(_RAW.findall(visible_text(body))))
