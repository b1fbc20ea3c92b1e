"""calc evaluates arithmetic and nothing else, and fails fast on anything too big."""

from __future__ import annotations

import time

import pytest

from loop import execute
from tools import ToolError, calc, default_tools


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
