# >>file 02
"""The tools a model may call, and the one this lab ships: `calc`.

A tool receives arguments a model made up: hostile input. `calc` never calls `eval`; it parses
with `ast`, evaluates a few node kinds itself, and fails fast on anything huge.
"""

from __future__ import annotations

import ast
import math
import operator

# >> 03
import time

# << 03
from collections.abc import Callable

# >> 03
from collections.abc import Mapping

# << 03
from dataclasses import dataclass

# >> 03
from dataclasses import replace

# << 03
from typing import Any

MAX_EXPRESSION_LENGTH = 200
MAX_ABS_INT = 10**100  # any bigger integer result is refused
MAX_EXPONENT_BITS = 400  # refuse a ** b when the result would need more bits than this


class ToolError(Exception):
    """A tool could not do what it was asked; the loop turns this into an error toolResult."""


@dataclass(frozen=True)
class Tool:
    """What a model sees (name, description, parameters) and what runs (`run`)."""

    name: str
    description: str
    parameters: dict[str, Any]  # a JSON Schema of the arguments: what a real model is sent
    run: Callable[[dict[str, Any]], str]


Number = int | float

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def evaluate(expression: str) -> Number:
    """The value of an arithmetic expression; ToolError for anything else."""
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise ToolError(f"expression longer than {MAX_EXPRESSION_LENGTH} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError):  # ValueError: a NUL byte, on older Pythons
        raise ToolError(f"not an arithmetic expression: {expression!r}") from None
    return _eval(tree.body)


def _eval(node: ast.expr) -> Number:
    # Stop here: this whitelist is the whole safety argument. Names, calls, attributes,
    # strings... are not in it, so `__import__('os')` is just "unsupported".
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return _checked(node.value)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _checked(_UNARY[type(node.op)](_eval(node.operand)))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        try:
            return _checked(_BINARY[type(node.op)](left, right))
        except ZeroDivisionError:
            raise ToolError("division by zero") from None
        except OverflowError:
            raise ToolError("result too large") from None
    raise ToolError(f"unsupported in calc: {ast.unparse(node)!r}")


def _check_power(base: Number, exponent: Number) -> None:
    """Refuse a power before computing it: 9**9**9 would otherwise run for minutes."""
    if abs(base) <= 1:
        return
    if exponent * math.log2(abs(base)) > MAX_EXPONENT_BITS:
        raise ToolError("result too large")


def _checked(value: Any) -> Number:
    if isinstance(value, complex):  # (-8) ** 0.5 is complex in Python
        raise ToolError("result is not a real number")
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError("result too large")
    if isinstance(value, int) and abs(value) > MAX_ABS_INT:
        raise ToolError("result too large")
    return value


def format_number(value: Number) -> str:
    """96 stays "96", 8/2 is "4", 0.1+0.2 is "0.3": what a person expects to read."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return format(value, ".12g")
    return str(value)


def calc(arguments: dict[str, Any]) -> str:
    # A model may send anything as arguments (a list, a number...): check the shape first.
    expression = arguments.get("expression") if isinstance(arguments, dict) else None
    if not isinstance(expression, str):
        raise ToolError('calc needs {"expression": "<arithmetic>"}')
    return format_number(evaluate(expression))


CALC = Tool(
    name="calc",
    description="Evaluate an arithmetic expression: numbers, + - * / // % ** and parentheses.",
    parameters={
        "type": "object",
        "properties": {
            "expression": {"type": "string", "description": "the expression, e.g. (2+3)*4"}
        },
        "required": ["expression"],
    },
    run=calc,
)


def default_tools() -> dict[str, Tool]:
    """The tool registry the interactive program and the demo use, keyed by name."""
    return {CALC.name: CALC}


# >> 03


def slowed(tools: Mapping[str, Tool], seconds: float) -> dict[str, Tool]:
    """The same tools, each sleeping first: a turn still running when an experiment kills it."""

    def slow(run: Callable[[dict[str, Any]], str]) -> Callable[[dict[str, Any]], str]:
        def run_slowly(arguments: dict[str, Any]) -> str:
            time.sleep(seconds)
            return run(arguments)

        return run_slowly

    return {name: replace(tool, run=slow(tool.run)) for name, tool in tools.items()}


# << 03
