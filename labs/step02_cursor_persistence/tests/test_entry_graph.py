"""The entry graph mirrors the file: one node per entry, one edge per parentId."""

from __future__ import annotations

from pathlib import Path

from harness import new_session

from entry_graph import entry_graph, network_text
from loop import run_turn
from messages import Message, user_text
from model import ScriptedModel
from session import persist_new_messages
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
    assert text.splitlines()[0] == "e1 user: hello"
    assert "e5 toolResult: 96" in text
    assert len(text.splitlines()) == 6


def test_an_entry_of_another_kind_is_shown_as_such(tmp_path: Path) -> None:
    session = new_session(tmp_path, "g")
    session.append_message(user_text("hello"))
    session.append_entry("x_lab_test_kind", {"anything": 1})
    graph = entry_graph(session.path)
    assert list(graph.edges) == [("e1", "e2")]
    label = "e2 x_lab_test_kind (a kind this step does not know) ← leaf"
    assert graph.nodes["e2"]["label"] == label
