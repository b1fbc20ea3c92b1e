# >>file 02
"""The loop fills the in-memory list and knows nothing about sessions or files."""

from __future__ import annotations

import ast
import builtins
import inspect
import io
from pathlib import Path

import pytest

import loop
import session
from loop import MessageEnd, ToolResultEvent, TurnEnd, TurnStart, run_turn
from messages import Message, text_of, user_text
from model import ScriptedModel, TextDelta, ToolCallEvent
from render import render
from tools import default_tools

STEP_DIR = Path(__file__).resolve().parent.parent


def turn(messages: list[Message], text: str) -> list[object]:
    return list(run_turn(ScriptedModel(), default_tools(), messages, user_text(text)))


def test_hello_adds_two_messages_and_arithmetic_adds_four() -> None:
    messages: list[Message] = []
    turn(messages, "hello")
    assert [m["role"] for m in messages] == ["user", "assistant"]
    turn(messages, "what is 12*8")
    assert [m["role"] for m in messages[2:]] == ["user", "assistant", "toolResult", "assistant"]
    assert text_of(messages[-1]) == "12*8 = 96."


def test_event_order_of_a_tool_turn() -> None:
    events = turn([], "what is 12*8")
    kinds = [type(e).__name__ for e in events if not isinstance(e, TextDelta)]
    assert kinds == [
        "TurnStart",
        "MessageEnd",  # the user's message
        "ToolCallEvent",
        "MessageEnd",  # the assistant's tool call
        "ToolResultEvent",
        "MessageEnd",  # the tool result
        "MessageEnd",  # the final answer
        "TurnEnd",
    ]
    assert isinstance(events[0], TurnStart)
    assert events[-1] == TurnEnd(added=4, total=4)


def test_every_message_end_is_already_in_the_list() -> None:
    messages: list[Message] = []
    ended = []
    for event in run_turn(ScriptedModel(), default_tools(), messages, user_text("what is 2+3")):
        if isinstance(event, MessageEnd):
            assert messages[-1] is event.message  # appended before it is announced
            ended.append(event.message)
    assert ended == messages


def test_a_bad_expression_gives_an_error_result_and_an_answer() -> None:
    messages: list[Message] = []
    events = turn(messages, "what is 1/0")
    [result] = [e.result for e in events if isinstance(e, ToolResultEvent)]
    assert result["isError"] is True
    assert messages[-1]["role"] == "assistant"
    assert "division by zero" in text_of(messages[-1])


def test_the_loop_module_imports_nothing_about_disk() -> None:
    tree = ast.parse((STEP_DIR / "loop.py").read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    assert not imported & {"session", "os", "io", "pathlib", "shutil", "tempfile", "main"}
    assert list(inspect.signature(run_turn).parameters) == ["model", "tools", "messages", "prompt"]
    assert not hasattr(loop, "Session")


def test_a_turn_runs_with_the_disk_and_the_session_forbidden(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("the loop touched the disk or the session")

    monkeypatch.setattr(builtins, "open", forbidden)
    monkeypatch.setattr(Path, "open", forbidden)
    monkeypatch.setattr(session.Session, "append_entry", forbidden)
    monkeypatch.setattr(session, "persist_new_messages", forbidden)
    messages: list[Message] = []
    turn(messages, "hello")
    turn(messages, "what is 12*8")
    assert len(messages) == 6
    # A tool's exception becomes an error result, so a forbidden call would hide in one:
    assert not any(message.get("isError") for message in messages)


def test_render_prints_what_a_student_reads() -> None:
    out = io.StringIO()
    render(run_turn(ScriptedModel(), default_tools(), [], user_text("what is 12*8")), out)
    assert out.getvalue() == (
        "assistant> Let me calculate that.\n"
        '[tool call] calc {"expression":"12*8"}\n'
        "[tool result] calc -> 96\n"
        "assistant> 12*8 = 96.\n"
        # >> 02 until prod
        # "[turn end] 4 new messages in memory (4 in all)\n"
        # << 02 until prod
        # >> prod
        "[turn end] 4 new messages (4 in all)\n"
        # << prod
    )


def test_tool_call_event_carries_the_block_that_is_stored() -> None:
    messages: list[Message] = []
    events = turn(messages, "what is 6*7")
    [call_event] = [e for e in events if isinstance(e, ToolCallEvent)]
    assert call_event.call in messages[1]["content"]
