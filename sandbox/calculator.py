"""A safe arithmetic evaluator for the `calculate` tool.

Model output is untrusted, so expressions are parsed with `ast` and only numeric literals and
arithmetic operators are evaluated; `eval` is never used. Every bound below exists because
Python integers are unbounded: without them `9**9**9**9` would compute for hours.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

MAX_EXPRESSION_LENGTH = 1000
MAX_NODES = 1000
# Recursion depth of the evaluator; also the longest chain like 1+2+...+n it accepts.
MAX_DEPTH = 200
MAX_EXPONENT = 1000
MAX_RESULT_DIGITS = 300
MAX_MAGNITUDE = 10**MAX_RESULT_DIGITS

Number = int | float


class CalculatorError(ValueError):
    """The expression is not allowed or cannot be computed; the message says why."""


_BINARY_OPERATORS: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}

_UNARY_OPERATORS: dict[type[ast.unaryop], Callable[[Number], Number]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}

# Things models write that parse as Python but mean something else here.
_OPERATOR_HINTS = {
    ast.BitXor: "'^' is not supported; use ** for powers",
    ast.MatMult: "'@' is not supported",
}


def evaluate(expression: str) -> Number:
    """The value of an arithmetic expression, or `CalculatorError`."""
    tree = _parse(expression)
    node_count = sum(1 for node in ast.walk(tree) if isinstance(node, ast.expr))
    if node_count > MAX_NODES:
        raise CalculatorError(f"Expression is too complex ({node_count} parts; limit {MAX_NODES})")
    return _evaluate(tree.body, depth=0)


def _parse(expression: str) -> ast.Expression:
    if not isinstance(expression, str):
        raise CalculatorError("Expression must be text")
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise CalculatorError(
            f"Expression is too long ({len(expression)} characters; limit {MAX_EXPRESSION_LENGTH})"
        )
    text = expression.strip()
    if not text:
        raise CalculatorError("Expression is empty")
    try:
        return ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        reason = getattr(exc, "msg", None) or str(exc) or type(exc).__name__
        raise CalculatorError(f"Invalid expression: {reason}") from None


def _evaluate(node: ast.expr, depth: int) -> Number:
    if depth > MAX_DEPTH:
        raise CalculatorError(f"Expression is nested too deeply (limit {MAX_DEPTH} levels)")
    match node:
        case ast.Constant(value=value):
            return _checked(_literal(value))
        case ast.UnaryOp(op=op, operand=operand) if type(op) in _UNARY_OPERATORS:
            return _UNARY_OPERATORS[type(op)](_evaluate(operand, depth + 1))
        case ast.BinOp(left=left, op=op, right=right):
            return _binary(op, _evaluate(left, depth + 1), _evaluate(right, depth + 1))
    raise CalculatorError(_refusal(node))


def _literal(value: object) -> Number:
    # bool is an int subclass, and complex literals like 2j are not arithmetic we support.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    raise CalculatorError(f"Only numbers are allowed, got {value!r}")


def _binary(op: ast.operator, left: Number, right: Number) -> Number:
    if isinstance(op, ast.Pow):
        return _checked(_power(left, right))
    function = _BINARY_OPERATORS.get(type(op))
    if function is None:
        raise CalculatorError(
            _OPERATOR_HINTS.get(type(op), f"Operator {_name(op)} is not supported")
        )
    try:
        return _checked(function(left, right))
    except ZeroDivisionError:
        raise CalculatorError("Division by zero") from None
    except OverflowError:
        raise CalculatorError("Result is too large") from None


def _power(base: Number, exponent: Number) -> Number:
    """`base ** exponent`, refused before computing when the result would be huge."""
    if abs(exponent) > MAX_EXPONENT:
        raise CalculatorError(f"Exponent {exponent} is too large (limit {MAX_EXPONENT})")
    if exponent > 0 and abs(base) > 1 and exponent * math.log10(abs(base)) > MAX_RESULT_DIGITS:
        raise CalculatorError(f"Result is too large (more than {MAX_RESULT_DIGITS} digits)")
    try:
        result = base**exponent
    except ZeroDivisionError:
        raise CalculatorError("Division by zero (zero to a negative power)") from None
    except OverflowError:
        raise CalculatorError("Result is too large") from None
    if isinstance(result, complex):
        raise CalculatorError("Result is not a real number (negative base, fractional exponent)")
    return result


def _checked(value: Number) -> Number:
    if isinstance(value, float) and not math.isfinite(value):
        raise CalculatorError("Result is too large")
    if abs(value) > MAX_MAGNITUDE:
        raise CalculatorError(f"Result is too large (more than {MAX_RESULT_DIGITS} digits)")
    return value


def _refusal(node: ast.expr) -> str:
    """Why a piece of syntax is refused, in words a model can act on."""
    match node:
        case ast.Name(id=name):
            return f"Names are not allowed in expressions: {name!r}; use numbers only"
        case ast.Call():
            return "Function calls are not allowed; use numbers and + - * / // % ** only"
        case ast.Attribute():
            return "Attribute access is not allowed"
        case ast.Tuple():
            return "Commas are not allowed; write 2500, not 2,500"
        case ast.UnaryOp(op=op):
            return f"Operator {_name(op)} is not supported"
    return f"Unsupported syntax: {type(node).__name__}; use numbers and + - * / // % ** only"


def _name(op: ast.AST) -> str:
    return type(op).__name__
