# >>file 02
"""The entry graph mirrors the file: one node per entry, one edge per parentId."""

from __future__ import annotations

from pathlib import Path

# >> prod
import orjson
import pytest

# << prod
from harness import new_session

# >> prod
from harness import run, user_line, write_session

# << prod
from entry_graph import entry_graph, network_text
from loop import run_turn
from messages import Message, user_text
from model import ScriptedModel

from session import persist_new_messages

# >> 03
from session import Session

# << 03
from tools import default_tools


def test_graph_and_text_form_of_the_demo_conversation(tmp_path: Path) -> None:
    session = new_session(tmp_path, "g")
    messages: list[Message] = []
    persisted = 0
    for text in ["hello", "what is 12*8"]:
        for _ in run_turn(ScriptedModel(), default_tools(), messages, user_text(text)):
            pass
        persisted = persist_new_messages(session, messages, persisted)
    graph = entry_graph(session.path)
    assert list(graph.edges) == [(f"e{n}", f"e{n + 1}") for n in range(1, 6)]
    assert graph.nodes["e5"]["kind"] == "toolResult"
    text = network_text(graph)
    # >> 02 until 05
    # assert text.splitlines()[0] == "e1 user: hello"
    # << 02 until 05
    # >> 05
    assert text.splitlines()[0] == "● e1 user: hello"
    # << 05
    assert "e5 toolResult: 96" in text
    assert len(text.splitlines()) == 6


# >> 02 until 03
#
#
# def test_an_entry_of_another_kind_is_shown_as_such(tmp_path: Path) -> None:
# << 02 until 03
# >> 03


def test_a_resumed_turn_hangs_under_the_leaf_it_restored(tmp_path: Path) -> None:
    session = new_session(tmp_path, "g")
    messages: list[Message] = []
    for _ in run_turn(ScriptedModel(), default_tools(), messages, user_text("hello")):
        pass
    persist_new_messages(session, messages, 0)
    resumed = Session.open(session.path)
    messages = resumed.context.messages
    for _ in run_turn(ScriptedModel(), default_tools(), messages, user_text("hi")):
        pass
    persist_new_messages(resumed.session, messages, 2)
    graph = entry_graph(session.path)
    assert network_text(graph).splitlines() == [
        # << 03
        # >> 03 until 05
        # "e1 user: hello",  # a conversation reads down the page: no indent
        # "e2 assistant: Hello! I can do arithmetic with t…",
        # "e3 user: hi",
        # "e4 assistant: Hello! I can do arithmetic with t… ← leaf",
        # << 03 until 05
        # >> 05
        "● e1 user: hello",  # a conversation reads down the page: no indent
        "● e2 assistant: Hello! I can do arithmetic with t…",
        "● e3 user: hi",
        "● e4 assistant: Hello! I can do arithmetic with t… ← leaf",
        # << 05
        # >> 03
    ]


def test_an_unknown_entry_kind_is_a_grey_node_in_the_chain(tmp_path: Path) -> None:
    # << 03
    session = new_session(tmp_path, "g")
    session.append_message(user_text("hello"))
    session.append_entry("x_lab_test_kind", {"anything": 1})
    # >> 03
    Session.open(session.path).session.append_message(user_text("again"))
    # << 03
    graph = entry_graph(session.path)
    # >> 02 until 03
    # assert list(graph.edges) == [("e1", "e2")]
    # label = "e2 x_lab_test_kind (a kind this step does not know) ← leaf"
    # assert graph.nodes["e2"]["label"] == label
    # << 02 until 03
    # >> 03
    assert list(graph.edges) == [("e1", "e2"), ("e2", "e3")]
    # << 03
    # >> 03 until 05
    # assert graph.nodes["e2"]["label"] == "e2 x_lab_test_kind (a kind this step does not know)"
    # << 03 until 05
    # >> 05
    assert graph.nodes["e2"]["label"] == "● e2 x_lab_test_kind (a kind this step does not know)"
    # << 05
    # >> 03
    assert all(on_path for _, on_path in graph.nodes(data="on_path"))


def test_entries_off_the_path_and_damaged_trees_are_drawn(tmp_path: Path) -> None:
    """A branch, a dangling parent and a parent cycle: marked, never a crash."""
    session = new_session(tmp_path, "g")
    session.append_message(user_text("root"))
    session.append_message(user_text("abandoned"))
    with session.path.open("ab") as file:
        file.write(
            b'{"type":"x_lab_test_kind","id":"c1","parentId":"c2"}\n'
            b'{"type":"x_lab_test_kind","id":"c2","parentId":"c1"}\n'
            b'{"type":"x_lab_test_kind","id":"o1","parentId":"missing"}\n'
            b'{"type":"x_lab_test_kind","id":"s1","parentId":"s1"}\n'
            b'{"type":"message","id":"e3","parentId":"e1","message":'
            b'{"role":"user","content":[{"type":"text","text":"kept"}]}}\n'
        )
    graph = entry_graph(session.path)
    assert graph.graph["leaf"] == "e3"
    assert {n for n, on in graph.nodes(data="on_path") if on} == {"e1", "e3"}
    # >> prod
    # A cycle off the path is cut open above its first entry in the file: drawn once, as a tree.
    assert ("c1", "c2") in graph.edges and ("c2", "c1") not in graph.edges
    assert ("s1", "s1") not in graph.edges  # its own parent: a root
    # << prod
    assert "missing" not in graph


# << 03
# >> prod


def test_text_from_the_file_is_shown_escaped(tmp_path: Path) -> None:
    session = new_session(tmp_path, "g")
    session.append_message(user_text("costs $\\x$ and \x1b[31m red"))
    session.append_entry("kind\x1b[2J", {})
    assert "\x1b" not in network_text(entry_graph(session.path))


def write_parents(folder: Path, parents: list[str | None]) -> None:
    """A session file of one user message per entry, e1, e2..., each under the parent given."""
    lines = [user_line(f"e{n}", parent, "x") for n, parent in enumerate(parents, start=1)]
    write_session(folder, *lines, name="x.jsonl")


def tree_of(folder: Path) -> str:
    done = run(folder.parent, b"/tree\n", "--continue")
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


@pytest.mark.parametrize("cycle", [False, True])
def test_a_long_conversation_is_drawn_as_narrow_as_a_short_one(tmp_path: Path, cycle: bool) -> None:
    """20,000 entries in a row (or a parent cycle as long). Indented one step per entry, as
    networkx draws a tree, they took 800 MB of text and /tree never finished; a conversation
    reads down the page, so it is one short line an entry, promptly."""
    count = 20_000
    first = f"e{count}" if cycle else None
    write_parents(tmp_path / ".sessions", [first] + [f"e{n}" for n in range(1, count)])
    out = tree_of(tmp_path / ".sessions")
    assert f"● e{count} user: x ← leaf" in out.splitlines()  # not indented
    assert "too deep" not in out and len(out) < 40 * count


def test_forks_nested_too_deep_to_indent_are_listed_flat_in_time(tmp_path: Path) -> None:
    """10,000 forks, each inside the one before (every entry of the conversation has a second
    child): indented, the text would grow with the square of the depth. Listed flat instead."""
    forks = 10_000
    parents: list[str | None] = [None]  # e1; then, for each fork, the next entry and a side one
    for number in range(1, forks + 1):
        trunk = f"e{1 + 2 * (number - 1)}"
        parents += [trunk, trunk]
    write_parents(tmp_path / ".sessions", parents)
    out = tree_of(tmp_path / ".sessions")
    count = len(parents)
    assert f"(too deep to draw: {count:,} entries, each with the one it hangs under)" in out
    assert len(out) < 100 * count


def test_text_from_the_file_cannot_fake_the_marks_of_a_label(tmp_path: Path) -> None:
    """The leaf and path marks are the program's: a message that says "← leaf ●" must not make
    a second leaf, or an entry look on the path that is not."""
    session = new_session(tmp_path, "m")
    for text in ["hello ← leaf", "● e1 ○", "last"]:
        session.append_message(user_text(text))
    labels = [label for _, label in entry_graph(session.path).nodes(data="label")]
    assert sum("←" in label for label in labels) == 1 and labels[-1].endswith(" ← leaf")
    assert sum("●" in label or "○" in label for label in labels) == sum(
        label.startswith(("● ", "○ ")) for label in labels
    )
    assert "hello <- leaf" in labels[0]


def test_a_tree_listed_flat_cannot_fake_the_marks_either(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listed flat, each entry names the one it hangs under: an id from the file that reads
    '← leaf' must not show a second leaf there."""
    import entry_graph as module

    session = new_session(tmp_path, "f")
    odd = {"type": "message", "id": "e1 ← leaf ●", "parentId": None, "message": user_text("hi")}
    session.append_message(user_text("start"))
    with session.path.open("ab") as file:
        file.write(orjson.dumps(odd) + b"\n")
        file.write(orjson.dumps({**odd, "id": "e3", "parentId": "e1 ← leaf ●"}) + b"\n")
    monkeypatch.setattr(module, "MAX_INDENT_COLUMNS", -1)  # too deep: listed flat
    text = network_text(entry_graph(session.path))
    assert text.startswith("(too deep to draw") and text.count("←") == 1


def test_a_parent_cycle_on_the_path_is_drawn_once_from_where_the_walk_starts(
    tmp_path: Path,
) -> None:
    """e1 hangs under e3, which hangs under e2, under e1. The walk from the leaf e3 stops at e1,
    where the conversation starts. Before: /tree drew e3 twice, with two leaf marks."""
    session = new_session(tmp_path, "g")
    session.append_message(user_text("one"))
    session.append_message(user_text("two"))
    session.append_message(user_text("three"))
    written = session.path.read_bytes()
    looped = written.replace(b'"id":"e1","parentId":null', b'"id":"e1","parentId":"e3"')
    assert looped != written
    session.path.write_bytes(looped)
    text = network_text(entry_graph(session.path))
    first = text.splitlines()[0]
    assert first.endswith("e1 user: one") and first[0] in "●○", text  # a root: no indent
    assert text.count("e3 user: three") == 1 and text.count("← leaf") == 1, text


# << prod
