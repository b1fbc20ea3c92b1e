# >>file 03
"""Every damaged-file case the contract names: what is restored, what is skipped, and that
main.py --continue meets each one with at most a warning line, never a traceback, and never
rewrites a byte of the old file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest
from conftest import RunMain, Saved

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
        Session.open(path).session.append_message(message)

    return write


def insert_after_line(number: int, *lines: bytes) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        old = path.read_bytes().split(b"\n")
        path.write_bytes(b"\n".join([*old[:number], *lines, *old[number:]]))

    return write


def replace_line(number: int, line: bytes) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        old = path.read_bytes().split(b"\n")
        path.write_bytes(b"\n".join([*old[:number], line, *old[number + 1 :]]))

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
    chain_break: str | None = None  # where the walk from the leaf stops, when it does
    # >> prod
    # Resuming checks the lines it uses (the path, the leaf) and indexes the rest by id, to be
    # checked when first used: damage off the path that still starts like an entry is found
    # later (by /tree, /branch or read_session). None: found at resume, as `skipped`.
    # << prod
    found_at_resume: int | None = None
    # >> prod
    # The same, once a new turn is appended: damage that was the last line is then off the
    # path. None: as at resume.
    # << prod
    found_after_a_turn: int | None = None

    @property
    def at_resume(self) -> int:
        # >> 03 until prod
        # return self.skipped  # every line is checked as it is read
        # << 03 until prod
        # >> prod
        return self.skipped if self.found_at_resume is None else self.found_at_resume
        # << prod

    @property
    def after_a_turn(self) -> int:
        # >> 03 until prod
        # return self.skipped
        # << 03 until prod
        # >> prod
        return self.at_resume if self.found_after_a_turn is None else self.found_after_a_turn
        # << prod


CASES = {
    "torn last line": Case(add_at_end(TORN), SIX_ROLES, 1, found_after_a_turn=0),
    "garbage line": Case(insert_after_line(3, b"this is not JSON"), SIX_ROLES, 1),
    "invalid UTF-8": Case(
        insert_after_line(5, NOT_UTF8.rstrip(b"\n")), SIX_ROLES, 1, found_at_resume=0
    ),
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
        found_at_resume=3,  # e20 and e21 start like entries: checked when first used
    ),
    "unknown entry kind": Case(
        add_at_end(b'{"type":"modelChange","id":"e7","parentId":"e6","model":"x"}\n'),
        SIX_ROLES,
        0,
    ),
    "a repeated id": Case(
        insert_after_line(
            4,
            b'{"type":"message","id":"e2","parentId":"e1","message":{"role":"user","content":[]}}',
        ),
        SIX_ROLES,
        1,
    ),
    "a line over the 32 MiB limit": Case(
        insert_after_line(3, b'{"type":"message","id":"e30","note":"' + b"x" * 33_554_432 + b'"}'),
        SIX_ROLES,
        1,
    ),
    # >> 03 until prod
    # "a middle line damaged, its id and parent intact (the chain breaks there)": Case(
    #     replace_line(3, b'{"type":"message","id":"e3","parentId":"e2","mess'),
    #     ["assistant", "toolResult", "assistant"],  # the production step walks through it
    #     1,
    #     chain_break="e4 hangs under e3, which is not in the file; the conversation starts at e4",
    # ),
    # << 03 until prod
    # >> prod
    "a middle line damaged, its id and parent intact (the walk goes through)": Case(
        replace_line(3, b'{"type":"message","id":"e3","parentId":"e2","mess'),
        ["user", "assistant", "assistant", "toolResult", "assistant"],  # only e3's question lost
        1,
    ),
    # << prod
    "a middle line damaged before its parent (the chain breaks)": Case(
        replace_line(3, b'{"type":"message","id":"e3","pare'),
        ["assistant", "toolResult", "assistant"],
        1,
        chain_break="e4 hangs under e3, which is not in the file; the conversation starts at e4",
    ),
    "a parent cycle": Case(
        replace_line(
            1,
            b'{"type":"message","id":"e1","parentId":"e6","message":'
            b'{"role":"user","content":[{"type":"text","text":"hello"}]}}',
        ),
        SIX_ROLES,
        0,
        chain_break=(
            "e1 hangs under e6, which is already on the path; the conversation starts at e1"
        ),
    ),
    "a huge line (5 MB)": Case(append_entry(user_text(HUGE)), [*SIX_ROLES, "user"], 0, HUGE),
    "U+2028 and friends in a message": Case(
        append_entry(user_text(AWKWARD)), [*SIX_ROLES, "user"], 0, AWKWARD
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_the_reader_restores_what_is_intact(name: str, saved: Saved) -> None:
    path = saved.path
    case = CASES[name]
    case.damage(path)
    resumed = Session.open(path)
    messages = resumed.context.messages
    assert [m["role"] for m in messages] == case.roles
    assert resumed.skipped == case.at_resume
    assert read_session(path).skipped == case.skipped  # every line checked
    assert len(resumed.session.entries) == len(read_session(path).entries)  # and the same ones
    chain_break = resumed.context.chain_break
    if case.chain_break is None:
        assert chain_break is None
    else:
        assert chain_break is not None and case.chain_break.startswith(str(chain_break))
    if case.last_text is not None:
        assert messages[-1]["content"][0]["text"] == case.last_text


@pytest.mark.parametrize("name", CASES)
def test_main_continues_with_at_most_one_warning(
    name: str, saved: Saved, run_main: RunMain
) -> None:
    path = saved.path
    case = CASES[name]
    case.damage(path)
    before = path.read_bytes()

    done = run_main("what was the result\n", "--continue")

    stderr = done.stderr.decode()
    assert done.returncode == 0, stderr
    assert "Traceback" not in stderr
    shown = Path(".sessions", "first.jsonl")
    expected = []
    if case.at_resume:
        lines = "line" if case.at_resume == 1 else "lines"
        expected.append(f"warning: skipped {case.at_resume} damaged {lines} in {shown}")
    if case.chain_break:
        expected.append(f"warning: {shown}: {case.chain_break}")
    assert stderr.splitlines() == expected
    out = done.stdout.decode()
    # >> 03 until 04
    # assert f"(resumed: {len(case.roles)} messages restored)" in out
    # << 03 until 04
    # >> 04
    assert f"(resumed: {len(case.roles)} messages restored, model scripted-v1)" in out
    # << 04
    assert "assistant> The last result was 96 (12*8)." in out
    assert path.read_bytes().startswith(before)  # the old bytes are a prefix of the new

    resumed = Session.open(path)  # and reading again finds all of it, plus the new turn
    roles = [m["role"] for m in resumed.context.messages]
    assert roles == [*case.roles, "user", "assistant"]
    assert resumed.skipped == case.after_a_turn
    assert read_session(path).skipped == case.skipped
    assert path.read_bytes().endswith(b"\n")  # every line the new turn wrote is whole
    entries = [entry for entry in read_session(path).entries if entry["type"] != "damaged"]
    ids = [entry["id"] for entry in entries]
    assert len(ids) == len(set(ids))
    assert entries[-2]["parentId"] == entries[-3]["id"]


def test_a_torn_last_line_is_ended_never_glued_onto(saved: Saved) -> None:
    path = saved.path
    add_at_end(TORN)(path)
    before = path.read_bytes()
    resumed = Session.open(path)
    session = resumed.session
    assert resumed.skipped == 1
    session.append_message(user_text("after the crash"))
    session.append_message(user_text("and once more"))
    after = path.read_bytes()
    assert after.startswith(before)
    new_lines = after[len(before) :].split(b"\n")
    assert new_lines[0] == b""  # the fragment got its \n first, and stays a line of its own
    # Only one \n: the second line starts right after the first, with no blank line. The
    # fragment's id, e7, is not used again: a torn line may be one another program is still
    # writing, and its finished line would shadow an e7 of this run's.
    assert [orjson.loads(line)["id"] for line in new_lines[1:-1]] == ["e8", "e9"]


def test_a_complete_last_line_without_its_newline_is_kept(
    saved: Saved,
) -> None:
    path = saved.path
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # as if the \n alone was lost
    resumed = Session.open(path)
    assert (len(resumed.context.messages), resumed.skipped) == (6, 0)
    resumed.session.append_message(user_text("next"))
    assert len(Session.open(path).context.messages) == 7


def test_an_unknown_kind_still_counts_for_ids_and_parents(
    saved: Saved,
) -> None:
    path = saved.path
    add_at_end(b'{"type":"x_lab_test_kind","id":"e7","parentId":"e6","model":"x"}\n')(path)
    resumed = Session.open(path)
    assert resumed.session.leaf_id == "e7"  # the leaf is the last usable entry, of any kind
    entry = resumed.session.append_message(user_text("hello again"))
    assert (entry["id"], entry["parentId"]) == ("e8", "e7")
    assert len(Session.open(path).context.messages) == 7  # e8 -> e7 -> e6 ...: one path


def test_the_next_id_is_past_every_id_in_the_file(saved: Saved) -> None:
    path = saved.path
    add_at_end(b"garbage\n\n")(path)  # 8 lines of entries... but ids, not lines, decide
    resumed = Session.open(path)
    assert resumed.skipped == 2
    assert resumed.session.append_message(user_text("x"))["id"] == "e7"


def test_ids_of_any_shape_are_data_not_numbers(saved: Saved) -> None:
    """An id with thousands of digits is never handed to int(); ids stay unique anyway."""
    path = saved.path
    giant = "e" + "9" * 5000
    add_at_end(
        b'{"type":"x_lab_test_kind","id":"%s","parentId":"e6"}\n' % giant.encode()
        + b'{"type":"x_lab_test_kind","id":"e7","parentId":"%s"}\n' % giant.encode()
        + b'{"type":"x_lab_test_kind","id":"e08","parentId":"e7"}\n'
    )(path)
    resumed = Session.open(path)
    assert len(resumed.context.messages) == 6
    ids = [resumed.session.append_message(user_text(t))["id"] for t in "ab"]
    assert ids == ["e8", "e9"]  # e08 is another id than e8: it is data, compared as text


def test_the_conversation_is_the_path_from_the_leaf_not_the_file_order(saved: Saved) -> None:
    """e7 hangs under e2: the question about 12*8 (e3..e6) is a branch the leaf is not on."""
    path = saved.path
    add_at_end(
        b'{"type":"message","id":"e7","parentId":"e2","message":'
        b'{"role":"user","content":[{"type":"text","text":"what was the result"}]}}\n'
    )(path)
    resumed = Session.open(path)
    texts = [m["content"][0]["text"] for m in resumed.context.messages]
    assert texts[0] == "hello" and texts[-1] == "what was the result"
    assert len(texts) == 3 and not any("96" in text for text in texts)


REFUSED = {
    "empty file": (b"", "not a session (empty file)"),
    "no header": (
        b'{"type":"message","id":"e1","parentId":null,"message":'
        b'{"role":"user","content":[{"type":"text","text":"hi"}]}}\n',
        "not a session (no header line)",
    ),
    "plain text": (b"hello, world\n", "not a session (no header line)"),
    # >> prod
    "torn header": (b'{"type":"header","vers', "not a session (the header line is cut short)"),
    "a header that lost its brace": (
        b'"type":"header","version":1,"id":"x","createdAt":"","cwd":"/"}\n',
        "not a session (the header is not valid JSON)",
    ),
    "a bad byte inside createdAt": (
        b'{"type":"header","version":1,"id":"x","createdAt":"2026\xff","cwd":"/"}\n',
        "not a session (the header is not UTF-8 text)",
    ),
    "a first line over 64 KiB": (
        b"x" * 70_000 + b"\n",
        "not a session (its first line is over 64 KiB, longer than a header)",
    ),
    # << prod
    "header without a version": (
        b'{"type":"header","id":"x"}\n',
        "not a session (the header has no version)",
    ),
    "version 1.0": (
        b'{"type":"header","version":1.0,"id":"x","createdAt":"","cwd":"/"}\n',
        "not a session (the header's version 1.0 is not an integer)",
    ),
    "version true": (
        b'{"type":"header","version":true,"id":"x","createdAt":"","cwd":"/"}\n',
        "not a session (the header's version true is not an integer)",
    ),
    'version "1"': (
        b'{"type":"header","version":"1","id":"x","createdAt":"","cwd":"/"}\n',
        'not a session (the header\'s version "1" is not an integer)',
    ),
    # >> prod
    "a huge version is an integer": (
        b'{"type":"header","version":123456789012345678901234567890,"id":"x"}\n',
        "unsupported version 123456789012345678901234567890 (this program reads version 1)",
    ),
    "a version of 5,000 digits, cut when shown": (
        b'{"type":"header","version":' + b"9" * 5000 + b',"id":"x"}\n',
        f"unsupported version {'9' * 39}… (this program reads version 1)",
    ),
    "version 1e400, as written": (
        b'{"type":"header","version":1e400,"id":"x","createdAt":"","cwd":"/"}\n',
        "not a session (the header's version 1e400 is not an integer)",
    ),
    "a header naming its version twice": (
        b'{"type":"header","version":1,"version":2,"id":"x","createdAt":"","cwd":"/"}\n',
        'not a session (the header names "version" twice)',
    ),
    "version NaN": (
        b'{"type":"header","version":NaN,"id":"x","createdAt":"","cwd":"/"}\n',
        "not a session (the header is not valid JSON)",
    ),
    # << prod
    "header without an id": (
        b'{"type":"header","version":1,"createdAt":"","cwd":"/"}\n',
        "not a session (the header's id is not a string)",
    ),
    "header whose cwd is not a string": (
        b'{"type":"header","version":1,"id":"x","createdAt":"","cwd":7}\n',
        "not a session (the header's cwd is not a string)",
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
