# >>file 05
"""Leaf-based branching: /branch moves the leaf by appending an entry, the conversation and
the model are rebuilt from the new leaf, and the move survives a restart."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from conftest import ANSWER, RunMain, call_message, result
from harness import header_line, new_chat, new_session

from commands import Chat, run_command
from entries import build_context
from loop import run_turn
from messages import Message, text_of, unanswered_calls, user_text

# >> 05 until prod
# from model import MODELS
# << 05 until prod
# >> prod
from model_registry import MODELS

# << prod
from session import SessionError
from tools import default_tools


def say(chat: Chat, text: str) -> None:
    for _ in run_turn(MODELS[chat.model], default_tools(), chat.messages, user_text(text)):
        pass
    chat.save_new()


def last_line(path: Path) -> dict:
    return orjson.loads(path.read_bytes().splitlines()[-1])


def test_branch_appends_a_leaf_move_and_the_next_message_hangs_there(tmp_path: Path) -> None:
    chat = new_chat(tmp_path)
    say(chat, "hello")  # e1 e2
    say(chat, "what is 12*8")  # e3..e6
    before = chat.session.path.read_bytes()
    assert run_command(chat, "/branch e2").lines == [
        "moved to e2: 2 messages on the path, model scripted-v1"
    ]
    assert last_line(chat.session.path) == {
        "type": "branch",
        "id": "e7",
        "parentId": "e2",
        "fromId": "e6",
    }
    assert (chat.session.leaf_id, len(chat.messages), chat.cursor) == ("e7", 2, 2)
    say(chat, "what was the result")
    assert text_of(chat.messages[-1]) == "I have no earlier result in this conversation."
    after = chat.session.path.read_bytes()
    assert after.startswith(before)  # the abandoned branch is still there, byte for byte
    assert orjson.loads(after.splitlines()[-2])["parentId"] == "e7"


def test_the_model_follows_the_leaf(tmp_path: Path) -> None:
    chat = new_chat(tmp_path)
    say(chat, "hello")  # e1 e2
    run_command(chat, "/model scripted-v2")  # e3
    say(chat, "what is 2+3")  # e4..e7
    run_command(chat, "/branch e2")  # before the switch: back to scripted-v1
    assert chat.model == "scripted-v1"
    run_command(chat, "/branch e7")  # and forward again, onto the other branch
    assert (chat.model, len(chat.messages)) == ("scripted-v2", 6)


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        ("/branch", "usage: /branch ID (/tree shows the ids)"),
        ("/branch e99", "no entry e99 in this session (/tree shows the ids)"),
        ("/branch e6", "already at e6"),
        ("/branch e4", "e4 is a tool call; branch to the entry before it or to its result"),
        # >> prod
        ("/branch \x1b[2J", "no entry \\x1b[2J in this session (/tree shows the ids)"),
        # << prod
    ],
)
def test_a_branch_that_cannot_be_made_says_so_and_writes_nothing(
    tmp_path: Path, command: str, answer: str
) -> None:
    chat = new_chat(tmp_path)
    say(chat, "hello")
    say(chat, "what is 12*8")
    before = chat.session.path.read_bytes()
    assert run_command(chat, command).lines == [answer]
    assert chat.session.path.read_bytes() == before and chat.session.leaf_id == "e6"


def test_a_failed_write_does_not_move_the_leaf(tmp_path: Path) -> None:
    chat = new_chat(tmp_path)
    say(chat, "hello")
    chat.session.path.unlink()
    with pytest.raises(SessionError, match="is gone"):
        chat.session.append_branch("e1")
    assert chat.session.leaf_id == "e2"


def test_tree_shows_every_branch_and_marks_the_path_and_the_leaf(tmp_path: Path) -> None:
    chat = new_chat(tmp_path)
    say(chat, "hello")
    say(chat, "what is 12*8")
    run_command(chat, "/branch e2")
    say(chat, "hi")
    assert run_command(chat, "/tree").lines == [
        "● e1 user: hello",
        "● e2 assistant: Hello! I can do arithmetic with t…",
        "├── ○ e3 user: what is 12*8",  # only a fork indents
        "│   ○ e4 assistant: Let me calculate that. calc(12*8)",
        "│   ○ e5 toolResult: 96",
        "│   ○ e6 assistant: 12*8 = 96.",
        "└── ● e7 branch: back to e2 from e6",
        "    ● e8 user: hi",
        "    ● e9 assistant: Hello! I can do arithmetic with t… ← leaf",
    ]


def test_a_leaf_move_survives_a_restart_with_nothing_said_after_it(run_main: RunMain) -> None:
    first = run_main("what is 12*8\nhello\n/branch e2\n/branch e3\n")
    assert first.returncode == 0, first.stderr
    out = first.stdout.decode()
    assert "e2 is a tool call; branch to the entry before it or to its result" in out
    assert "moved to e3: 3 messages on the path" in out
    second = run_main("what was the result\n", "--continue")
    assert second.returncode == 0 and second.stderr == b""
    lines = second.stdout.decode().splitlines()
    assert lines[0].endswith("(resumed: 3 messages restored, model scripted-v1)")
    assert "assistant> The last result was 96 (12*8)." in lines


# Damaged trees: each is a file the program never writes, made by hand. The reader recovers
# the path from the leaf back to the damage, warns once, and never hangs or rewrites a byte.
HELLO = b'{"role":"user","content":[{"type":"text","text":"hello"}]}'
DAMAGED_TREES = {
    "a parent cycle": (
        b'{"type":"message","id":"e1","parentId":"e2","message":%s}\n'
        b'{"type":"message","id":"e2","parentId":"e1","message":%s}\n' % (HELLO, HELLO),
        0,
        "e1 hangs under e2, which is already on the path; the conversation starts at e1",
    ),
    "an entry that is its own parent": (
        b'{"type":"message","id":"e1","parentId":"e1","message":%s}\n' % HELLO,
        0,
        "e1 hangs under e1, which is already on the path; the conversation starts at e1",
    ),
    "a dangling parent": (
        b'{"type":"message","id":"e2","parentId":"gone","message":%s}\n' % HELLO,
        0,
        "e2 hangs under gone, which is not in the file; the conversation starts at e2",
    ),
    "a duplicate id": (
        b'{"type":"message","id":"e1","parentId":null,"message":%s}\n'
        b'{"type":"message","id":"e1","parentId":null,"message":%s}\n' % (HELLO, HELLO),
        1,
        None,
    ),
    "a branch whose target is missing": (
        b'{"type":"message","id":"e1","parentId":null,"message":%s}\n'
        b'{"type":"branch","id":"e2","parentId":"e9","fromId":"e1"}\n' % HELLO,
        0,
        "e2 hangs under e9, which is not in the file; the conversation starts at e2",
    ),
    "a branch without a target": (
        b'{"type":"message","id":"e1","parentId":null,"message":%s}\n'
        b'{"type":"branch","id":"e2","parentId":null,"fromId":"e1"}\n' % HELLO,
        1,
        None,
    ),
}


@pytest.mark.parametrize("name", DAMAGED_TREES)
def test_a_damaged_tree_resumes_with_one_warning(
    name: str, tmp_path: Path, run_main: RunMain
) -> None:
    entries, skipped, chain_break = DAMAGED_TREES[name]
    folder = tmp_path / ".sessions"
    folder.mkdir()
    path = folder / "damaged.jsonl"
    header = header_line("d")
    path.write_bytes(header + entries)
    done = run_main("hello\n/tree\n", "--continue")
    assert done.returncode == 0
    shown = Path(".sessions", "damaged.jsonl")
    expected = [f"warning: skipped 1 damaged line in {shown}"] if skipped else []
    expected += [f"warning: {shown}: {chain_break}"] if chain_break else []
    assert done.stderr.decode().splitlines() == expected
    assert path.read_bytes().startswith(header + entries)
    assert "Traceback" not in done.stdout.decode()


def test_a_branch_onto_a_model_this_program_lacks_says_so(tmp_path: Path) -> None:
    chat = new_chat(tmp_path)
    say(chat, "hello")  # e1 e2
    chat.session.append_model_change("gpt-9")  # e3: written by a program that has it
    say(chat, "hi")  # e4 e5
    result = run_command(chat, "/branch e4")
    assert result.lines == [
        "moved to e4: 3 messages on the path, model scripted-v1",
        "note: the session's model gpt-9 is not here; using scripted-v1",
    ]


def test_branch_to_where_the_leaf_already_is_writes_nothing(
    tmp_path: Path, run_main: RunMain
) -> None:
    """Typed twice, `/branch e2` moves once: after the first, the leaf is a branch entry under
    e2, which is where the conversation already goes on. (It used to append a second one.)"""
    done = run_main("hello\nwhat is 12*8\n/branch e2\n/branch e2\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "moved to e2: 2 messages on the path" in out and "already at e2" in out
    [path] = (tmp_path / ".sessions").glob("*.jsonl")
    assert path.read_bytes().count(b'"type":"branch"') == 1


def test_the_last_line_counts_leaf_moves_beside_the_messages(run_main: RunMain) -> None:
    """Three moves are three entries in the file; the last line says so beside the messages."""
    done = run_main("hello\n/branch e1\n/branch e2\n/branch e1\n")
    assert done.returncode == 0 and done.stderr == b""
    last = done.stdout.decode().splitlines()[-1]
    # >> 05 until prod
    # assert last.startswith("2 new messages saved to .sessions/")
    # assert last.endswith(" (1 on the active path), and 3 other entries")
    # << 05 until prod
    # >> prod
    assert last.startswith("2 new messages and 3 other entries saved to .sessions/")
    assert last.endswith(" (the active path now holds 1 message)")
    # << prod


@pytest.mark.parametrize(
    ("messages", "unanswered"),
    [
        ([], []),
        ([user_text("hi")], []),
        ([user_text("hi"), ANSWER], []),
        ([user_text("hi"), call_message("a")], ["a"]),
        ([user_text("hi"), call_message("a", "b"), result("a")], ["b"]),
        ([user_text("hi"), call_message("a", "b"), result("b"), result("a")], []),
        ([call_message("a"), result("a"), ANSWER], []),
        ([call_message("a"), ANSWER, call_message("c")], ["c"]),
    ],
)
def test_unanswered_calls_are_those_of_the_last_assistant_message(
    messages: list[Message], unanswered: list[str]
) -> None:
    assert [call["id"] for call in unanswered_calls(messages)] == unanswered


def test_branch_never_lands_where_the_next_message_follows_an_unanswered_call(
    tmp_path: Path,
) -> None:
    """/branch refuses a tool call, and now also any entry whose path ends in one (here a
    model switch recorded right after a call, as an older program could leave it). It does
    not answer the call as interrupted: that call was not interrupted, its result is on
    another branch."""
    session = new_session(tmp_path, "b")
    session.append_message(user_text("what is 1+1"))  # e1
    session.append_message(call_message("a"))  # e2
    session.append_model_change("scripted-v2")  # e3: under the call
    session.append_branch("e2")  # e4: hand-made, as if by an older program
    session.append_message(result("a"))  # e5
    chat = Chat(session, [], cursor=0)
    chat.follow(build_context(session.entries, session.leaf_id))
    before = session.path.read_bytes()
    assert run_command(chat, "/branch e2").lines == [
        "e2 is a tool call; branch to the entry before it or to its result"
    ]
    assert run_command(chat, "/branch e3").lines == [
        "e3 follows a tool call that has no result; branch before the call"
    ]
    assert session.path.read_bytes() == before and session.leaf_id == "e5"
    assert run_command(chat, "/branch e1").lines[0].startswith("moved to e1")


def test_a_tab_parts_branch_from_its_id(run_main: RunMain) -> None:
    done = run_main("hello\nwhat is 12*8\n/branch\te2\n")
    assert done.returncode == 0, done.stderr
    assert b"moved to e2: 2 messages on the path" in done.stdout, done.stdout
