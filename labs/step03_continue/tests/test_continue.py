"""--continue: find the latest usable session, replay it, align the cursor, go on."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from conftest import RunMain, save_conversation

from loop import run_turn
from messages import Message, text_of, user_text
from model import ScriptedModel
from session import Session, find_latest_session, persist_new_messages, read_session
from tools import Tool, default_tools


def run(messages: list[Message], text: str, tools: dict[str, Tool] | None = None) -> None:
    for _ in run_turn(ScriptedModel(), tools or default_tools(), messages, user_text(text)):
        pass


def test_open_replays_the_conversation_and_restores_the_pointers(
    saved: tuple[Path, list[Message]],
) -> None:
    path, original = saved
    session, messages, skipped = Session.open(path)
    assert messages == original
    assert [m["role"] for m in messages] == [
        "user", "assistant", "user", "assistant", "toolResult", "assistant",
    ]  # fmt: skip
    assert skipped == 0
    assert (session.last_id, session.last_number, session.needs_newline) == ("e6", 6, False)
    assert session.header["id"] == "first"


def test_a_resumed_append_continues_the_chain(saved: tuple[Path, list[Message]]) -> None:
    path, _ = saved
    before = path.read_bytes()
    session, messages, _ = Session.open(path)
    run(messages, "what was the result")
    assert text_of(messages[-1]) == "The last result was 96 (12*8)."
    persist_new_messages(session, messages, len(messages) - 2)
    after = path.read_bytes()
    assert after.startswith(before)
    entries = read_session(path).entries
    assert [e["id"] for e in entries[-2:]] == ["e7", "e8"]
    assert [e["parentId"] for e in entries[-2:]] == ["e6", "e7"]


def test_tools_are_not_run_again_on_resume(saved: tuple[Path, list[Message]]) -> None:
    path, _ = saved
    calls: list[dict] = []
    calc = default_tools()["calc"]
    counting = {"calc": Tool(calc.name, calc.description, calc.parameters, calls.append)}
    _, messages, _ = Session.open(path)
    run(messages, "what was the result", counting)
    assert calls == []  # the 96 came from the toolResult in the file
    assert "96" in text_of(messages[-1])


def test_a_forgotten_cursor_doubles_the_history(saved: tuple[Path, list[Message]]) -> None:
    """The classic mistake, kept as a test so the right way cannot pass by accident."""
    path, _ = saved
    session, messages, _ = Session.open(path)
    persist_new_messages(session, messages, 0)  # wrong: these 6 are already in the file
    assert len(Session.open(path).messages) == 12


def test_resume_and_exit_leaves_the_file_byte_identical(
    saved: tuple[Path, list[Message]], run_main: RunMain
) -> None:
    path, _ = saved
    before = path.read_bytes()
    for stdin in ["", "/exit\n", "\n\n/exit\n"]:
        done = run_main(stdin, "--continue")
        assert done.returncode == 0, done.stderr
        assert done.stdout.decode().splitlines()[-1] == (
            f"0 new messages saved to {Path('.sessions', 'first.jsonl')} (6 in all)"
        )
        assert path.read_bytes() == before
    assert list(path.parent.iterdir()) == [path]  # and no new session was started


def test_a_fresh_session_cannot_recall_what_a_resumed_one_can(
    saved: tuple[Path, list[Message]], run_main: RunMain
) -> None:
    path, _ = saved
    resumed = run_main("what was the result\n", "--continue")
    assert resumed.returncode == 0, resumed.stderr
    lines = resumed.stdout.decode().splitlines()
    shown = Path(".sessions", "first.jsonl")
    assert lines[0] == f"session file: {shown} (resumed: 6 messages restored)"
    assert "assistant> The last result was 96 (12*8)." in lines
    assert lines[-1] == f"2 new messages saved to {shown} (8 in all)"
    assert resumed.stderr == b""

    fresh = run_main("what was the result\n")
    assert "I have no earlier result in this conversation." in fresh.stdout.decode()
    assert len(list(path.parent.glob("*.jsonl"))) == 2


def test_resuming_twice_keeps_ids_unique_and_chained(
    saved: tuple[Path, list[Message]], run_main: RunMain
) -> None:
    path, _ = saved
    snapshots = [path.read_bytes()]
    for text in ["what was the result", "what is 2+3"]:
        assert run_main(text + "\n", "--continue").returncode == 0
        snapshots.append(path.read_bytes())
    assert all(new.startswith(old) for old, new in zip(snapshots, snapshots[1:], strict=False))
    entries = read_session(path).entries
    ids = [e["id"] for e in entries]
    assert ids == [f"e{n}" for n in range(1, 13)]
    assert [e["parentId"] for e in entries] == [None, *ids[:-1]]


def test_continue_with_no_session_says_so_and_starts_one(run_main: RunMain, tmp_path: Path) -> None:
    done = run_main("hello\n", "--continue")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert lines[0] == "no session to continue in .sessions; starting a new one"
    assert lines[1].startswith("session file: ")
    assert len(list((tmp_path / ".sessions").glob("*.jsonl"))) == 1
    assert done.stderr == b""


def age(path: Path, seconds_ago: int) -> None:
    """Set a file's modification time, so which one is "latest" does not depend on timing."""
    when = 1_800_000_000 - seconds_ago
    os.utime(path, (when, when))


def test_the_most_recently_modified_session_wins(tmp_path: Path) -> None:
    older, _ = save_conversation(tmp_path, "b-older", ["hello"])
    newer, _ = save_conversation(tmp_path, "a-newer", ["what is 1+1"])
    age(older, 100)
    age(newer, 10)
    assert find_latest_session(tmp_path) == (newer, [])
    age(older, 1)  # appending to a session makes it the latest again
    assert find_latest_session(tmp_path) == (older, [])


def test_a_tie_goes_to_the_later_name(tmp_path: Path) -> None:
    first, _ = save_conversation(tmp_path, "20260101T000000Z-aaaaaa", ["hello"])
    second, _ = save_conversation(tmp_path, "20260101T000000Z-bbbbbb", ["hello"])
    age(first, 5)
    age(second, 5)
    assert find_latest_session(tmp_path) == (second, [])


def test_unusable_files_are_passed_over_each_with_its_reason(tmp_path: Path) -> None:
    good, _ = save_conversation(tmp_path, "good", ["hello"])
    future = tmp_path / "future.jsonl"
    future.write_bytes(b'{"type":"header","version":2,"id":"future"}\n')
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    notes = tmp_path / "notes.txt"  # not *.jsonl: not even a candidate
    notes.write_text("hello\n", encoding="utf-8")
    (tmp_path / "folder.jsonl").mkdir()  # not a regular file: not a candidate either
    for path, seconds_ago in [(good, 30), (future, 20), (empty, 10), (notes, 1)]:
        age(path, seconds_ago)
    latest, passed_over = find_latest_session(tmp_path)
    assert latest == good
    assert [str(error) for error in passed_over] == [
        f"{empty}: not a session (empty file)",
        f"{future}: unsupported version 2 (this program reads version 1)",
    ]


def test_a_missing_folder_has_no_session_and_is_no_error(tmp_path: Path) -> None:
    assert find_latest_session(tmp_path / "nowhere") == (None, [])


def test_a_folder_of_only_unusable_files_has_no_session(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_bytes(b"hello\n")
    latest, [error] = find_latest_session(tmp_path)
    assert latest is None
    assert error.reason == "not a session (no header line)"


def test_main_warns_about_a_newer_unusable_file_and_resumes_the_good_one(
    saved: tuple[Path, list[Message]], run_main: RunMain
) -> None:
    path, _ = saved
    future = path.with_name("newer.jsonl")
    future.write_bytes(b'{"type":"header","version":2,"id":"newer","cwd":"/"}\n')
    age(path, 60)
    age(future, 1)
    done = run_main("what was the result\n", "--continue")
    assert done.returncode == 0
    assert done.stderr.decode().splitlines() == [
        f"warning: {Path('.sessions', 'newer.jsonl')}: unsupported version 2 "
        "(this program reads version 1); passed over"
    ]
    assert "The last result was 96" in done.stdout.decode()
    assert future.read_bytes() == b'{"type":"header","version":2,"id":"newer","cwd":"/"}\n'
    header = orjson.loads(path.read_bytes().split(b"\n", 1)[0])
    assert header["id"] == "first"
