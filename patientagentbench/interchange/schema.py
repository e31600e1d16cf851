"""What an imported value may be, shared by the three import formats (pure: no database).

- **Bounds** come from the database columns (`patientagentbench/models.py`; a test checks they
  agree) and from sane ranges, so a value that passes is one the database stores and the pages
  show: no `cost` of 1e30, no 500-character model name, no negative token count.
- **JSON is read safely**: UTF-8 only, no `NaN` / `Infinity` literals or numbers that overflow
  to infinity (they become `BadNumber` markers that `scan` reports with their place), nesting
  bounded by `MAX_DEPTH` (a file too deep for Python's parser is named, not a RecursionError),
  and no text the database cannot hold (NUL, unpaired surrogates).
- **Errors are one line.** Each format validates its records with pydantic models built from
  the types here; `first_problem` turns pydantic's first error into a `Problem` (where in the
  record, what was expected, what was found) and `Place.line` words it, with the format naming
  its own records ("line 3", "cell 2 (retrieve-001 / m), trace 1").

Every field of a model carries a `description`: it is the "must be ..." of its error message.
"""

from __future__ import annotations

import json
import math
import types
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, WrapValidator
from pydantic_core import PydanticCustomError

# --- bounds ----------------------------------------------------------------------------------

TASK_ID_MAX = 120  # Task.task_id
CATEGORY_MAX = 60  # Task.category
DIFFICULTY_MAX = 30  # Task.difficulty
MODEL_NAME_MAX = 200  # Trace.model_name
END_REASON_MAX = 40  # Trace.end_reason
SUITE_NAME_MAX = 120  # Suite.name
RUN_LABEL_MAX = 200  # Run.label
COST_MAX_DIGITS, COST_DECIMAL_PLACES = 14, 6  # Trace.cost
COST_LIMIT = Decimal(10) ** (COST_MAX_DIGITS - COST_DECIMAL_PLACES)  # exclusive
COUNT_MAX = 2_147_483_647  # a PositiveIntegerField on PostgreSQL (tokens)
REPETITION_MAX = 100_000  # repetition / run_index: a run's index within its cell
TEMPERATURE_MAX = 5
MAX_DEPTH = 64  # JSON nesting, counted from the file's (or line's) outermost value
FINISHED_STATUSES = ("done", "error", "cancelled")  # Trace.ENDED: a finished trace's statuses
WORLDS = ("office", "clinic")  # Suite.World
ROLES = ("system", "user", "assistant", "tool")  # providers.types.Message.role


class Strict(BaseModel):
    """A record read from a file: JSON types exactly (no "5" for 5, no 1.0 for an integer, no
    true for a number); keys the format does not name are ignored."""

    model_config = ConfigDict(strict=True, extra="ignore")


def name_of(max_length: int | None) -> Any:
    """A non-blank string, at most `max_length` characters."""
    return Annotated[str, Field(min_length=1, max_length=max_length, pattern=r"\S")]


def text_of(max_length: int) -> Any:
    """A string, possibly empty, at most `max_length` characters."""
    return Annotated[str, Field(max_length=max_length)]


Count = Annotated[int, Field(ge=0, le=COUNT_MAX)]
Repetition = Annotated[int, Field(ge=0, le=REPETITION_MAX)]
Temperature = Annotated[float, Field(ge=0, le=TEMPERATURE_MAX, allow_inf_nan=False)]
Duration = Annotated[float, Field(ge=0, allow_inf_nan=False)]


def _decimal(value: Any) -> Any:
    """JSON numbers and numeric strings to a Decimal rounded to the column's places; anything
    else is left for the strict Decimal validator to refuse."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return value
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        return value
    if number.is_finite() and abs(number) < COST_LIMIT:
        number = number.quantize(Decimal(1).scaleb(-COST_DECIMAL_PLACES))
    return number


Money = Annotated[
    Decimal, BeforeValidator(_decimal), Field(ge=0, lt=COST_LIMIT, allow_inf_nan=False)
]
MONEY = f"a number >= 0 and < {COST_LIMIT:f}, or such a number as a string"


def one_of(description: str) -> WrapValidator:
    """A type with several shapes (a union) fails with one error saying what it may be,
    rather than one error per shape."""

    def collapse(value: Any, handler: Callable[[Any], Any]) -> Any:
        try:
            return handler(value)
        except ValidationError:
            raise PydanticCustomError("expected", description) from None

    return WrapValidator(collapse)


def rule(field: str, message: str) -> PydanticCustomError:
    """A check across fields, raised from a model validator: names `field`, says `message`."""
    return PydanticCustomError("rule", message, {"field": field})


# --- errors and reading JSON ---------------------------------------------------------------


def one_line(text: str) -> str:
    """`text` with what is not printable (newlines, control characters, U+2028, unpaired
    surrogates) escaped, so an error quoting a key or a task id stays one line."""
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


class FormatError(ValueError):
    """A file that cannot be imported; the message (made one line) says where and why."""

    def __init__(self, message: str):
        super().__init__(one_line(message))


class JsonTextError(FormatError):
    """A file or line that is not JSON we read; the message says why (not where)."""


@dataclass(frozen=True, slots=True)
class BadNumber:
    """A number JSON may not hold (NaN, Infinity, 1e400), kept in place so `scan` names it."""

    literal: str

    def describe(self) -> str:
        shown = self.literal if len(self.literal) <= 24 else f"{self.literal[:12]}..."
        if self.literal.lstrip("-").isdigit():
            return f"an integer of {len(self.literal.lstrip('-'))} digits"
        return shown


def _float(literal: str) -> float | BadNumber:
    number = float(literal)
    return number if math.isfinite(number) else BadNumber(literal)


def _int(literal: str) -> int | BadNumber:
    try:
        return int(literal)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        return BadNumber(literal)


def decode(raw: bytes) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise JsonTextError(
            f"line {line}: not UTF-8 text (invalid byte at position {exc.start})"
        ) from None
    return text.removeprefix("\ufeff")


def load(text: str, *, single_line: bool = False) -> Any:
    """JSON with its non-finite numbers as `BadNumber`s; `scan` the result before using it."""
    try:
        return json.loads(text, parse_constant=BadNumber, parse_float=_float, parse_int=_int)
    except RecursionError:
        raise JsonTextError(f"nests deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        place = f"column {exc.colno}" if single_line else f"line {exc.lineno}, column {exc.colno}"
        raise JsonTextError(f"not valid JSON ({exc.msg} at {place})") from None


# --- problems --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Problem:
    """What is wrong and where: `loc` is the path into the record (keys and list indexes).
    Either `message` (a sentence of its own), `missing`, or `expected` and `got`. `scalar`:
    the path ends inside a field's value (`final_state.a[1]`), so its last list indexes are
    part of the field, not records."""

    loc: tuple[str | int, ...]
    expected: str = ""
    got: str = ""
    message: str = ""
    missing: bool = False
    scalar: bool = False


def scan(value: Any, loc: tuple[str | int, ...] = (), depth: int = 1) -> Problem | None:
    """The first value no record may hold, wherever it is: a non-finite number, text the
    database cannot store, or nesting deeper than `MAX_DEPTH`."""
    if isinstance(value, str):
        return _text_problem(value, loc)
    if isinstance(value, BadNumber):
        return Problem(loc, message=f"must be a finite number, got {value.describe()}", scalar=True)
    if isinstance(value, float) and not math.isfinite(value):
        return Problem(loc, message=f"must be a finite number, got {value}", scalar=True)
    if isinstance(value, dict | list):
        if depth > MAX_DEPTH:
            return Problem(_outer(loc), message=f"nests deeper than {MAX_DEPTH} levels")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(key, str) and (problem := _text_problem(key, loc)):
                return Problem(loc, message=f"has a key that {problem.message}", scalar=True)
            if problem := scan(item, (*loc, key), depth + 1):
                return problem
    return None


def _outer(loc: tuple) -> tuple:
    """A deep path cut to its first steps, ending at a key: the field that nests too deep."""
    loc = loc[:6]
    while loc and isinstance(loc[-1], int):
        loc = loc[:-1]
    return loc


def _text_problem(text: str, loc: tuple) -> Problem | None:
    if "\x00" in text:
        message = "contains a NUL character (\\u0000), which cannot be stored"
        return Problem(loc, message=message, scalar=True)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        message = f"contains an unpaired surrogate (\\u{ord(text[exc.start]):04x}), not text"
        return Problem(loc, message=message, scalar=True)
    return None


_TYPE_WORDS = {
    "model_type": "an object",
    "model_attributes_type": "an object",
    "dict_type": "an object",
    "list_type": "an array",
    "string_type": "a string",
    "int_type": "an integer",
    "float_type": "a number",
    "decimal_type": "a number",
    "bool_type": "true or false",
    "finite_number": "a finite number",
}


def first_problem(exc: ValidationError, root: Any, prefix: tuple = ()) -> Problem:
    """pydantic's first error, in our words; `root` is the validated type (for the fields'
    descriptions) and `prefix` the path to it within the record."""
    error = exc.errors(include_url=False)[0]
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind == "missing":
        return Problem((*prefix, *loc), missing=True)
    if kind == "rule":
        return Problem((*prefix, *loc, error["ctx"]["field"]), message=error["msg"])
    if kind == "expected":
        expected = error["msg"]
    else:
        expected = _description(root, loc) or _TYPE_WORDS.get(kind) or _constraint(error)
    return Problem((*prefix, *loc), expected=expected, got=_got(error["input"], expected, kind))


def _constraint(error: dict) -> str:
    return error["msg"].removeprefix("Input should be ").removeprefix("String should ")


def _description(root: Any, loc: tuple) -> str | None:
    """The description of the field `loc` ends at, found by walking the model types."""
    annotation, info = root, None
    for part in loc:
        annotation = _unwrap(annotation)
        if isinstance(part, int) and get_origin(annotation) is list:
            annotation, info = get_args(annotation)[0], None
        elif (
            isinstance(part, str)
            and isinstance(annotation, type)
            and issubclass(annotation, BaseModel)
            and part in annotation.model_fields
        ):
            info = annotation.model_fields[part]
            annotation = info.annotation
        elif isinstance(part, str) and get_origin(annotation) is dict:
            annotation, info = get_args(annotation)[1], None
        else:
            return None
    return info.description if info is not None else None


def _unwrap(annotation: Any) -> Any:
    while True:
        if get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
        elif get_origin(annotation) in (Union, types.UnionType):
            members = [a for a in get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


def _got(value: Any, expected: str, kind: str) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        if not value:
            return "an empty string"
        if not value.strip():
            return "a blank string"
        if kind == "string_too_long":
            return f"a string of {len(value)} characters"
        numeric = "number" in expected or "integer" in expected
        if numeric or kind in ("literal_error", "expected"):
            return _short(repr(value))
        return "a string"
    if isinstance(value, Decimal):
        return _short(str(value))
    return _short(repr(value))


def _short(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:37]}..."


# --- wording ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Place:
    """How one format words a problem's place.

    `records` turns the list indexes of a path into record names: it gets [(key, index), …]
    (key "" for the top-level array) and returns their names ("cell 2 (…)", "trace 1",
    "tool_calls[0]"). `colon` picks the wording: `line 3, field 'cost': must be …` (JSONL,
    conversations) or `cell 2 (…): field 'cost' must be …` (the release's)."""

    records: Callable[[list[tuple[str, int]]], list[str]]
    colon: bool = True
    prefix: str = ""

    def line(self, problem: Problem) -> str:
        steps, field = _split(problem.loc, problem.scalar)
        where = ", ".join(filter(None, [self.prefix, *self.records(steps)])) or "the file"
        if problem.missing:
            text = "is missing" if not self.colon else "missing"
        elif problem.message:
            text = problem.message
        elif field:
            text = f"must be {problem.expected}, got {problem.got}"
        else:
            text = f"expected {problem.expected}, got {problem.got}"
        if not field:
            return f"{where}: {text}"
        if self.colon:
            return f"{where}, field '{field}': {text}"
        return f"{where}: field '{field}' {text}"


def nested_place(
    data: list,
    *,
    outer: str,
    label: Callable[[Any], str],
    inner_key: str,
    inner: str,
    nothing: str,
    colon: bool = True,
) -> Place:
    """Records of a top-level array holding a list of records each: "cell 2 (…), trace 1,
    tool_calls[0]" (`outer` "cell", `inner_key` "traces", `inner` "trace")."""

    def records(steps: list[tuple[str, int]]) -> list[str]:
        if not steps:
            return [nothing]
        (_, index), *rest = steps
        names = [f"{outer} {index}{label(data[index])}"]
        if rest and rest[0][0] == inner_key:
            names.append(f"{inner} {rest[0][1]}")
            rest = rest[1:]
        return names + generic_records(rest)

    return Place(records, colon=colon)


def generic_records(steps: list[tuple[str, int]]) -> list[str]:
    """`tool_calls[0]`, `correctness.checks[2]`, `final_state.rows[1][0]`."""
    names: list[str] = []
    for key, index in steps:
        if key == "" and names:
            names[-1] += f"[{index}]"
        else:
            names.append(f"{key}[{index}]")
    return names


def _split(loc: tuple, scalar: bool = False) -> tuple[list[tuple[str, int]], str]:
    """A path as (key, index) steps through lists of records, then the field within the last
    record ("" when the problem is the record itself). With `scalar`, indexes after the last
    key are within the field's value: ("final_state", "a", 1) is field `final_state.a[1]`."""
    ints = [i for i, part in enumerate(loc) if isinstance(part, int)]
    if scalar:
        ints = [i for i in ints if any(isinstance(part, str) for part in loc[i + 1 :])]
    last = max(ints, default=-1)
    steps, keys = [], []
    for part in loc[: last + 1]:
        if isinstance(part, int):
            steps.append((".".join(keys), part))
            keys = []
        else:
            keys.append(part)
    field = ""
    for part in loc[last + 1 :]:
        field += f"[{part}]" if isinstance(part, int) else f".{part}" if field else part
    return steps, field if len(field) <= 80 else f"{field[:77]}..."
