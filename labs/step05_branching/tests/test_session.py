"""The session file: a header, one line per message, each written once, chained by parentId."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from harness import CREATED_AT, new_session

from loop import run_turn
from messages import Message, user_text
from model import ScriptedModel
from session import (
    SESSION_VERSION,
    Session,
    SessionError,
    UnusableSessionFile,
    persist_new_messages,
    read_session,
)
from tools import default_tools


def run(messages: list[Message], text: str) -> None:
    for _ in run_turn(ScriptedModel(), default_tools(), messages, user_text(text)):
        pass


def lines_of(session: Session) -> list[dict]:
    return [orjson.loads(line) for line in session.path.read_bytes().splitlines()]


def test_create_writes_nothing_until_the_first_entry(tmp_path: Path) -> None:
    session = new_session(tmp_path / "sessions", "t", cwd="/somewhere")
    assert session.path == tmp_path / "sessions" / "t.jsonl"
    assert not (tmp_path / "sessions").exists() and not session.exists
    session.append_message(user_text("hi"))
    assert session.path.read_bytes() == (
        b'{"type":"header","version":1,"id":"t","createdAt":"%s",'
        % CREATED_AT.encode()
        + b'"cwd":"/somewhere"}\n'
        b'{"type":"message","id":"e1","parentId":null,"message":'
        b'{"role":"user","content":[{"type":"text","text":"hi"}]}}\n'
    )
    assert SESSION_VERSION == 1


def test_one_write_path_ids_parents_and_the_leaf(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    first = session.append_message(user_text("one"))
    other = session.append_entry("x_lab_test_kind", {"note": "any kind goes through here"})
    second = session.append_message(user_text("two"))
    assert [first["id"], other["id"], second["id"]] == ["e1", "e2", "e3"]
    assert [first["parentId"], other["parentId"], second["parentId"]] == [None, "e1", "e2"]
    assert session.leaf_id == "e3"
    assert list(lines_of(session)[2]) == ["type", "id", "parentId", "note"]


def test_a_session_file_deleted_during_the_run_is_not_recreated(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    session.append_message(user_text("one"))
    session.path.unlink()
    with pytest.raises(SessionError, match="is gone"):
        session.append_message(user_text("two"))
    assert not session.path.exists()  # a file without its header would be unreadable


def test_create_never_overwrites_an_existing_file(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    session.append_message(user_text("keep me"))
    before = session.path.read_bytes()
    same_name = new_session(tmp_path)  # nothing is written yet...
    with pytest.raises(SessionError, match="already exists"):
        same_name.append_message(user_text("overwrite?"))  # ...and the first write refuses
    assert session.path.read_bytes() == before


def test_each_message_of_a_turn_is_written_once(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    messages: list[Message] = []
    run(messages, "hello")
    persisted = persist_new_messages(session, messages, 0)
    assert persisted == 2
    run(messages, "what is 12*8")
    persisted = persist_new_messages(session, messages, persisted)
    assert persisted == 6
    assert [line["message"] for line in lines_of(session)[1:]] == messages


def test_a_second_persist_writes_nothing(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    messages: list[Message] = []
    run(messages, "what is 12*8")
    persisted = persist_new_messages(session, messages, 0)
    before = session.path.read_bytes()
    assert persist_new_messages(session, messages, persisted) == persisted
    assert session.path.read_bytes() == before


def test_a_cursor_left_at_zero_writes_history_twice(tmp_path: Path) -> None:
    """The bug the cursor prevents, shown so the test above cannot pass by accident."""
    session = new_session(tmp_path)
    messages: list[Message] = []
    run(messages, "hello")
    persist_new_messages(session, messages, 0)
    run(messages, "hello")
    persist_new_messages(session, messages, 0)  # forgot to use the returned cursor
    assert len(lines_of(session)) == 1 + 2 + 4


def test_tool_results_are_persisted(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    messages: list[Message] = []
    run(messages, "what is 12*8")
    persist_new_messages(session, messages, 0)
    [result] = [e["message"] for e in lines_of(session)[1:] if e["message"]["role"] == "toolResult"]
    assert result == {
        "role": "toolResult",
        "toolCallId": "call_1",
        "toolName": "calc",
        "content": [{"type": "text", "text": "96"}],
        "isError": False,
    }


def test_ids_are_unique_and_each_parent_is_the_previous_entry(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    messages: list[Message] = []
    persisted = 0
    for text in ["hello", "what is 12*8", "what was the result"]:
        run(messages, text)
        persisted = persist_new_messages(session, messages, persisted)
    reading = read_session(session.path)
    ids = [entry["id"] for entry in reading.entries]
    assert len(ids) == len(set(ids)) == 8
    assert [entry["parentId"] for entry in reading.entries] == [None, *ids[:-1]]
    assert reading.header["id"] == "t"


def test_awkward_text_stays_on_one_line_and_round_trips(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    awkward = 'line one\nline two\r\n"quoted" \\ back\tslash — ünïcödé 你好 🙂 \u2028 end'
    session.append_message(user_text(awkward))
    raw = session.path.read_bytes()
    assert raw.count(b"\n") == 2  # header + one entry, each ending in \n
    assert "你好".encode() in raw  # stored as UTF-8, not \u escapes
    assert read_session(session.path).entries[0]["message"] == user_text(awkward)


def test_appending_only_adds_bytes_at_the_end(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    messages: list[Message] = []
    persisted = 0
    snapshots = [b""]
    for text in ["hello", "what is 12*8"]:
        run(messages, text)
        persisted = persist_new_messages(session, messages, persisted)
        snapshots.append(session.path.read_bytes())
    for older, newer in zip(snapshots, snapshots[1:], strict=False):
        assert newer.startswith(older) and len(newer) > len(older)


def test_read_session_refuses_what_is_not_a_session(tmp_path: Path) -> None:
    not_json = tmp_path / "a.jsonl"
    not_json.write_text("hello\n", encoding="utf-8")
    with pytest.raises(UnusableSessionFile, match="not a session \\(no header line\\)"):
        read_session(not_json)
    future = tmp_path / "b.jsonl"
    future.write_text('{"type":"header","version":99,"id":"x"}\n', encoding="utf-8")
    with pytest.raises(UnusableSessionFile, match="unsupported version 99"):
        read_session(future)


def test_a_cursor_past_the_end_is_refused(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    with pytest.raises(ValueError, match="cursor 3"):
        persist_new_messages(session, [user_text("one")], 3)
    assert not session.path.exists()


def test_append_entry_alone_sets_type_id_and_parent(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    for clash in ({"id": "e99"}, {"parentId": None}, {"type": "message"}):
        with pytest.raises(ValueError, match="itself"):
            session.append_entry("x_lab_test_kind", clash)
    assert not session.path.exists()


def test_a_repeated_id_whose_first_line_is_damaged_keeps_the_usable_one(tmp_path: Path) -> None:
    session = new_session(tmp_path)
    session.append_message(user_text("a"))
    with session.path.open("ab") as file:
        file.write(b'{"type":"message","id":"e2","parentId":"e1","message":5}\n')
        file.write(
            b'{"type":"message","id":"e2","parentId":"e1","message":'
            b'{"role":"user","content":[{"type":"text","text":"b"}]}}\n'
        )
    resumed = Session.open(session.path)
    assert [m["content"][0]["text"] for m in resumed.context.messages] == ["a", "b"]
    assert resumed.skipped == 1


def test_a_header_field_set_before_the_first_save_is_written(tmp_path: Path) -> None:
    """The header is written by the first save, as it is then: a step may add a field (a fork
    names its parent) after `create` and before anything is saved."""
    session = new_session(tmp_path)
    session.header["parentSession"] = "/elsewhere/parent.jsonl"  # type: ignore[typeddict-unknown-key]
    session.append_message(user_text("hello"))
    first_line = session.path.read_bytes().split(b"\n")[0]
    assert b'"parentSession":"/elsewhere/parent.jsonl"' in first_line
