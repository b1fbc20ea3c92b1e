"""Every damaged-file case the contract names: what is restored, what is skipped, and that
main.py --continue meets each one with at most a warning line, never a traceback, and never
rewrites a byte of the old file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest
from conftest import RunMain

from messages import Message, user_text
from session import Session, UnusableSessionFile, read_session

SIX_ROLES = ["user", "assistant", "user", "assistant", "toolResult", "assistant"]
TORN = b'{"type":"message","id":"e7","parentId":"e6","message":{"role":"us'
NOT_UTF8 = (
    b'{"type":"message","id":"e9","parentId":"e6","message":'
    b'{"role":"user","content":[{"type":"text","text":"caf\xe9"}]}}\n'
)
AWKWARD = "one\u2028two\u2029three\x85four\x1cfive\x1dsix\x1eseven\x0beight\x0cnine\rten"
HUGE = "x" * 5_000_000


def append_entry(message: Message) -> Callable[[Path], None]:
    """Damage that is not damage: a well-formed entry, written the normal way."""

    def write(path: Path) -> None:
        session, _, _ = Session.open(path)
        session.append(message)

    return write


def insert_after_line(number: int, *lines: bytes) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        old = path.read_bytes().split(b"\n")
        path.write_bytes(b"\n".join([*old[:number], *lines, *old[number:]]))

    return write


def add_at_end(data: bytes) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        path.write_bytes(path.read_bytes() + data)

    return write


def to_crlf(path: Path) -> None:
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))


@dataclass(frozen=True)
class Case:
    damage: Callable[[Path], None]
    roles: list[str]  # of the messages restored
    skipped: int
    last_text: str | None = None  # the last restored message's text, when it matters


CASES = {
    "torn last line": Case(add_at_end(TORN), SIX_ROLES, 1),
    "garbage line": Case(insert_after_line(3, b"this is not JSON"), SIX_ROLES, 1),
    "invalid UTF-8": Case(insert_after_line(5, NOT_UTF8.rstrip(b"\n")), SIX_ROLES, 1),
    "blank lines": Case(insert_after_line(2, b"", b"   ", b"\t\r"), SIX_ROLES, 3),
    "CRLF line ends": Case(to_crlf, SIX_ROLES, 0),
    "JSON that is not an entry": Case(
        insert_after_line(
            4,
            b"[1, 2, 3]",
            b'"just a string"',
            b'{"type":"message","id":"e20"}',  # a message entry without a message
            b'{"type":"message","id":"e21","parentId":7,"message":{}}',
            b'{"no":"type"}',
        ),
        SIX_ROLES,
        5,
    ),
    "unknown entry kind": Case(
        add_at_end(b'{"type":"modelChange","id":"e7","parentId":"e6","model":"x"}\n'),
        SIX_ROLES,
        0,
    ),
    "a huge line (5 MB)": Case(append_entry(user_text(HUGE)), [*SIX_ROLES, "user"], 0, HUGE),
    "U+2028 and friends in a message": Case(
        append_entry(user_text(AWKWARD)), [*SIX_ROLES, "user"], 0, AWKWARD
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_the_reader_restores_what_is_intact(name: str, saved: tuple[Path, list[Message]]) -> None:
    path, _ = saved
    case = CASES[name]
    case.damage(path)
    _, messages, skipped = Session.open(path)
    assert [m["role"] for m in messages] == case.roles
    assert skipped == case.skipped
    if case.last_text is not None:
        assert messages[-1]["content"][0]["text"] == case.last_text


@pytest.mark.parametrize("name", CASES)
def test_main_continues_with_at_most_one_warning(
    name: str, saved: tuple[Path, list[Message]], run_main: RunMain
) -> None:
    path, _ = saved
    case = CASES[name]
    case.damage(path)
    before = path.read_bytes()

    done = run_main("what was the result\n", "--continue")

    stderr = done.stderr.decode()
    assert done.returncode == 0, stderr
    assert "Traceback" not in stderr
    shown = Path(".sessions", "first.jsonl")
    if case.skipped:
        lines = "line" if case.skipped == 1 else "lines"
        assert stderr == f"warning: skipped {case.skipped} damaged {lines} in {shown}\n"
    else:
        assert stderr == ""
    out = done.stdout.decode()
    assert f"(resumed: {len(case.roles)} messages restored)" in out
    assert "assistant> The last result was 96 (12*8)." in out
    assert path.read_bytes().startswith(before)  # the old bytes are a prefix of the new

    reading = read_session(path)  # and reading again finds all of it, plus the new turn
    assert [m["role"] for m in reading.messages] == [*case.roles, "user", "assistant"]
    assert reading.skipped == case.skipped
    assert not reading.needs_newline
    ids = [entry["id"] for entry in reading.entries]
    assert len(ids) == len(set(ids))
    assert reading.entries[-2]["parentId"] == reading.entries[-3]["id"]


def test_a_torn_last_line_is_ended_never_glued_onto(saved: tuple[Path, list[Message]]) -> None:
    path, _ = saved
    add_at_end(TORN)(path)
    before = path.read_bytes()
    session, _, skipped = Session.open(path)
    assert skipped == 1 and session.needs_newline
    session.append(user_text("after the crash"))
    session.append(user_text("and once more"))
    after = path.read_bytes()
    assert after.startswith(before)
    new_lines = after[len(before) :].split(b"\n")
    assert new_lines[0] == b""  # the fragment got its \n first, and stays a line of its own
    assert [orjson.loads(line)["id"] for line in new_lines[1:-1]] == ["e7", "e8"]
    assert not session.needs_newline  # only one \n: the next line starts right after


def test_a_complete_last_line_without_its_newline_is_kept(
    saved: tuple[Path, list[Message]],
) -> None:
    path, _ = saved
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # as if the \n alone was lost
    session, messages, skipped = Session.open(path)
    assert (len(messages), skipped, session.needs_newline) == (6, 0, True)
    session.append(user_text("next"))
    assert len(read_session(path).messages) == 7


def test_an_unknown_kind_still_counts_for_ids_and_parents(
    saved: tuple[Path, list[Message]],
) -> None:
    path, _ = saved
    add_at_end(b'{"type":"modelChange","id":"e7","parentId":"e6","model":"x"}\n')(path)
    session, _, _ = Session.open(path)
    entry = session.append(user_text("hello again"))
    assert (entry["id"], entry["parentId"]) == ("e8", "e7")


def test_the_next_id_is_past_every_id_in_the_file(saved: tuple[Path, list[Message]]) -> None:
    path, _ = saved
    add_at_end(b"garbage\n\n")(path)  # 8 lines of entries... but ids, not lines, decide
    session, _, skipped = Session.open(path)
    assert skipped == 2
    assert session.append(user_text("x"))["id"] == "e7"


REFUSED = {
    "empty file": (b"", "not a session (empty file)"),
    "no header": (
        b'{"type":"message","id":"e1","parentId":null,"message":'
        b'{"role":"user","content":[{"type":"text","text":"hi"}]}}\n',
        "not a session (no header line)",
    ),
    "plain text": (b"hello, world\n", "not a session (no header line)"),
    "torn header": (b'{"type":"header","vers', "not a session (no header line)"),
    "header without a version": (
        b'{"type":"header","id":"x"}\n',
        "not a session (the header has no version)",
    ),
    "future version": (
        b'{"type":"header","version":2,"id":"x","createdAt":"","cwd":"/"}\n',
        "unsupported version 2 (this program reads version 1)",
    ),
}


@pytest.mark.parametrize("name", REFUSED)
def test_a_file_that_cannot_be_a_session_is_refused_by_name(name: str, tmp_path: Path) -> None:
    data, reason = REFUSED[name]
    path = tmp_path / "bad.jsonl"
    path.write_bytes(data)
    with pytest.raises(UnusableSessionFile) as refused:
        Session.open(path)
    assert str(refused.value) == f"{path}: {reason}"
    assert path.read_bytes() == data


@pytest.mark.parametrize("name", REFUSED)
def test_main_passes_over_it_with_a_warning_and_starts_new(
    name: str, tmp_path: Path, run_main: RunMain
) -> None:
    data, reason = REFUSED[name]
    folder = tmp_path / ".sessions"
    folder.mkdir()
    (folder / "bad.jsonl").write_bytes(data)
    done = run_main("hello\n", "--continue")
    assert done.returncode == 0
    assert done.stderr.decode() == (
        f"warning: {Path('.sessions', 'bad.jsonl')}: {reason}; passed over\n"
    )
    out = done.stdout.decode().splitlines()
    assert out[0] == "no session to continue in .sessions; starting a new one"
    assert (folder / "bad.jsonl").read_bytes() == data
    assert len(list(folder.glob("*.jsonl"))) == 2
