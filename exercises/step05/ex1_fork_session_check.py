"""Check 05.1: parents (turns, moves, model switches, labels, summaries, a newer kind, damaged
lines), forked by the student and the solution, give the same header and copies (an id a copy
names compared by the copy it names); each parent read-only while forked (ReadOnly); a parent
with an empty path (a torn first line) refused with SessionError, even over a taken id."""

from __future__ import annotations

import os
import tempfile
from contextlib import chdir
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import strategies as st

import commands
from exercises import harness as h
from messages import preview
from session import SessionError

COPIES = "copy the path's entries but branches"
FIELDS = "a copy keeps each field, ids the fork's"
HEADER = "the header names the parent's absolute path"
READ = "the parent is only read"
REFUSE = "no fork of no session, of no path, or over a file"
PRIVATE = "a fork is private: the file 0600, a folder it makes 0700"
LABELS = st.tuples(st.sampled_from(["good", "bad"]), st.sampled_from(["e1", "e3", "e5", "list"]))
OPS = st.lists(st.one_of(
    st.sampled_from(["hello", "what is 12*8", "/model scripted-v2", "x"]),
    st.integers(1, 8).map("/branch e{}".format), st.integers(1, 8).map("summary e{}".format),
    LABELS.map(" ".join).map("label {}".format), st.integers(1, 6).map("damage {}".format),
), min_size=1, max_size=7).map(lambda ops: (None, ops))  # fmt: skip
NAMED = [
    ("the branched parent", ["hello", "/model scripted-v2", "what is 12*8", "/branch e3", "hi"]),
    ("a parent whose leaf is a move", ["what is 12*8", "/branch e2"]),
    ("a damaged parent, a newer kind", ["hello", "what is 12*8", "damage 3", "x", "hello"]),
    ("the labelled parent", ["hello", "what is 12*8", "/branch e2", "label bad e4", "label here e7",
                             "label odd list", "summary e6", "label good e2", "hello"]),
]  # fmt: skip
FUTURE = b'{"type":"header","version":2,"id":"f","createdAt":"","cwd":"/"}\n'
NO_SESSION = {"empty": b"", "notes": b"my notes\n", "future": FUTURE}
AUDIT: list[h.ReadOnly] = []


def before_load() -> None:
    AUDIT.append(h.ReadOnly())


def check(module: ModuleType) -> str:
    pair, _ = h.subjects(module), os.umask(0o022)  # the usual umask: files 0644 unless asked
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        parent = build(root / "sessions", NAMED[1][1])
        with chdir(root):  # the parent and the folder named relative to it
            relative = ("a relative parent path", NAMED[1][1])
            forked_alike(pair, relative, Path("sessions/parent.jsonl"), Path("forks"))
        refused(pair[0], parent, root / "sessions", "parent", "the id of an existing session")
        for name, data in NO_SESSION.items():
            (root / f"{name}.jsonl").write_bytes(data)
            refused(pair[0], root / f"{name}.jsonl", root / "bad", "bad", f"{name}.jsonl")
        parents = h.for_all(OPS, lambda named: forked_alike(pair, named), 60, NAMED)
        made = root / "forks" / "mine"  # the folder the student's fork made, and the fork in it
        modes = [f"{path.stat().st_mode & 0o777:o}" for path in (made / "fork.jsonl", made)]
        if modes != ["600", "700"]:
            said = "the file {}, its new folder {}".format(*modes)
            h.fail(PRIVATE, "a fork into a new folder, umask 022", said, module.fork_session)
        torn, saved = root / "torn.jsonl", parent.read_bytes()  # a crash at the first save left
        torn.write_bytes(saved[: saved.index(b"\n") + 31])  # a header and a torn first line
        empty = {"parent": "an empty path, over a session", "new": "an empty path"}
        for session_id, what in empty.items():
            refused(pair[0], torn, root / "sessions", session_id, what, SessionError)
    return f"{parents + 1} parents forked alike, only read, the forks 0600; 6 bad forks refused"


def build(folder: Path, ops: list[str]) -> Path:
    """The parent a script makes: as main.py, the later exercises and a crash would write it."""
    session = h.session_in(folder, "parent", cwd="/home/ada/project")
    chat = commands.Chat(session, [], cursor=0)
    for op in ops:
        word, *rest = op.split()
        if word.startswith("/"):
            commands.run_command(chat, op)
        elif word == "label" and (rest[1] in session.entries or rest[1] == "list"):
            target = rest[1] if rest[1] != "list" else ["e1"]  # a file is data
            session.append_entry("label", {"name": rest[0], "targetId": target})
        elif word == "summary" and rest[0] in session.entries:  # as 05.3 writes one
            session.append_entry("branch_summary", {"fromId": rest[0], "summary": "asked: x"})
        elif word == "x":  # a newer program's kind, with a field a fork may want to add
            session.append_entry("x_later_kind", {"note": {"by": ["a"]}, "copiedFrom": "e9"})
        elif word == "damage":
            h.tear(session.path, int(rest[0]))
        elif word not in ("label", "summary"):
            h.say(chat, op)
    return session.path


def forked_alike(pair: tuple[h.Subject, h.Subject], named: tuple[str | None, list[str]],
                 path: Path | None = None, into: Path | None = None) -> None:  # fmt: skip
    case = named[0] or f"a parent of {h.lines(named[1], 40)}"
    with tempfile.TemporaryDirectory() as folder:
        parent, forks, lines = path or build(Path(folder) / "sessions", named[1]), [], []
        if not parent.exists():
            return  # nothing was ever written: no parent to fork
        for subject, mine in zip(pair, ("mine", "theirs"), strict=True):
            fork = (into or Path(folder)) / mine / "fork.jsonl"
            with AUDIT[0].only_read(parent) as written:
                outcome = subject.call(subject.module.fork_session, parent, fork.parent,
                                       session_id="fork", created_at="2026-01-02")  # fmt: skip
            if written or outcome.error is not None:
                raise AssertionError(f"{READ if written else COPIES}; {case}: "
                                     f"{written[0] if written else outcome.said()}",
                                     outcome.line) from outcome.error  # fmt: skip
            if not isinstance(outcome.value, str | os.PathLike) or Path(outcome.value).resolve(
            ) != fork.resolve():  # fmt: skip
                h.fail(COPIES, case, f"it returned {h.short(outcome.value)}", outcome.line)
            forks.append(h.entries_in(fork, header=True))
            lines.append(outcome.line)
        (mine, theirs), line = forks, lines[0]  # the solution refuses a parent with no entry
        if not mine or not h.covers(header_of(mine[0]), header_of(theirs[0])):
            said = h.uncovered(header_of(mine[0]), header_of(theirs[0])) if mine else "no fork"
            h.fail(HEADER, case, said, line)
        got, want = payloads(mine[1:]), payloads(theirs[1:])
        for at, (copy, wanted) in enumerate(zip(got, want)):  # noqa: B905 (lengths next)
            if not h.covers(copy, wanted):
                key = next(k for k, v in wanted.items() if copy.get(k, ...) != v)
                rule = COPIES if key in ("type", "message", "whole", "under") else FIELDS
                h.fail(rule, case, f"copy {at + 1} {h.uncovered(copy, wanted)}", line)
        if len(got) != len(want):
            h.fail(COPIES, case, f"{len(got)} copies, expected {len(want)}", line)


def header_of(header: Any) -> dict[str, Any]:
    """The header, its parentSession said as what it names (never a temporary folder)."""
    if not isinstance(header, dict):
        return {"type": h.short(header)}
    link = header.get("parentSession")
    if not isinstance(link, str) or not os.path.isabs(link):
        return {**header, "parentSession": "a relative path" if isinstance(link, str) else link}
    return {**header, "parentSession": Path(link).name if Path(link).exists() else "no file"}


def payloads(entries: list[Any]) -> list[dict[str, Any]]:
    """Each copy without its id, its parent said as "the copy before" or not, a message by its
    text (then whole), and an id a label or a summary names said as the copy it names."""
    ids = {e.get("id"): at for at, e in enumerate(entries) if isinstance(e, dict)}
    found: list[dict[str, Any]] = []
    for at, entry in enumerate(entries):
        entry = entry if isinstance(entry, dict) else {"type": "a line that is no entry"}
        before = entries[at - 1].get("id") if at and isinstance(entries[at - 1], dict) else None
        copy = {k: v for k, v in entry.items() if k not in ("id", "parentId")}
        copy["under"] = "the copy before" if entry.get("parentId") == before else "another"
        if isinstance(message := entry.get("message"), dict):
            copy = {**copy, "message": preview(message, 24), "whole": message}
        field = {"label": "targetId", "branch_summary": "fromId"}.get(entry.get("type"))
        if field and isinstance(named := entry.get(field), str):
            copy[field] = f"copy {ids[named] + 1}" if named in ids else f"{named}, no copy"
        found.append(copy)
    return found


def refused(subject: h.Subject, path: Path, directory: Path, session_id: str, what: str,
            named: type[Exception] = Exception) -> None:  # fmt: skip
    made = {file: h.Snapshot(file) for file in directory.glob("*")}  # each file there, as it was
    with AUDIT[0].only_read(path) as written:
        outcome = subject.call(subject.module.fork_session, path, directory,
                               session_id=session_id, created_at="2026-01-03")  # fmt: skip
    said = [*written, *(f"it made {p.name}" for p in set(directory.glob("*")) - made.keys())]
    said += [f"{p.name}: {change}" for p, before in made.items() if (change := before.change())]
    if said or not isinstance(outcome.error, named):
        value = outcome.value  # a path: said by its name, never its temporary folder
        got = Path(value).name if isinstance(value, str | os.PathLike) else h.short(value)
        said.append(f"{outcome.said()}, expected a {named.__name__}" if outcome.error
                    else f"it returned {got}")  # fmt: skip
        h.fail(REFUSE, what, said[0], outcome.line)
