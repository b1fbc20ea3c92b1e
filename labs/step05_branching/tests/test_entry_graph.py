"""The entry graph mirrors the file: one node per entry, one edge per parentId."""

from __future__ import annotations

from pathlib import Path

from harness import new_session

from entry_graph import entry_graph, network_text
from loop import run_turn
from messages import Message, user_text
from model import ScriptedModel
from session import Session, persist_new_messages
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
    assert text.splitlines()[0] == "● e1 user: hello"
    assert "e5 toolResult: 96" in text
    assert len(text.splitlines()) == 6


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
        "● e1 user: hello",  # a conversation reads down the page: no indent
        "● e2 assistant: Hello! I can do arithmetic with t…",
        "● e3 user: hi",
        "● e4 assistant: Hello! I can do arithmetic with t… ← leaf",
    ]


def test_an_unknown_entry_kind_is_a_grey_node_in_the_chain(tmp_path: Path) -> None:
    session = new_session(tmp_path, "g")
    session.append_message(user_text("hello"))
    session.append_entry("x_lab_test_kind", {"anything": 1})
    Session.open(session.path).session.append_message(user_text("again"))
    graph = entry_graph(session.path)
    assert list(graph.edges) == [("e1", "e2"), ("e2", "e3")]
    assert graph.nodes["e2"]["label"] == "● e2 x_lab_test_kind (a kind this step does not know)"
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
    assert "missing" not in graph
