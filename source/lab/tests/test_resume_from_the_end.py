# >>file 06
"""A resume reads only as much of the file as the context needs: with a compaction on the
path, the lines before its first kept entry are never read. Whatever the file, what it
rebuilds is what a read of the whole file in order rebuilds."""

from __future__ import annotations

import tempfile
from pathlib import Path

import orjson
import pytest
from conftest import RunMain, save_conversation
from harness import write_session
from hypothesis import given, settings
from hypothesis import strategies as st

# >> 06 until prod
# import file_order
# import session_file
# << 06 until prod
# >> prod
import kept_part

# << prod
from commands import Chat, compact, run_command
from entries import build_context
from entry_index import EntryIndex
from loop import run_turn
from messages import user_text
from model import ScriptedModel
from session import Session, read_session

# >> prod
from session_file import SessionError

# << prod
from session_file import read_lines

# >> 06 until prod
# from session_file import read_lines_from_the_end
# << 06 until prod
from tools import default_tools

TURNS = ["hello", "what is 12*8", "what is 2+3", "what is 7*6"]


def say(chat: Chat, text: str) -> None:
    for _ in run_turn(ScriptedModel(), default_tools(), chat.messages, user_text(text)):
        pass
    chat.save_new()


def damage_line(path: Path, number: int) -> None:
    """Line `number` (the header is 0) made unreadable, its length kept."""
    lines = path.read_bytes().split(b"\n")
    lines[number] = b"\xff" * len(lines[number])
    path.write_bytes(b"\n".join(lines))


def whole_index(path: Path) -> EntryIndex:
    """Every line of the file indexed in order, as a resume without compactions does."""
    index = EntryIndex()
    # >> 06 until prod
    # for line in read_lines(path).lines:
    #     index.add_line(line)
    # << 06 until prod
    # >> prod
    with read_lines(path) as lines:
        for batch in lines.batches:
            index.add_lines(batch)
    # << prod
    return index


def compacted(tmp_path: Path, turns: list[str] = TURNS) -> Path:
    """The turns, a compaction that keeps the last, and one turn more."""
    saved = save_conversation(tmp_path / ".sessions", "long", turns)
    chat = Chat.resume(Session.open(saved.path)).chat
    assert compact(chat) is not None
    say(chat, "what was the result")
    return saved.path


def test_the_lines_before_what_a_compaction_keeps_are_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proof that they are not read: damage there goes unnoticed until /tree reads it.
    (Blocks of 256 bytes here: a first block of a megabyte holds all of so small a file.)"""
    # >> 06 until prod
    # monkeypatch.setattr(session_file, "FIRST_BLOCK", 256)
    # << 06 until prod
    # >> prod
    monkeypatch.setattr(kept_part, "FIRST_BLOCK", 256)
    # << prod
    path = compacted(tmp_path)
    damage_line(path, 2)  # e2, long summarised
    resumed = Session.open(path)
    assert resumed.skipped == 0  # never read
    assert [m["role"] for m in resumed.context.messages] == [
        *["user", "user", "assistant", "toolResult", "assistant"],  # the summary, the kept turn
        *["user", "assistant"],
    ]
    assert "e2" not in resumed.session.entries and resumed.session.entries.new_id() == "e18"
    resumed.session.read_all()  # as /tree and /branch do: the rest is read, and counted
    assert "e1" in resumed.session.entries and resumed.session.entries.damaged == 1


# >> 06 until prod
# def test_continue_reads_no_more_than_the_resume_needs(
#     tmp_path: Path, monkeypatch: pytest.MonkeyPatch
# ) -> None:
#     """--continue first asks which file is the latest usable session: its header tells, and
#     reading all of a compacted file's lines to learn it would undo the resume from the end."""
#     from session import find_latest_session
#
#     path = compacted(tmp_path)
#
#     def whole_read(path: Path) -> None:
#         raise AssertionError(f"{path} was read whole")
#
#     monkeypatch.setattr(session_file, "read_lines", whole_read)
#     latest = find_latest_session(path.parent)
#     assert latest.path == path and not latest.passed_over
#     assert Session.open(path).session.leaf_id == "e17"
#
#
# << 06 until prod
def test_main_names_the_damage_when_tree_reads_the_rest(tmp_path: Path, run_main: RunMain) -> None:
    """Two megabytes said after the damage put it beyond the first block main.py reads."""
    path = compacted(tmp_path, ["hello", "x" * 2_000_000, *TURNS[1:]])
    damage_line(path, 2)
    done = run_main("/tree\n", "--continue")
    assert done.returncode == 0
    assert done.stderr.decode().splitlines() == [
        f"warning: skipped 1 more damaged line in {path.relative_to(tmp_path)}"
    ]
    assert "○ e1 user: hello" in done.stdout.decode()  # faded: summarised


# >> prod
def test_a_file_cut_short_before_the_rest_is_read_is_refused(tmp_path: Path) -> None:
    """A resume that read only the kept part reads the file again for /tree and /branch: a
    file rewritten shorter in between (an editor saving in place, a `cp` over it) is refused
    then, as an append refuses it, never indexed and written under."""
    path = compacted(tmp_path)
    resumed = Session.open(path)
    assert not resumed.session.read_whole
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:3]))  # same inode
    with pytest.raises(SessionError, match="cut short during the run"):
        resumed.session.read_all()


def test_a_copy_of_an_unread_line_appended_later_is_not_taken_for_the_leaf(
    tmp_path: Path,
) -> None:
    """A copy of the first line appended at the end (an editor, a script) repeats an id the
    resume from the kept part never read: taken for the leaf, the conversation would be that
    one line. But the lab's ids grow along the file, and this one is smaller than the id
    before it: the whole file is read, and the copy is skipped as a repeat."""
    path = compacted(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines) + lines[1])  # e1 again: a first entry, at the end
    resumed, whole = Session.open(path), read_session(path)
    assert resumed.session.leaf_id == whole.leaf_id == "e17"
    assert resumed.context == build_context(whole.by_id, whole.leaf_id)
    assert resumed.skipped == whole.skipped == 1
    assert resumed.session.entries.new_id() == "e18"


def test_a_session_that_holds_only_a_summary_is_resumed(tmp_path: Path) -> None:
    """--continue passes over a session without a message, but a compaction's summary is one:
    the model is given it, as step 06 gives it, and can answer from it."""
    folder = tmp_path / ".sessions"
    write_session(
        folder,
        b'{"type":"compaction","id":"e1","parentId":null,"summary":"- calc(12*8) -> 96",'
        b'"firstKeptId":null}\n',
    )
    from session import find_latest_session

    assert find_latest_session(folder).path == folder / "s.jsonl"


# << prod
def test_a_backup_glued_on_the_end_is_not_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cat backup >> session: the file ends in a copy of its lines from the compaction's first
    kept entry through the compaction. The walk from the copy's leaf is whole in the copy, so
    a resume that trusted it would give the old conversation, then write ids the file holds.
    (Small blocks: a first block of a megabyte holds all of so small a file.)"""
    # >> 06 until prod
    # monkeypatch.setattr(session_file, "FIRST_BLOCK", 256)
    # << 06 until prod
    # >> prod
    monkeypatch.setattr(kept_part, "FIRST_BLOCK", 256)
    # << prod
    path = compacted(tmp_path)
    chat = Chat.resume(Session.open(path)).chat
    for number in range(20):  # turns enough that no block holding the copy reaches the original
        say(chat, f"what is {number}*3")
    lines = path.read_bytes().splitlines(keepends=True)
    compaction = next(n for n, line in enumerate(lines) if b'"type":"compaction"' in line)
    kept = orjson.loads(lines[compaction])["firstKeptId"].encode()
    first = next(
        n for n, line in enumerate(lines) if line.startswith(b'{"type":"message","id":"%b"' % kept)
    )
    with path.open("ab") as file:
        file.write(b"".join(lines[first : compaction + 1]))
    resumed, whole = Session.open(path), read_session(path)
    assert resumed.session.leaf_id == whole.leaf_id
    assert resumed.context == build_context(whole.by_id, whole.leaf_id)
    assert resumed.context.messages[-1]["content"][0]["text"] == "19*3 = 57."  # type: ignore[typeddict-item]
    assert resumed.session.entries.new_id() == whole_index(path).new_id()


def test_without_a_compaction_the_resume_reads_it_all(tmp_path: Path) -> None:
    saved = save_conversation(tmp_path / ".sessions", "long", TURNS)
    damage_line(saved.path, 2)
    resumed = Session.open(saved.path)
    assert resumed.skipped == 1  # the walk went back to the start, and met it
    assert resumed.context.chain_break is not None  # e3 hangs under the damaged e2


# >> 06 until prod
# @pytest.mark.parametrize("block", [1, 7, 64, 1 << 20])
# @pytest.mark.parametrize(
#     "data",
#     [b"", b"a\n", b"a", b"\n\n", b"one\ntwo\nthree\n", b"one\ntwo\nthree", b"x" * 300 + b"\ny\n"],
# )
# def test_blocks_from_the_end_hold_every_line_once_in_order(
#     tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int, data: bytes
# ) -> None:
#     path = write_session(tmp_path, data)
#     monkeypatch.setattr(session_file, "FIRST_BLOCK", block)
#     blocks = list(read_lines_from_the_end(path).blocks)
#     assert [line for b in reversed(blocks) for line in b] == read_lines(path).lines
#
#
# _M = b'{"type":"message","id":"e%d","parentId":null,"message":{}}\n'
#
#
# @pytest.mark.parametrize("block", [1, 7, 64, 1 << 20])
# @pytest.mark.parametrize(
#     ("data", "in_order"),
#     [
#         (_M % 1 + _M % 2 + _M % 10, True),
#         (_M % 1 + b"\xff\xfe garbage\n" + b"\n" + _M % 2, True),  # no entry can begin so
#         (_M % 1 + _M % 2 + _M % 3 + (_M % 4)[:20], True),  # a torn last line: read anyway
#         (_M % 1 + b'{"type":"message","id":"e2",' + b"x" * 300 + b"}\n" + _M % 3, True),
#         (_M % 1 + _M % 2 + _M % 1, False),  # a copy glued on
#         (_M % 2 + _M % 1, False),
#         (_M % 1 + b" " + _M % 2, False),  # JSON all the same: the resume cannot trust it
#         (_M % 1 + b'{"id":"e9","type":"message","parentId":null,"message":{}}\n', False),
#         (_M % 1 + (_M % 2).replace(b"e2", b"e02"), False),
#     ],
# )
# def test_ids_in_order_reads_only_the_first_bytes_of_each_line(
#     tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int, data: bytes, in_order: bool
# ) -> None:
#     path = write_session(tmp_path, data)
#     monkeypatch.setattr(file_order, "_BLOCK", block)
#     assert file_order.ids_in_order(path) is in_order
#
#
# << 06 until prod
OPERATIONS = st.lists(
    st.one_of(
        st.sampled_from(["hello", "what is 3*4", "what was the result", "/compact", "/reopen"]),
        st.sampled_from(["/model scripted-v2", "/model scripted-v1"]),
        st.integers(min_value=1, max_value=60).map(lambda n: f"/branch e{n}"),
        st.tuples(st.integers(0, 60), st.integers(1, 8)).map(lambda t: f"/glue {t[0]} {t[1]}"),
    ),
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(operations=OPERATIONS, block=st.sampled_from([16, 100, 1000]))
def test_a_resume_from_the_end_rebuilds_what_a_whole_read_rebuilds(
    operations: list[str], block: int
) -> None:
    """Any session the program writes: turns, model switches, branches, compactions, restarts.
    Tiny blocks, so that every resume reads the file in many pieces."""
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        # >> 06 until prod
        # patch.setattr(session_file, "FIRST_BLOCK", block)
        # << 06 until prod
        # >> prod
        patch.setattr(kept_part, "FIRST_BLOCK", block)
        # << prod
        path = save_conversation(Path(folder), "s", ["hello"]).path
        chat = Chat.resume(Session.open(path)).chat
        for operation in operations:
            if operation == "/reopen":
                chat = Chat.resume(Session.open(path)).chat
            elif operation.startswith("/glue"):  # a copy of some of its lines appended to it
                start, count = map(int, operation.split()[1:])
                lines = path.read_bytes().splitlines(keepends=True)[1:]
                with path.open("ab") as file:
                    file.write(b"".join(lines[start : start + count]))
            elif operation.startswith("/"):
                run_command(chat, operation)
            else:
                say(chat, operation)
        resumed = Session.open(path)
        whole = read_session(path)
        assert resumed.session.leaf_id == whole.leaf_id
        assert resumed.context == build_context(whole.by_id, whole.leaf_id)
        assert resumed.session.entries.new_id() == whole_index(path).new_id()  # ids unique
