"""A damaged line costs only itself, and nothing in a file can pass for the reader's own.

Found by attacking the reader that walks through damaged lines: each case below once went
wrong (a stand-in drawn as the leaf, a line of the stand-in's kind taken for one, a line with
two ids evicting a stand-in and breaking the chain, 30,000 tool results taking a minute).
"""

from __future__ import annotations

import time
from pathlib import Path

import orjson
from conftest import RunMain

from entry_graph import entry_graph
from messages import answered_in_memory, history_problem, tool_result, user_text
from session import Session

HEADER = b'{"type":"header","version":1,"id":"x","createdAt":"t","cwd":"/"}\n'


def line(entry_id: str, parent: str | None, text: str, role: str = "user") -> bytes:
    message = {"role": role, "content": [{"type": "text", "text": text}]}
    if role == "assistant":
        message["stopReason"] = "stop"
    entry = {"type": "message", "id": entry_id, "parentId": parent, "message": message}
    return orjson.dumps(entry) + b"\n"


def write(tmp_path: Path, *lines: bytes) -> Path:
    folder = tmp_path / ".sessions"
    folder.mkdir(exist_ok=True)
    path = folder / "s.jsonl"
    path.write_bytes(HEADER + b"".join(lines))
    return path


def test_a_torn_last_line_is_drawn_off_the_path_never_as_the_leaf(tmp_path: Path) -> None:
    path = write(tmp_path, line("e1", None, "hi"), line("e2", "e1", "Hello.", "assistant"),
                 b'{"type":"message","id":"e3","parentId":"e2","message":{"role')  # fmt: skip
    graph = entry_graph(path)
    assert graph.graph["leaf"] == "e2" and graph.nodes["e2"]["leaf"]
    assert graph.nodes["e3"]["kind"] == "damaged" and not graph.nodes["e3"]["leaf"]


def test_a_line_of_the_readers_own_kind_in_a_file_is_damage(tmp_path: Path) -> None:
    """`damaged` is the reader's stand-in. Written in a file, it is counted as damaged, and a
    later usable line with its id takes its place, as for any stand-in."""
    stand_in = b'{"type":"damaged","id":"e2","parentId":"e1","note":"x"}\n'
    path = write(tmp_path, line("e1", None, "hi"), stand_in)
    opened = Session.open(path)
    assert opened.skipped == 1 and opened.session.leaf_id == "e1"


def test_a_line_with_two_ids_never_evicts_a_stand_in(tmp_path: Path, run_main: RunMain) -> None:
    damaged = line("e3", "e2", "lost")[:-20] + b"\xff" + line("e3", "e2", "lost")[-19:]
    two_ids = (b'{"type":"message","id":"e3","parentId":"e2","id":"e9","message":'
               b'{"role":"user","content":[{"type":"text","text":"two ids"}]}}\n')  # fmt: skip
    path = write(tmp_path, line("e1", None, "hello"), line("e2", "e1", "Hi.", "assistant"),
                 damaged, two_ids, line("e4", "e3", "what is 2+3"))  # fmt: skip
    done = run_main("what was the result\n", "--continue")
    assert done.returncode == 0, done.stderr
    assert b"hangs under" not in done.stderr  # the walk went through e3's stand-in
    texts = [m["content"][0]["text"] for m in Session.open(path).context.messages]
    assert texts[:3] == ["hello", "Hi.", "what is 2+3"]


def test_pairing_thirty_thousand_results_is_linear() -> None:
    """A file is data: one message asking for 30,000 calls, answered in reverse order, took
    about a minute to resume (each result searched a list). A hang detector, not a target:
    linear, it takes a fraction of a second."""
    calls = [{"type": "toolCall", "id": f"call_{n}", "name": "calc", "arguments": {}}
             for n in range(30_000)]  # fmt: skip
    asked = {"role": "assistant", "stopReason": "toolUse", "content": calls}
    results = [tool_result(call, "1") for call in reversed(calls)]  # type: ignore[arg-type]
    started = time.monotonic()
    paired = answered_in_memory([user_text("go"), asked, *results])  # type: ignore[list-item]
    assert time.monotonic() - started < 5
    assert history_problem(paired) is None and len(paired) == 30_002
