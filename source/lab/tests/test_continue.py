# >>file 03
"""--continue: find the latest usable session, replay it, align the cursor, go on."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from conftest import RunMain, Saved, save_conversation

# >> prod
from harness import new_session

from commands import Chat, ModelChoice
from interrupted_calls import INTERRUPTED

# << prod
from loop import run_turn

from messages import Message, text_of, user_text

# >> prod
from messages import history_problem, tool_result

# << prod
from model import ScriptedModel
from session import Session, SessionError, find_latest_session, persist_new_messages, read_session
from session_folder import LatestSession
from tools import Tool, default_tools


def run(messages: list[Message], text: str, tools: dict[str, Tool] | None = None) -> None:
    for _ in run_turn(ScriptedModel(), tools or default_tools(), messages, user_text(text)):
        pass


def test_open_replays_the_conversation_and_restores_the_pointers(
    saved: Saved,
) -> None:
    resumed = Session.open(saved.path)
    messages, session = resumed.context.messages, resumed.session
    assert messages == saved.messages
    assert [m["role"] for m in messages] == [
        "user", "assistant", "user", "assistant", "toolResult", "assistant",
    ]  # fmt: skip
    assert resumed.skipped == 0 and resumed.context.chain_break is None
    assert (session.leaf_id, session.exists) == ("e6", True)
    assert session.header["id"] == "first"


def test_a_resumed_append_continues_the_chain(saved: Saved) -> None:
    path = saved.path
    before = path.read_bytes()
    resumed = Session.open(path)
    messages = resumed.context.messages
    run(messages, "what was the result")
    assert text_of(messages[-1]) == "The last result was 96 (12*8)."
    persist_new_messages(resumed.session, messages, len(messages) - 2)
    after = path.read_bytes()
    assert after.startswith(before)
    entries = read_session(path).entries
    assert [e["id"] for e in entries[-2:]] == ["e7", "e8"]
    assert [e["parentId"] for e in entries[-2:]] == ["e6", "e7"]


# >> prod


def test_chat_resume_gives_the_chat_and_what_to_tell_the_user(tmp_path: Path) -> None:
    """main.py and demo.py resume through it: the path's messages and model, the cursor at
    the end of them, and a tool call the last run never finished answered, each said by name."""
    session = new_session(tmp_path, "r")
    session.append_model_change("gpt-9")  # e1: by a program that has it
    session.append_message(user_text("what is 12*8"))  # e2
    call = {"type": "toolCall", "id": "c1", "name": "calc", "arguments": {"expression": "12*8"}}
    session.append_message({"role": "assistant", "content": [call], "stopReason": "toolUse"})
    resumed = Chat.resume(Session.open(session.path))  # the run died in the tool: no result
    chat = resumed.chat
    assert (resumed.restored, resumed.repaired) == (2, 1)
    assert resumed.model == ModelChoice(used="scripted-v1", recorded="gpt-9")
    assert resumed.model.fell_back and chat.model == "scripted-v1"
    assert (len(chat.messages), chat.cursor, chat.written_this_run) == (3, 3, 1)
    assert text_of(chat.messages[-1]) == INTERRUPTED
    assert Session.open(session.path).context.messages == chat.messages  # the repair is saved


# << prod


def test_tools_are_not_run_again_on_resume(saved: Saved) -> None:
    calls: list[dict] = []
    calc = default_tools()["calc"]

    def counting_calc(arguments: dict) -> str:
        calls.append(arguments)
        return calc.run(arguments)

    tools = {"calc": Tool(calc.name, calc.description, calc.parameters, counting_calc)}
    messages = Session.open(saved.path).context.messages
    run(messages, "what was the result", tools)
    assert calls == []  # the 96 came from the toolResult in the file, not from running calc
    assert text_of(messages[-1]) == "The last result was 96 (12*8)."
    run(messages, "what is 2+3", tools)  # the counter is live: a new question does run calc
    assert calls == [{"expression": "2+3"}]


def test_a_forgotten_cursor_doubles_the_history(saved: Saved) -> None:
    """The classic mistake, kept as a test so the right way cannot pass by accident."""
    resumed = Session.open(saved.path)
    messages = resumed.context.messages
    persist_new_messages(resumed.session, messages, 0)  # wrong: these 6 are already in the file
    assert len(Session.open(saved.path).context.messages) == 12


def test_resume_and_exit_leaves_the_file_byte_identical(saved: Saved, run_main: RunMain) -> None:
    path = saved.path
    before = path.read_bytes()
    for stdin in ["", "/exit\n", "\n\n/exit\n"]:
        done = run_main(stdin, "--continue")
        assert done.returncode == 0, done.stderr
        assert done.stdout.decode().splitlines()[-1] == (
            # >> 03 until 05
            # f"0 new messages saved to {Path('.sessions', 'first.jsonl')} (6 in all)"
            # << 03 until 05
            # >> 05 until prod
            # f"0 new messages saved to {Path('.sessions', 'first.jsonl')} (6 on the active path)"
            # << 05 until prod
            # >> prod
            f"0 new messages saved to {Path('.sessions', 'first.jsonl')} "
            "(the active path now holds 6 messages)"
            # << prod
        )
        assert path.read_bytes() == before
    assert list(path.parent.iterdir()) == [path]  # and no new session was started


def test_a_fresh_session_cannot_recall_what_a_resumed_one_can(
    saved: Saved, run_main: RunMain
) -> None:
    path = saved.path
    resumed = run_main("what was the result\n", "--continue")
    assert resumed.returncode == 0, resumed.stderr
    lines = resumed.stdout.decode().splitlines()
    shown = Path(".sessions", "first.jsonl")
    # >> 03 until 04
    # assert lines[0] == f"session file: {shown} (resumed: 6 messages restored)"
    # << 03 until 04
    # >> 04
    assert lines[0] == f"session file: {shown} (resumed: 6 messages restored, model scripted-v1)"
    # << 04
    assert "assistant> The last result was 96 (12*8)." in lines
    # >> 03 until 05
    # assert lines[-1] == f"2 new messages saved to {shown} (8 in all)"
    # << 03 until 05
    # >> 05 until prod
    # assert lines[-1] == f"2 new messages saved to {shown} (8 on the active path)"
    # << 05 until prod
    # >> prod
    assert lines[-1] == f"2 new messages saved to {shown} (the active path now holds 8 messages)"
    # << prod
    assert resumed.stderr == b""

    fresh = run_main("what was the result\n")
    assert "I have no earlier result in this conversation." in fresh.stdout.decode()
    assert len(list(path.parent.glob("*.jsonl"))) == 2


def test_resuming_twice_keeps_ids_unique_and_chained(saved: Saved, run_main: RunMain) -> None:
    path = saved.path
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
    older = save_conversation(tmp_path, "b-older", ["hello"]).path
    newer = save_conversation(tmp_path, "a-newer", ["what is 1+1"]).path
    age(older, 100)
    age(newer, 10)
    assert find_latest_session(tmp_path) == LatestSession(newer, [])
    age(older, 1)  # appending to a session makes it the latest again
    assert find_latest_session(tmp_path) == LatestSession(older, [])


def test_a_tie_goes_to_the_later_name(tmp_path: Path) -> None:
    first = save_conversation(tmp_path, "20260101T000000Z-aaaaaa", ["hello"]).path
    second = save_conversation(tmp_path, "20260101T000000Z-bbbbbb", ["hello"]).path
    age(first, 5)
    age(second, 5)
    assert find_latest_session(tmp_path) == LatestSession(second, [])


def test_unusable_files_are_passed_over_each_with_its_reason(tmp_path: Path) -> None:
    good = save_conversation(tmp_path, "good", ["hello"]).path
    future = tmp_path / "future.jsonl"
    future.write_bytes(b'{"type":"header","version":2,"id":"future"}\n')
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    header_only = tmp_path / "header-only.jsonl"  # an older version's run that said nothing
    header_only.write_bytes(good.read_bytes().split(b"\n")[0] + b"\n")
    notes = tmp_path / "notes.txt"  # not *.jsonl: not even a candidate
    notes.write_text("hello\n", encoding="utf-8")
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    # >> prod
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)  # opening it for reading would block forever
    # << prod
    dangling = tmp_path / "gone.jsonl"
    dangling.symlink_to(tmp_path / "nowhere.jsonl")
    ages = [(good, 60), (future, 50), (empty, 40), (header_only, 30), (folder, 20)]
    # >> prod
    ages.append((fifo, 10))
    # << prod
    for path, seconds_ago in [*ages, (notes, 1)]:
        age(path, seconds_ago)
    os.utime(dangling, (1_800_000_000 - 5,) * 2, follow_symlinks=False)
    latest = find_latest_session(tmp_path)
    # >> 03 until prod
    # assert latest.path == header_only  # a session, though nothing was said in it
    # assert [str(error) for error in latest.passed_over] == [
    #     f"{folder}: cannot read: Is a directory",
    # ]
    # assert find_latest_session(tmp_path).path == header_only
    # << 03 until prod
    # >> prod
    assert latest.path == good
    assert [str(error) for error in latest.passed_over] == [
        f"{dangling}: cannot read: No such file or directory",
        f"{fifo}: not a session (not a regular file)",
        f"{folder}: not a session (a folder)",
        f"{header_only}: holds no message",
        f"{empty}: not a session (empty file)",
        f"{future}: unsupported version 2 (this program reads version 1)",
    ]
    # << prod


def test_a_missing_folder_has_no_session_and_is_no_error(tmp_path: Path) -> None:
    assert find_latest_session(tmp_path / "nowhere") == LatestSession(None, [])


def test_a_folder_that_cannot_be_listed_is_an_error_not_an_empty_folder(tmp_path: Path) -> None:
    # >> 03 until prod
    # with pytest.raises(SessionError, match="Not a directory"):
    # << 03 until prod
    # >> prod
    with pytest.raises(SessionError, match="not a folder"):
        # << prod
        find_latest_session(save_conversation(tmp_path, "s", ["hello"]).path)
    with pytest.raises(SessionError, match="File name too long"):
        find_latest_session(tmp_path / ("x" * 300))


def test_a_folder_of_only_unusable_files_has_no_session(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_bytes(b"hello\n")
    latest = find_latest_session(tmp_path)
    [error] = latest.passed_over
    assert latest.path is None
    assert error.reason == "not a session (no header line)"


def test_main_warns_about_a_newer_unusable_file_and_resumes_the_good_one(
    saved: Saved, run_main: RunMain
) -> None:
    path = saved.path
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


# >> prod


def test_a_call_whose_id_repeats_is_repaired_as_often_as_it_lacks_a_result(
    tmp_path: Path,
) -> None:
    """Two calls with one id and one result: one is still unanswered. The repair counted
    results by id as a set, found 'call_1' answered, and the model refused the next turn."""
    call = {"type": "toolCall", "id": "call_1", "name": "calc", "arguments": {"expression": "1+1"}}
    session = new_session(tmp_path, "d")
    session.append_message(user_text("what is 1+1"))
    asked = {"role": "assistant", "stopReason": "toolUse",
             "content": [{"type": "text", "text": "calc"}, call, dict(call)]}  # fmt: skip
    session.append_message(asked)  # type: ignore[arg-type]
    session.append_message(tool_result(call, "2"))  # type: ignore[arg-type]
    resumed = Chat.resume(Session.open(session.path))
    assert resumed.repaired == 1
    assert history_problem(resumed.chat.messages) is None


# << prod
