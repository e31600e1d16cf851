"""Tables as plain data: every page's table is kept twice, raw values for the CSV download and
display strings (estimates with their intervals, verdict badges) for the template, so the
cached page data needs no formatting at render time and the CSV matches what is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

from annotation.pure import agreement
from patientagentbench import csv_safe

# --- tables as plain data -----------------------------------------------------------------------

Column = tuple[str, str, str]  # key, label, kind: text, int, num, pct, est, verdict


def table(
    title: str,
    columns: Sequence[Column],
    rows: Sequence[Mapping[str, Any]],
    note: str = "",
    empty: str = "Nothing to show yet.",
    highlight: Callable[[Mapping[str, Any]], bool] | None = None,
) -> dict:
    """A table twice: raw values for the CSV, display strings for the page."""
    keys = [key for key, _, _ in columns]
    return {
        "title": title,
        "note": note,
        "empty": empty,
        "columns": [{"key": k, "label": label, "kind": kind} for k, label, kind in columns],
        "rows": [[row.get(k) for k in keys] for row in rows],
        "display": [
            {
                "css": "highlight" if highlight and highlight(row) else "",
                "cells": [_cell(row.get(k), kind) for k, _, kind in columns],
            }
            for row in rows
        ],
    }


VERDICT_WORDS = {
    agreement.INSIDE: "inside",
    agreement.BELOW: "below",
    agreement.ABOVE: "above",
    agreement.INCONCLUSIVE: "inconclusive",
    agreement.NOT_ENOUGH: "not enough evidence",
    agreement.alt.STANDS_IN: "stands in",
    agreement.alt.NOT_SHOWN: "not shown",
}
VERDICT_CSS = {
    agreement.INSIDE: "badge pass",
    agreement.BELOW: "badge fail",
    agreement.ABOVE: "badge running",
    agreement.alt.STANDS_IN: "badge pass",
    agreement.alt.NOT_SHOWN: "badge fail",
}


def _cell(value: Any, kind: str) -> dict:
    """What a table cell shows: text, a CSS class, a tooltip, and for an estimate its CI."""
    if kind == "est":
        return _estimate_cell(value)
    if kind == "verdict":
        css = VERDICT_CSS.get(value, "badge cancelled")
        return _shown(VERDICT_WORDS.get(value, value or "—"), css, title=value or "")
    if kind == "bool":
        return _shown("yes", "badge pass") if value else _shown("no", "muted")
    if value is None:
        return _shown("—", "muted")
    formats = {
        "num": lambda v: _fixed(v),
        "pct": lambda v: f"{v:.0%}",
        "int": str,
        "p": lambda v: "< 0.001" if v < 0.001 else f"{v:.3f}",
    }
    if kind in formats:
        return _shown(formats[kind](value), "num")
    return _shown(str(value), "")


def _shown(text: str, css: str, title: str = "", ci: str = "") -> dict:
    return {"text": text, "css": css, "title": title, "ci": ci}


def _fixed(value: float) -> str:
    """Two decimals, without the "-0.00" a tiny negative would print."""
    return f"{(value if abs(value) >= 0.005 else 0.0):.2f}"


def _estimate_cell(estimate: Mapping[str, Any] | None) -> dict:
    if not estimate or estimate.get("value") is None:
        reason = (estimate or {}).get("reason") or ""
        return _shown("—", "muted", title=reason, ci=reason if len(reason) <= 60 else "")
    ci = estimate.get("ci")
    interval = f"[{_fixed(ci[0])}, {_fixed(ci[1])}]" if ci else _no_interval(estimate)
    return _shown(_fixed(estimate["value"]), "num", _how(estimate), interval)


def _no_interval(estimate: Mapping[str, Any]) -> str:
    """Beside a value without an interval, in words, so a bare number never reads as certain
    (the hover text says why in full)."""
    reason = estimate.get("reason") or ""
    if reason.startswith(agreement.NOT_ENOUGH):
        return f"{agreement.NOT_ENOUGH} for an interval"
    return "no interval" if reason else ""


def _how(estimate: Mapping[str, Any]) -> str:
    """The hover text of an estimate: its n and how its interval was found (or why not)."""
    # Agreement figures count items; other pages' estimates say what their n counts.
    if estimate.get("n_items") is not None:
        size = f"n = {estimate['n_items']} items"
    else:
        size = f"n = {estimate['n']}" if estimate.get("n") is not None else ""
    parts = [size, estimate.get("method") or ""]
    if estimate.get("mc_error") is not None:
        parts.append(f"Monte-Carlo error of the endpoints ±{estimate['mc_error']:.3f}")
    parts.append(estimate.get("reason") or "")
    return "; ".join(p for p in parts if p)


def write_table_csv(data: Mapping[str, Any], out: TextIO) -> None:
    """One column per figure; an estimate becomes value, ci_low, ci_high (and n)."""
    writer = csv_safe.writer(out, lineterminator="\n")
    header = []
    for column in data["columns"]:
        key = column["key"]
        header += [key, f"{key}_ci_low", f"{key}_ci_high"] if column["kind"] == "est" else [key]
    writer.writerow(header)
    for row in data["rows"]:
        out_row: list[Any] = []
        for column, value in zip(data["columns"], row, strict=True):
            if column["kind"] == "est":
                ci = (value or {}).get("ci") or [None, None]
                out_row += [_csv((value or {}).get("value")), _csv(ci[0]), _csv(ci[1])]
            else:
                out_row.append(_csv(value))
        writer.writerow(out_row)


def _csv(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return round(value, 6)
    return value
