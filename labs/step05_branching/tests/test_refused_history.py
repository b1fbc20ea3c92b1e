"""A history a real chat API refuses never reaches the model from a file a crash has left.

A run killed between two saves leaves a tool call at the end without its result. A real API
refuses that (an HTTP 400, on every later turn), so the context is paired up before it is
sent: the call gets an error result in memory, and nothing is written for it.
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


def test_a_call_at_the_end_without_its_result_is_answered_in_memory(
    tmp_path: Path, run_main: RunMain
) -> None:
    """What a kill between the lines of one save leaves (the call written, its result not), or
    a run killed in a tool call. This step has no repair that writes the answer (the
    production step has), so the call is answered in memory, on every resume: the model is
    never given a call without its result, and the file gets the new turn and nothing else."""
    lines = [user_line("e1", None, "what is 12*8"), answer_line("e2", "e1", "Let me.", CALL)]
    path = write_session(tmp_path / ".sessions", *lines)
    size = len(path.read_bytes())
    done = run_main("what is 2+3\n", "--continue")
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert b"(resumed: 3 messages restored" in done.stdout  # the call, and its answer in memory
    new_lines = path.read_bytes()[size:].splitlines()
    roles = [orjson.loads(line)["message"]["role"] for line in new_lines]
    assert roles == ["user", "assistant", "toolResult", "assistant"]  # the turn, nothing else
