"""The one CSV writer of the project: cells a spreadsheet would run as a formula are defused.

Model names, task names and rater codes are imported from outside, and every export opens in
a spreadsheet, where a cell starting with `=`, `+`, `-`, `@`, tab or carriage return is run
as a formula (`=HYPERLINK(...)` leaks data, DDE runs commands). As OWASP recommends, such a
text cell gets a leading `'`, which spreadsheets show as text and drop from the value.

The rule:
- only text cells are touched: ints and floats are written as they are, and so is text that
  is a plain decimal number (`-0.25`, `+3`, `-1e-05`), which a spreadsheet reads as a number,
  never a formula;
- text that starts with `'` gets one more `'`, so `read_cell` can undo the prefix exactly and a
  write-then-read round trip gives back every value.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any, TextIO

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PREFIX = "'"
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def safe_cell(value: Any) -> Any:
    """The value as written: formula-like text defused, everything else unchanged."""
    if not isinstance(value, str) or not value:
        return value
    if value.startswith(_PREFIX):
        return _PREFIX + value
    if value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return _PREFIX + value
    return value


def read_cell(text: str) -> str:
    """A cell as written by this module, back to the value it was given."""
    return text[1:] if text.startswith(_PREFIX) else text


class SafeWriter:
    """`csv.writer` whose rows go through `safe_cell`. The stdlib leaves a lone CR unquoted
    when lines end in LF, which splits the row on reading, so a row with a CR in a text cell
    is written with its text quoted."""

    def __init__(self, out: TextIO, **kwargs: Any) -> None:
        self._plain = csv.writer(out, **kwargs)
        self._quoted = csv.writer(out, **{**kwargs, "quoting": csv.QUOTE_NONNUMERIC})

    def writerow(self, row: Iterable[Any]) -> Any:
        cells = [safe_cell(value) for value in row]
        if any(isinstance(cell, str) and "\r" in cell for cell in cells):
            return self._quoted.writerow(["" if c is None else c for c in cells])
        return self._plain.writerow(cells)

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


class SafeDictWriter(csv.DictWriter):
    """`csv.DictWriter` whose values go through `safe_cell` (the header is ours, not imported)."""

    def __init__(self, out: TextIO, fieldnames: Any, **kwargs: Any) -> None:
        dict_options = {k: kwargs.pop(k) for k in ("restval", "extrasaction") if k in kwargs}
        super().__init__(out, fieldnames, **dict_options, **kwargs)
        self.writer = SafeWriter(out, **kwargs)


def writer(out: TextIO, **kwargs: Any) -> SafeWriter:
    return SafeWriter(out, **kwargs)


def frame_to_csv(frame: Any, path: Any = None) -> str | None:
    """A pandas frame as CSV through the safe writer (text columns only are defused)."""
    import io

    buffer = io.StringIO()
    rows = SafeWriter(buffer, lineterminator="\n")
    rows.writerow(list(frame.columns))
    for record in frame.itertuples(index=False, name=None):
        rows.writerow(["" if _missing(value) else value for value in record])
    if path is None:
        return buffer.getvalue()
    with open(path, "w", newline="", encoding="utf-8") as handle:
        handle.write(buffer.getvalue())
    return None


def _missing(value: Any) -> bool:
    import pandas as pd  # imported here: only frame exports need it

    return value is None or (pd.api.types.is_scalar(value) and bool(pd.isna(value)))
