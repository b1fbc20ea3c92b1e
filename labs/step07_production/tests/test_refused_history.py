"""A history a real chat API refuses never reaches the model from a file a crash has left.

A damaged line costs only itself: when its id and parent can still be read, the walk goes
through it, and the path may then hold a tool result whose call was on that line, or a call
whose result was. A real API refuses either (an HTTP 400, on every later turn). The context is
paired up before it is sent: a result without its call is left out, a call in the middle
without its result gets an error result in memory. Nothing is written for either: the file's
bytes stay as they are.
"""

from __future__ import annotations

from pathlib import Path

import orjson
from conftest import RunMain
from harness import answer_line, message_line, user_line, write_session

CALL = {"type": "toolCall", "id": "call_1", "name": "calc", "arguments": {"expression": "12*8"}}


def result(entry_id: str, parent: str, text: str) -> bytes:
    body = {"role": "toolResult", "toolCallId": "call_1", "toolName": "calc", "isError": False,
            "content": [{"type": "text", "text": text}]}  # fmt: skip
    return message_line(entry_id, parent, body)


def damaged(line: bytes) -> bytes:
    """The line with a bad byte in its message: its id and parentId still read."""
    cut = line.index(b'"message":{') + 20
    return line[:cut] + b"\xff" + line[cut + 1 :]


def continue_with(run_main: RunMain, path: Path, line: str) -> str:
    before = path.read_bytes()
    done = run_main(line + "\n", "--continue")
    assert done.returncode == 0, done.stderr
    shown = Path(".sessions", "s.jsonl")
    assert done.stderr.decode() == f"warning: skipped 1 damaged line in {shown}\n"  # no break
    assert path.read_bytes().startswith(before)  # no byte rewritten
    return done.stdout.decode()


def test_a_result_whose_call_was_on_a_damaged_line_is_left_out(
    tmp_path: Path, run_main: RunMain
) -> None:
    path = write_session(
        tmp_path / ".sessions",
        user_line("e1", None, "what is 12*8"),
        damaged(answer_line("e2", "e1", "Let me calculate that.", CALL)),
        result("e3", "e2", "96"),
        answer_line("e4", "e3", "12*8 = 96."),
    )
    out = continue_with(run_main, path, "what is 2+3")
    assert "(resumed: 2 messages restored" in out  # e1, e4: through e2, and e3 left out
    assert "assistant> 2+3 = 5." in out or "assistant> Result: 5 (from 2+3)." in out


def test_a_call_whose_result_was_on_a_damaged_line_is_answered_in_memory(
    tmp_path: Path, run_main: RunMain
) -> None:
    path = write_session(
        tmp_path / ".sessions",
        user_line("e1", None, "what is 12*8"),
        answer_line("e2", "e1", "Let me calculate that.", CALL),
        damaged(result("e3", "e2", "96")),
        answer_line("e4", "e3", "12*8 = 96."),
    )
    size = len(path.read_bytes())
    out = continue_with(run_main, path, "what is 2+3")
    assert "(resumed: 4 messages restored" in out  # e1, e2, its lost result, e4
    assert "assistant> 2+3 = 5." in out or "assistant> Result: 5 (from 2+3)." in out
    new_lines = path.read_bytes()[size:].splitlines()
    roles = [orjson.loads(line)["message"]["role"] for line in new_lines]
    assert roles == ["user", "assistant", "toolResult", "assistant"]  # the turn, nothing else
