"""A damaged line costs only itself, and nothing in a file can pass for the reader's own.

Found by attacking the reader that walks through damaged lines: each case below once went
wrong (a stand-in drawn as the leaf, a line of the stand-in's kind taken for one, a line with
two ids evicting a stand-in and breaking the chain, 30,000 tool results taking a minute).
"""

from __future__ import annotations

import time
from pathlib import Path

from conftest import RunMain
from harness import answer_line, user_line, write_session

from entry_graph import entry_graph
from messages import answered_in_memory, history_problem, tool_result, user_text
from session import Session


def test_a_torn_last_line_is_drawn_off_the_path_never_as_the_leaf(tmp_path: Path) -> None:
    torn = b'{"type":"message","id":"e3","parentId":"e2","message":{"role'
    hello = [user_line("e1", None, "hi"), answer_line("e2", "e1", "Hello.")]
    path = write_session(tmp_path / ".sessions", *hello, torn)
    graph = entry_graph(path)
    assert graph.graph["leaf"] == "e2" and graph.nodes["e2"]["leaf"]
    assert graph.nodes["e3"]["kind"] == "damaged" and not graph.nodes["e3"]["leaf"]


def test_a_line_of_the_readers_own_kind_in_a_file_is_damage(tmp_path: Path) -> None:
    """`damaged` is the reader's stand-in. Written in a file, it is counted as damaged, and a
    later usable line with its id takes its place, as for any stand-in."""
    stand_in = b'{"type":"damaged","id":"e2","parentId":"e1","note":"x"}\n'
    path = write_session(tmp_path / ".sessions", user_line("e1", None, "hi"), stand_in)
    opened = Session.open(path)
    assert opened.skipped == 1 and opened.session.leaf_id == "e1"


def test_a_line_with_two_ids_never_evicts_a_stand_in(tmp_path: Path, run_main: RunMain) -> None:
    damaged = user_line("e3", "e2", "lost")[:-20] + b"\xff" + user_line("e3", "e2", "lost")[-19:]
    two_ids = (b'{"type":"message","id":"e3","parentId":"e2","id":"e9","message":'
               b'{"role":"user","content":[{"type":"text","text":"two ids"}]}}\n')  # fmt: skip
    hello = [user_line("e1", None, "hello"), answer_line("e2", "e1", "Hi.")]
    path = write_session(
        tmp_path / ".sessions", *hello, damaged, two_ids, user_line("e4", "e3", "what is 2+3")
    )
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
