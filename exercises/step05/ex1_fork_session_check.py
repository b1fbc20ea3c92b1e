"""Check 05.1: a fork is a new session file holding the parent's active path and nothing else,
whose header names its parent by absolute path; reopened with Session.open (the file read back
from disk, nothing of the fork_session call kept), it resumes the parent's conversation and
model; the parent's bytes never change; bad input writes nothing.

- The parent is built so that file order and the path disagree: two abandoned branches, one
  in the middle of the file and one near its end, the active path running before, between
  and after them; the model in force at the leaf (scripted-v2) differs from the last
  `model_change` in the file (scripted-v1, on an abandoned branch) and from the default
  (None). A fork that copies the lines in file order resumes the wrong conversation; one that
  copies the whole file resumes the right one but keeps the dead ends, so the check also
  compares the fork's entries, one by one, with the path's.
- A second parent's leaf is a `branch` entry (moved back, nothing said since), and is forked
  by relative paths from another working directory: the header must still name the parent
  by an absolute path that is the parent file.
- A third parent holds labels (exercise 05.2) and a branch summary (05.3), which name entries
  by id: the fork renumbers, so each must name the copy of what it named (a label of a branch
  entry: the copy before it; of an entry on an abandoned branch: None), and a targetId that
  is a list is kept. Ids are compared by what they name, so a fork that keeps the parent's ids
  and names the same entries passes too.
- A fork of the fork names the fork. The parent's bytes are compared after every call.
- Every parent is read-only while it is forked (mode 444), and every open of it for writing
  is refused as the kernel refuses it: os.open and open are audited in this process
  (`before_load`), because the checks may run as root, whom permission bits do not stop. A
  fork that opens its parent to append (`Session.open` checks that it can) fails.
- Refusals: forking into a session id whose file exists (the parent's own), and forking three
  files that are no session, must raise, change no byte and create no file.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from entries import Entry, path_to_leaf, summarize
from messages import (
    Message,
    ToolCallBlock,
    assistant_message,
    preview,
    text_of,
    tool_result,
    user_text,
)
from session import Session, SessionError, UnusableSessionFile, read_session

CWD = "/home/ada/project"  # the parents' working directory; a fork continues the same work
SKIPPED_KEYS = ("type", "id", "parentId")
LEFT_OUT = ("branch",)  # a move inside the parent's tree
NAMES_AN_ENTRY = {"label": "targetId", "branch_summary": "fromId"}  # 05.2's and 05.3's kinds

# The files a fork may only read, by (device, inode), while the student's function runs, and
# each open of one for writing: (the file's name, how it was opened).
PROTECTED: dict[tuple[int, int], str] = {}
WRITE_OPENS: list[tuple[str, str]] = []
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_TRUNC


@dataclass(frozen=True)
class Parent:
    """A session file the check wrote itself, and what a fork of it must hold."""

    path: Path
    path_entries: list[Entry]  # the active path, in order, branch entries included
    messages: list[Message]  # the conversation at the leaf
    model: str | None  # the model in force at the leaf
    abandoned: list[Entry]  # entries in the file that are not on the path

    @property
    def copied(self) -> list[Entry]:
        """The path's entries a fork copies, in order."""
        return [e for e in self.path_entries if e["type"] not in LEFT_OUT]

    @property
    def expected(self) -> list[tuple[str, dict[str, Any]]]:
        return expected_payloads(self.path_entries)

    def entry(self, entry_id: str) -> Entry | None:
        return next((e for e in [*self.path_entries, *self.abandoned] if e["id"] == entry_id), None)


@dataclass(frozen=True)
class Copy:
    """A field that names an entry, as what it names: the position of that entry's copy among
    the fork's entries (None: the fork has no copy of it). Ids differ; what they name must not."""

    at: int | None


@dataclass(frozen=True)
class Kept:
    """A field that would name an entry but holds no id (a file is data): kept, or None."""

    value: Any


@dataclass(frozen=True)
class Dangling:
    """An id in the fork that names no entry of the fork."""

    value: str


# --- Read-only parents, real under root too -------------------------------------------------


def before_load() -> None:
    """Audit every open in this process: one that would write a protected file is refused as
    the kernel refuses it for a read-only file (EACCES), and recorded. Chmod alone proves
    nothing when the checks run as root; a wrapper sees every os.open (session_file.py's
    included) and every open() and Path.open(), however the student's module reached them."""
    real_os_open, real_open = os.open, builtins.open

    def audited_os_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: Any = None) -> int:
        creating_only = flags & os.O_CREAT and flags & os.O_EXCL  # refused for existing files
        if flags & _WRITE_FLAGS and not creating_only:
            refuse_write(path, dir_fd, f"os.open with {flag_names(flags)}")
        return real_os_open(path, flags, mode, dir_fd=dir_fd)

    def audited_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if isinstance(mode, str) and set(mode) & set("wa+"):
            refuse_write(file, None, f"open(..., {mode!r})")
        return real_open(file, mode, *args, **kwargs)

    os.open = audited_os_open  # type: ignore[assignment]
    builtins.open = io.open = audited_open  # type: ignore[assignment]


def refuse_write(file: Any, dir_fd: Any, how: str) -> None:
    if not PROTECTED or isinstance(file, int):
        return
    try:
        found = os.stat(file, dir_fd=dir_fd)
    except (OSError, TypeError, ValueError):
        return  # no such file: nothing to protect
    name = PROTECTED.get((found.st_dev, found.st_ino))
    if name is not None:
        WRITE_OPENS.append((name, how))
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(file))


def flag_names(flags: int) -> str:
    names = ["O_WRONLY", "O_RDWR", "O_APPEND", "O_TRUNC", "O_CREAT"]
    return "|".join(n for n in names if flags & getattr(os, n)) or "O_RDONLY"


@contextmanager
def read_only(paths: list[Path]) -> Iterator[None]:
    """Make `paths` read-only (mode 444) and protected by the audit, then as they were."""
    modes = {}
    for path in paths:
        found = path.stat()
        modes[path] = stat.S_IMODE(found.st_mode)
        path.chmod(0o444)
        PROTECTED[(found.st_dev, found.st_ino)] = path.name
    try:
        yield
    finally:
        PROTECTED.clear()
        for path, mode in modes.items():
            if path.exists():
                path.chmod(mode)


def opened_to_write(
    fork: Callable[..., Any], mark: int, doing: str, error: Exception | None
) -> None:
    """A FAIL if the call tried to open a read-only parent for writing."""
    if len(WRITE_OPENS) == mark:
        return
    name, how = WRITE_OPENS[mark]
    if "O_TRUNC" in how or "'w" in how:  # it would have emptied the file
        what = (
            "Opened so, it is emptied, its bytes lost. A fork is a NEW file: create it "
            "with Session.create and write it with fork.append_entry, whose first write "
            "creates a file only if none has that name (O_EXCL)"
        )
    else:
        what = (
            "A fork only READS its parent: read it with read_session(path), which never opens "
            "it for writing"
        )
    raise AssertionError(
        f"{doing}, fork_session opened {name} for writing ({how}), and {name} is read-only "
        f"(mode 444: a colleague's session, a read-only disk), so that is refused. {what}",
        fork,
    ) from error


def check(module: ModuleType) -> str:
    fork = module.fork_session
    home = os.getcwd()
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        try:
            return run(fork, root)
        finally:
            os.chdir(home)  # before the folder goes away


def run(fork: Callable[..., Any], root: Path) -> str:
    sessions = root / "sessions"
    parent = branched_parent(sessions)
    moved = moved_parent(sessions)
    watched = [parent.path, moved.path]

    # --- A branched parent, forked into its own folder ----------------------------------------
    fork_1 = sessions / "fork-1.jsonl"
    got = call(fork, parent.path, sessions, "fork-1", "a branched session", watched)
    verify(fork, got, fork_1, parent, "a branched session", parent.path)

    # --- A parent whose leaf is a branch entry, forked by relative paths from elsewhere -------
    os.chdir(root)
    relative = Path("sessions") / moved.path.name
    got = call(fork, relative, Path("forks"), "fork-2", "sessions/moved.jsonl (relative)", watched)
    verify(fork, got, root / "forks" / "fork-2.jsonl", moved, "a session whose leaf is a move")

    # --- A parent with a damaged line and a kind this step does not know on its path --------
    damaged = damaged_parent(sessions)
    watched.append(damaged.path)
    got = call(fork, damaged.path, sessions, "fork-4", "a session with a damaged line", watched)
    verify(fork, got, sessions / "fork-4.jsonl", damaged, "a session with a damaged line")

    # --- A parent whose labels and summary name entries by id: they name the copies --------
    labelled = labelled_parent(sessions)
    watched.append(labelled.path)
    got = call(fork, labelled.path, sessions, "fork-5", "a session with labels", watched)
    verify(fork, got, sessions / "fork-5.jsonl", labelled, "a session with labels")

    # --- A fork of the fork: it names the fork, and the fork is not touched -------------------
    as_parent = Parent(fork_1, read_path(fork_1), parent.messages, parent.model, [])
    watched.append(fork_1)
    got = call(fork, fork_1, sessions, "fork-3", "the fork fork-1.jsonl", watched)
    verify(fork, got, sessions / "fork-3.jsonl", as_parent, "a fork", fork_1)

    # --- Bad input: raise, change no byte, create no file ------------------------------------
    refuse(fork, parent.path, sessions, "parent", "the id of an existing session", watched)
    not_sessions = {
        "empty.jsonl": b"",
        "notes.jsonl": b"my notes, not a session\n",
        "future.jsonl": b'{"type":"header","version":2,"id":"future","createdAt":"x","cwd":"/"}\n',
    }
    for name, data in not_sessions.items():
        (root / name).write_bytes(data)
        refuse(fork, root / name, root / "bad", "bad-fork", f"{name}, which is no session", [])
    labels = sum(1 for e in labelled.path_entries if e["type"] == "label")
    return (
        f"a fork of a branched session ({len(parent.path_entries)} of its "
        f"{len(parent.path_entries) + len(parent.abandoned)} entries on the path, 2 abandoned "
        f"branches) reopened with Session.open held the path's {len(parent.expected)} entries "
        f"in order as a straight line, no more, resuming its {len(parent.messages)} messages "
        f"and model {parent.model}; so did a fork of a session whose leaf is a move "
        f"({len(moved.messages)} messages, no model change, made by relative paths from "
        "another folder), a fork of a session with a damaged line and an entry of a kind this "
        "step does not know on its path (the path from the leaf starts below the damaged line; "
        "the other entry was kept whole), "
        f"a fork of a session whose {labels} labels and branch summary name entries by id "
        "(each named the copy of what it named: of a branch entry, the copy before it; of an "
        "entry left behind, None; a list kept), and a fork of the fork; each header named its "
        "parent by absolute path, with the parent's cwd; every parent was read-only (mode 444, "
        "no open of it for writing, audited), and no parent's bytes changed; an existing session "
        "id and 3 files that are no session raised, changing and creating nothing"
    )


# --- The parents -----------------------------------------------------------------------------


def branched_parent(folder: Path) -> Parent:
    """e1..e20: the active path runs e1 e2 e3 | e8 e9..e12 | e16 e17..e20; e4..e7 and
    e13..e15 are abandoned branches. scripted-v2 is in force at the leaf (e3); the file's last
    model_change is scripted-v1 (e13, abandoned)."""
    session = Session.create(folder, session_id="parent", created_at="2026-01-01", cwd=CWD)
    session.append_message(user_text("hello"))  # e1
    session.append_message(assistant_message("Hello! I can do arithmetic."))  # e2
    session.append_model_change("scripted-v2")  # e3
    ask(session, "what is 2**10000", "call_1", "2**10000", "result too large", error=True)
    session.append_message(assistant_message("I could not calculate 2**10000."))  # e7
    session.append_branch("e3")  # e8: back to e3, from e7
    big = "1267650600228229401496703205376"
    ask(session, "what is 2**100", "call_2", "2**100", big)  # e9 e10 e11
    session.append_message(assistant_message(f"2**100 = {big}."))  # e12
    session.append_model_change("scripted-v1")  # e13
    session.append_message(user_text("what was the result"))  # e14
    session.append_message(assistant_message(f"The last result was {big}."))  # e15
    session.append_branch("e12")  # e16: back to e12, from e15
    ask(session, "what is 12*8", "call_3", "12*8", "96")  # e17 e18 e19
    session.append_message(assistant_message("12*8 = 96."))  # e20
    return described(session)


def damaged_parent(folder: Path) -> Parent:
    """e1 e2, e3 a question whose line is damaged (the reader skips it, so the path from the
    leaf starts below it), e4 of a kind this step does not know (holding an object, a list, a
    number, null), then e5 e6."""
    session = Session.create(folder, session_id="damaged", created_at="2026-01-01", cwd=CWD)
    session.append_message(user_text("hello"))  # e1
    session.append_message(assistant_message("Hello! I can do arithmetic."))  # e2
    session.append_message(user_text("a question this line will lose"))  # e3
    note = {"note": {"by": "a newer program", "tags": ["a", "b"], "weight": 0.5, "gone": None}}
    session.append_entry("x_later_kind", note)  # e4
    session.append_message(user_text("what is 7*6"))  # e5
    session.append_message(assistant_message("I would calculate 7*6 for you."))  # e6
    lines = session.path.read_bytes().split(b"\n")
    at = lines[3].index(b"this line")  # inside e3's message: a byte no UTF-8 reader accepts
    lines[3] = lines[3][:at] + b"\xff" + lines[3][at + 1 :]
    session.path.write_bytes(b"\n".join(lines))
    return described(session)


def labelled_parent(folder: Path) -> Parent:
    """Entries that name entries by id, on the path: labels (05.2) of a message, of an entry
    on a branch left behind (e4), of a branch entry (e14, the leaf right after a move) and of
    no id at all (a list), a name labelled twice (the latest wins), and a branch summary
    (05.3) whose fromId is the leaf it left (e13). A branch entry early on the path (e5) makes
    every later copy's id differ from its original's."""
    session = Session.create(folder, session_id="labelled", created_at="2026-01-01", cwd=CWD)
    session.append_message(user_text("hello"))  # e1
    session.append_message(assistant_message("Hello! I can do arithmetic."))  # e2
    session.append_message(user_text("what is 9**9**9"))  # e3
    session.append_message(assistant_message("That is too large for me."))  # e4
    session.append_branch("e2")  # e5
    ask(session, "what is 7*6", "call_1", "7*6", "42")  # e6 e7 e8
    session.append_message(assistant_message("7*6 = 42."))  # e9
    session.append_entry("label", {"name": "good", "targetId": "e9"})  # e10
    session.append_entry("label", {"name": "bad", "targetId": "e4"})  # e11: left behind
    session.append_message(user_text("and 6*7?"))  # e12
    session.append_message(assistant_message("Also 42."))  # e13
    session.append_branch("e11")  # e14
    summary = {"fromId": "e13", "summary": "asked: and 6*7?"}
    session.append_entry("branch_summary", summary)  # e15
    session.append_entry("label", {"name": "here", "targetId": "e14"})  # e16: a branch entry
    session.append_entry("label", {"name": "good", "targetId": "e6"})  # e17: good moves
    session.append_entry("label", {"name": "odd", "targetId": ["e9"]})  # e18: no id
    session.append_message(user_text("what was the result"))  # e19
    session.append_message(assistant_message("The last result was 42."))  # e20
    return described(session)


def moved_parent(folder: Path) -> Parent:
    """e1..e6 then e7, a branch back to e4 from e6: the leaf is the move itself."""
    session = Session.create(folder, session_id="moved", created_at="2026-01-01", cwd=CWD)
    ask(session, "what is 7*6", "call_1", "7*6", "42")
    session.append_message(assistant_message("7*6 = 42."))  # e4
    session.append_message(user_text("and 9**9**9?"))  # e5
    session.append_message(assistant_message("That is too large for me."))  # e6
    session.append_branch("e4")  # e7
    return described(session)


def ask(
    session: Session, text: str, call_id: str, expression: str, result: str, error: bool = False
) -> None:
    """A user question, the assistant's tool call, and the tool's result: three entries."""
    session.append_message(user_text(text))
    call: ToolCallBlock = {
        "type": "toolCall",
        "id": call_id,
        "name": "calc",
        "arguments": {"expression": expression},
    }
    session.append_message(assistant_message("Let me calculate that.", [call]))
    session.append_message(tool_result(call, result, is_error=error))


def described(session: Session) -> Parent:
    """What the step itself reads from the file just written."""
    resumed = Session.open(session.path)
    on_path = read_path(session.path)
    ids = {entry["id"] for entry in on_path}
    reading = read_session(session.path)
    abandoned = [entry for entry in in_file_order(reading.by_id) if entry["id"] not in ids]
    context = resumed.context
    return Parent(session.path, on_path, context.messages, context.model, abandoned)


def in_file_order(entries: Mapping[str, Entry]) -> list[Entry]:
    """Every entry, in the order the file has them (the mapping's order)."""
    return [entries[entry_id] for entry_id in entries]


def read_path(path: Path) -> list[Entry]:
    session = Session.open(path).session
    return path_to_leaf(session.entries, session.leaf_id).entries


# --- Calling the student's function, and judging what it did ---------------------------------


class Snapshot:
    """A file's bytes and identity (a rename over it gives another inode)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = path.read_bytes()
        self.inode = path.stat().st_ino

    def changed(self) -> str | None:
        """How the file changed, in a few words, or None."""
        if not self.path.exists():
            return "deleted it"
        now = self.path.read_bytes()
        if now == self.data and self.path.stat().st_ino == self.inode:
            return None
        if now == self.data:
            return "replaced it by a new file with the same bytes"
        if now.startswith(self.data):
            added = now[len(self.data) :].splitlines()
            kinds = [str(_kind(line)) for line in added]
            return f"appended {len(added)} line(s) to it ({', '.join(kinds)})"
        return f"rewrote it ({len(self.data)} bytes before, {len(now)} after)"


def call(
    fork: Callable[..., Any],
    path: Path,
    directory: Path,
    session_id: str,
    what: str,
    watched: list[Path],
) -> Any:
    snapshots = [Snapshot(p) for p in watched]
    mark = len(WRITE_OPENS)
    try:
        with read_only(watched):
            got = fork(
                path, directory, session_id=session_id, created_at=f"2026-01-02 {session_id}"
            )
    except (AssertionError, NotImplementedError):
        raise
    except Exception as error:
        opened_to_write(fork, mark, f"forking {what}", error)
        raise AssertionError(
            f"fork_session({what}) raised {type(error).__name__}: {error}",
            fork,
        ) from error
    opened_to_write(fork, mark, f"forking {what}", None)
    unchanged(fork, snapshots, f"forking {what}")
    return got


def unchanged(fork: Callable[..., Any], snapshots: list[Snapshot], doing: str) -> None:
    for snapshot in snapshots:
        how = snapshot.changed()
        assert how is None, (
            f"{doing}, fork_session changed {snapshot.path.name}: it {how}. A fork only READS its "
            "parent and any other session; the link goes in the fork's header, and every "
            "byte goes to the new file",
            fork,
        )


def verify(
    fork: Callable[..., Any],
    got: Any,
    expected_path: Path,
    parent: Parent,
    what: str,
    parent_path: Path | None = None,
) -> None:
    parent_path = parent_path or parent.path
    name = expected_path.name
    assert expected_path.is_file(), (
        f"after forking {what}, there is no {expected_path.parent.name}/{name}: create the "
        "fork with Session.create(directory, session_id=...) and write its entries with "
        "fork.append_entry (the file appears with the first entry)",
        fork,
    )
    assert isinstance(got, str | os.PathLike) and Path(got).resolve() == expected_path.resolve(), (
        f"fork_session returned {got!r}; return the fork's path, "
        f"{expected_path.parent.name}/{name}",
        fork,
    )
    try:
        reading = read_session(expected_path)
    except UnusableSessionFile as error:
        raise AssertionError(
            f"the fork {name} is no session the step can read ({error.reason}): write it with "
            "Session.create and fork.append_entry",
            fork,
        ) from None
    header = reading.header
    want = {"version": 1, "id": expected_path.stem, "cwd": CWD}
    for key, value in want.items():
        assert header.get(key) == value, (
            f"the fork's header has {key} {header.get(key)!r}, not {value!r}"
            + (
                ": a fork continues the parent's work, so take the parent header's cwd"
                if key == "cwd"
                else ""
            ),
            fork,
        )
    assert header.get("createdAt") == f"2026-01-02 {expected_path.stem}", (
        f"the fork's header has createdAt {header.get('createdAt')!r}: use the created_at given",
        fork,
    )
    linked = header.get("parentSession")  # type: ignore[misc]
    assert linked is not None, (
        f"the fork's header has no parentSession (it is {orjson.dumps(header).decode()}): set "
        "fork.header['parentSession'] to the parent file's absolute path before the first "
        "write, so the fork says where it came from",
        fork,
    )
    assert isinstance(linked, str) and os.path.isabs(linked), (
        f"the fork's header names its parent as {linked!r}, "
        + (
            "a relative path: it names the parent only from the folder the fork was made in; "
            "store the absolute path (Path(path).resolve())"
            if isinstance(linked, str)
            else "which is no path: store the parent file's absolute path, as text"
        ),
        fork,
    )
    assert Path(linked).exists() and Path(linked).samefile(parent_path), (
        f"the fork's header names its parent as {linked!r}, which is not the parent file "
        f"{parent_path.name}: store the path of the file that was forked",
        fork,
    )
    entries = in_file_order(reading.by_id)
    assert reading.skipped == 0, (
        f"the step's reader skipped {reading.skipped} lines of the fork {name}: write every "
        "entry with fork.append_entry",
        fork,
    )

    # Reopened from disk by the step's own code: what a later `--continue` would resume.
    context = Session.open(expected_path).context
    if context.messages != parent.messages:
        raise AssertionError(wrong_conversation(context.messages, parent, what), fork)
    assert context.chain_break is None, (
        f"reopened, the fork's path breaks: {context.chain_break}",
        fork,
    )
    if context.model != parent.model:
        raise AssertionError(wrong_model(context.model, parent), fork)

    fork_copies = [e for e in entries if e["type"] != "branch"]
    copies = fork_payloads(fork_copies)
    expected = parent.expected
    problem = wrong_names(fork_copies, copies, parent)
    if problem:
        raise AssertionError(f"in the fork {name}, {problem}", fork)
    extra = [
        e
        for e, copy in zip(fork_copies, copies, strict=True)
        if not any(covers(copy, want) for want in expected)
    ]
    assert not extra, (
        f"the fork {name} holds {len(extra)} entries that are not on the parent's active path "
        f"(first: {shown(extra[0])}): they come from branches the parent left behind. Reopening "
        "hides them, but they are still in the fork's file, and /tree shows them: copy the "
        "entries of path_to_leaf(...), not the file",
        fork,
    )
    missing = [p for p in expected if not any(covers(copy, p) for copy in copies)]
    assert not missing, (
        f"the fork {name} lacks {len(missing)} entries of the parent's path (first: a "
        f"{missing[0][0]} with {orjson.dumps(missing[0][1]).decode()[:80]}): copy every entry "
        "on the path but branch entries",
        fork,
    )
    moves = [e for e in entries if e["type"] == "branch"]
    assert not moves, (
        f"the fork {name} holds a branch entry ({shown(moves[0])}): it records a move inside "
        "the parent's tree, and its fromId names an entry the fork does not have (or, with "
        "new ids, the wrong one); leave branch entries out",
        fork,
    )
    in_order = len(copies) == len(expected) and all(
        covers(copy, want) for copy, want in zip(copies, expected, strict=True)
    )
    assert in_order, (
        f"the fork {name} holds the path's entries in another order: copy them in path order",
        fork,
    )
    previous = None
    for entry in entries:
        assert entry["parentId"] == previous, (
            f"the fork {name} is not a straight line: {entry['id']} hangs under "
            f"{entry['parentId']}, not under {previous}, the entry before it: write each copy "
            "with fork.append_entry, which hangs it under the one before",
            fork,
        )
        previous = entry["id"]


def refuse(
    fork: Callable[..., Any],
    path: Path,
    directory: Path,
    session_id: str,
    what: str,
    watched: list[Path],
) -> None:
    snapshots = [Snapshot(p) for p in [*watched, path] if p.exists()]
    before = sorted(directory.iterdir()) if directory.exists() else []
    raised = None
    mark = len(WRITE_OPENS)
    try:
        with read_only([s.path for s in snapshots]):
            fork(path, directory, session_id=session_id, created_at="2026-01-03")
    except (AssertionError, NotImplementedError):
        raise
    except Exception as error:
        raised = error
    opened_to_write(fork, mark, f"forking with {what}", raised)
    unchanged(fork, snapshots, f"forking with {what}")
    after = sorted(directory.iterdir()) if directory.exists() else []
    created = [p.name for p in after if p not in before]
    assert not created, (
        f"forking {what} created {', '.join(created)}: a fork that cannot be made leaves "
        "nothing behind (read the parent first: read_session refuses what is no session)",
        fork,
    )
    assert raised is not None, (
        f"fork_session({what}) returned without raising: say it could not fork (let "
        "read_session's or the write path's error through)",
        fork,
    )
    assert isinstance(raised, SessionError | OSError | ValueError), (
        f"fork_session({what}) raised {type(raised).__name__}: {raised}; let the session's "
        "own error (SessionError) through instead",
        fork,
    )


def _kind(line: bytes) -> str:
    """'a fork entry' for a line of JSON with a type, else 'not an entry'."""
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return "not an entry"
    kind = record.get("type") if isinstance(record, dict) else None
    return f"a {kind} entry" if isinstance(kind, str) else "not an entry"


# --- Saying what is wrong --------------------------------------------------------------------


def payload(entry: Entry) -> tuple[str, dict[str, Any]]:
    """An entry without the fields a copy gets afresh: what a copy must keep."""
    return entry["type"], {k: entry[k] for k in entry if k not in SKIPPED_KEYS}


def covers(copy: tuple[str, dict[str, Any]], want: tuple[str, dict[str, Any]]) -> bool:
    """The copy is of the entry's kind and holds each of its fields, with its value; a field
    the copy adds (where it came from, say) is the solution's business."""
    kind, fields = copy
    return kind == want[0] and all(
        key in fields and agrees(fields[key], value) for key, value in want[1].items()
    )


def agrees(got: Any, want: Any) -> bool:
    if isinstance(want, Kept):  # no id: kept as it is, or None
        return got == want or got == Copy(None)
    return bool(got == want)


def expected_payloads(path_entries: list[Entry]) -> list[tuple[str, dict[str, Any]]]:
    """What the fork's entries must hold, in order, a field that names an entry as what it
    names: the copy of that entry or, for an entry left out, the copy before it (where the
    conversation stood); Copy(None) for an entry the fork has no copy of."""
    stood: dict[str, int | None] = {}  # a parent id on the path -> the position of its copy
    expected: list[tuple[str, dict[str, Any]]] = []
    for entry in path_entries:
        if entry["type"] in LEFT_OUT:
            stood[entry["id"]] = len(expected) - 1 if expected else None
            continue
        kind, fields = payload(entry)
        field = NAMES_AN_ENTRY.get(kind)
        if field is not None and field in fields:
            named = fields[field]
            fields[field] = Copy(stood.get(named)) if isinstance(named, str) else Kept(named)
        stood[entry["id"]] = len(expected)
        expected.append((kind, fields))
    return expected


def fork_payloads(copies: list[Entry]) -> list[tuple[str, dict[str, Any]]]:
    """The fork's entries as payloads, a field that names an entry as what it names."""
    position = {entry["id"]: at for at, entry in enumerate(copies)}
    payloads = []
    for entry in copies:
        kind, fields = payload(entry)
        field = NAMES_AN_ENTRY.get(kind)
        if field is not None and field in fields:
            named = fields[field]
            if named is None:
                fields[field] = Copy(None)
            elif isinstance(named, str):
                fields[field] = Copy(position[named]) if named in position else Dangling(named)
            else:
                fields[field] = Kept(named)
        payloads.append((kind, fields))
    return payloads


def wrong_names(
    copies: list[Entry], payloads: list[tuple[str, dict[str, Any]]], parent: Parent
) -> str | None:
    """What is wrong with an id a copy names, in the student's terms, or None. Judged only
    when the fork holds the path's kinds in order (else the checks after this one say so)."""
    expected, originals = parent.expected, parent.copied
    if [kind for kind, _ in payloads] != [kind for kind, _ in expected]:
        return None
    for at, (copy, (kind, fields)) in enumerate(zip(copies, payloads, strict=True)):
        field = NAMES_AN_ENTRY.get(kind)
        want = expected[at][1].get(field) if field else None
        if field is None or want is None or agrees(fields.get(field), want):
            continue
        got, was = copy.get(field), originals[at][field]
        said = f"the {kind} {copy['id']} names {field} {repr(got)}"
        if isinstance(want, Kept):
            return (
                f"{said}; the parent's holds {repr(was)}, which is no id and names "
                "no entry: keep it as it is"
            )
        if isinstance(got, str) and got in {c["id"] for c in copies}:
            there = next(c for c in copies if c["id"] == got)
            now = f"in the fork, {got} is {shown(there)}"
        elif got is None:
            now = "it names nothing"
        else:
            now = f"the fork has no entry {got!r}"
        if want.at is None:
            named = parent.entry(was)
            where = (
                f"is {shown(named)}, on a branch the parent left behind"
                if named is not None
                else "is no entry of the parent"
            )
            return (
                f"{said} ({now}): the parent's {was} {where}, and the fork has no copy of it. "
                f"Write None there, so the {kind} names nothing, rather than whatever entry "
                "the fork gives that id later"
            )
        copy_id = copies[want.at]["id"]
        named = parent.entry(was)
        assert named is not None
        if named["type"] in LEFT_OUT:
            return (
                f"{said} ({now}); in the parent it names {shown(named)}, a {named['type']} "
                "entry, which the fork leaves out: name the fork's entry where the "
                f"conversation stood there, the copy of the entry before it on the path "
                f"({copy_id}), so that `/branch NAME` in the fork goes where it went in the parent"
            )
        return (
            f"{said} ({now}); in the parent it names {shown(named)}, whose copy in the fork is "
            f"{copy_id}. A fork renumbers: keep a map from each parent id on the path to its "
            "copy's id (append_entry returns the entry it wrote) and write the copy's id, so "
            "that `/branch NAME` in the fork goes where it went in the parent"
        )
    return None


def shown(entry: Entry) -> str:
    summary = summarize(entry)
    return f"{entry['id']} {summary.kind} {summary.text!r}"


def texts(messages: list[Message]) -> list[str]:
    return [preview(m) for m in messages]


def wrong_conversation(got: list[Message], parent: Parent, what: str) -> str:
    resumed = (
        f"reopened with Session.open, the fork of {what} resumes {len(got)} messages; the "
        f"parent's conversation at its leaf has {len(parent.messages)}"
    )
    left = [e["message"] for e in parent.abandoned if e["type"] == "message"]
    leaked = [m for m in got if m in left]
    if leaked:
        return (
            f"{resumed}: {text_of(leaked[0])!r} is from a branch the parent left behind. "
            "Copy the path from the leaf (path_to_leaf), not the file's lines in order"
        )
    lost = [m for m in parent.messages if m not in got]
    if lost:
        return f"{resumed}: {preview(lost[0])!r} is missing; copy every entry on the path"
    return f"{resumed}, in another order: {texts(got)} (expected {texts(parent.messages)})"


def wrong_model(got: str | None, parent: Parent) -> str:
    said = (
        f"reopened with Session.open, the fork's model is {got!r}; at the parent's leaf it is "
        f"{parent.model!r}"
    )
    if got is None:
        return (
            f"{said}: the model_change entries on the path were not copied. Copy the path's "
            "entries (every kind but branch), not just the messages of the conversation"
        )
    return f"{said}: {got!r} was set on a branch the parent left behind; copy only the path"
