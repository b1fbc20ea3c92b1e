"""calc evaluates arithmetic and nothing else, and fails fast on anything too big."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import replace

import pytest

from loop import ToolResultEvent, execute, run_turn
from messages import Message, text_of, user_text
from model import ScriptedModel
from tools import CALC, ToolError, calc, default_tools


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("12*8", "96"),
        ("1 + 2 * 3", "7"),
        ("(1 + 2) * 3", "9"),
        ("-3 + +5", "2"),
        ("7 / 2", "3.5"),
        ("8 / 2", "4"),
        ("7 // 2", "3"),
        ("7 % 3", "1"),
        ("2 ** 10", "1024"),
        ("0.1 + 0.2", "0.3"),
        ("2 ** -1", "0.5"),
    ],
)
def test_arithmetic(expression: str, value: str) -> None:
    assert calc({"expression": expression}) == value


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("__import__('os').getcwd()", "unsupported"),
        ("open('x')", "unsupported"),
        ("x + 1", "unsupported"),
        ("'a' * 3", "unsupported"),
        ("True + 1", "unsupported"),
        ("1 +", "not an arithmetic expression"),
        ("1/0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("9**9**9", "too large"),
        ("10**1000", "too large"),
        ("(10**50) * (10**60)", "too large"),
        ("1e308 * 10", "too large"),
        ("(-8) ** 0.5", "not a real number"),
        ("1+" * 150 + "1", "longer than"),
    ],
)
def test_bad_expressions_raise_tool_error_quickly(expression: str, reason: str) -> None:
    started = time.perf_counter()
    with pytest.raises(ToolError, match=reason):
        calc({"expression": expression})
    assert time.perf_counter() - started < 0.5


def test_missing_argument_is_a_tool_error() -> None:
    with pytest.raises(ToolError, match="expression"):
        calc({"expr": "1+1"})


def test_a_bad_expression_becomes_an_error_result_not_a_crash() -> None:
    call = {"type": "toolCall", "id": "call_1", "name": "calc", "arguments": {"expression": "1/0"}}
    result = execute(default_tools(), call)
    assert result == {
        "role": "toolResult",
        "toolCallId": "call_1",
        "toolName": "calc",
        "content": [{"type": "text", "text": "division by zero"}],
        "isError": True,
    }


def test_an_unknown_tool_becomes_an_error_result() -> None:
    call = {"type": "toolCall", "id": "call_9", "name": "rm", "arguments": {}}
    result = execute(default_tools(), call)
    assert result["isError"] is True
    assert "unknown tool" in result["content"][0]["text"]


@pytest.mark.parametrize(
    "expression",
    [
        "1\x00+2",  # ast.parse refuses NUL bytes: SyntaxError, or ValueError before 3.12
        "(" * 100 + "1" + ")" * 100,  # nested as deep as 200 characters allow
        "(" * 199 + "1",
        "-" * 199 + "1",
        "2**" * 66 + "2",
        "9" * 200,  # more digits than MAX_ABS_INT, fewer than int->str's 4,300
        "0x" + "f" * 198,
        "1e308 // 1e-308",
        "1e-308 ** -2",
        "0.5 ** -1e10",
        "(-1) ** (10**100)",
        "10**100 % 0.0",
        "1_0 + 1j",
        "\u3000 1 + 1",  # Unicode whitespace the model's pattern allows, Python does not
    ],
)
def test_edge_expressions_give_a_value_or_a_tool_error_quickly(expression: str) -> None:
    started = time.perf_counter()
    with contextlib.suppress(ToolError):
        calc({"expression": expression})
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize("arguments", [[], "1+1", None, 7, {"expression": ["1+1"]}])
def test_arguments_of_the_wrong_shape_are_a_tool_error(arguments: object) -> None:
    with pytest.raises(ToolError, match="expression"):
        calc(arguments)  # type: ignore[arg-type]


def test_fuzzed_expressions_give_a_value_or_a_tool_error() -> None:
    """Random strings of arithmetic and other characters: calc may refuse, never crash."""
    rng = random.Random(3)
    ascii_ = "".join(map(chr, range(128)))
    alphabets = ["0123456789+-*/%().e ", "9*()-+", "0123456789.e+-_xj", ascii_]
    for _ in range(5_000):
        alphabet = rng.choice(alphabets)
        expression = "".join(rng.choice(alphabet) for _ in range(rng.randrange(201)))
        with contextlib.suppress(ToolError):  # anything else fails the test
            calc({"expression": expression})


def crashes(arguments: dict[str, object]) -> str:
    return str(10**5000)  # ValueError: int->str conversion is limited to 4,300 digits


def returns_a_number(arguments: dict[str, object]) -> str:
    return 42  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("run", "failure"),
    [(crashes, "calc failed: ValueError"), (returns_a_number, "calc failed: TypeError")],
)
def test_a_broken_tool_gives_an_error_result_and_the_turn_goes_on(
    run: Callable[[dict[str, object]], str], failure: str
) -> None:
    """A bug in a tool must not end the turn: the user's message would never be saved."""
    tools = {"calc": replace(CALC, run=run)}
    messages: list[Message] = []
    events = list(run_turn(ScriptedModel(), tools, messages, user_text("what is 1+1")))
    [result] = [e.result for e in events if isinstance(e, ToolResultEvent)]
    assert result["isError"] is True
    assert text_of(result).startswith(failure)
    assert [m["role"] for m in messages] == ["user", "assistant", "toolResult", "assistant"]
