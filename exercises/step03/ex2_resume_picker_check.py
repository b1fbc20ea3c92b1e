"""Check 03.2: folders of sessions, named and generated, listed by the student and the solution:
the same rows, in order, nothing written. Counts and titles come from the conversation resuming
restores, and the files' lines say otherwise (a torn line, a branch left behind, a second root,
a later kind, a broken chain, no message); unusable files and ties lie among them. Then choose
is given what a user types, and must pick, or refuse, as the solution does."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from types import ModuleType

from hypothesis import strategies as st

from commands import Chat
from entries import build_context
from exercises import harness as h

RULE = "a row tells what resuming restores"
SHAPES = ["hello", "recall", "torn", "branched", "rerooted", "kinds", "broken", "empty",
          "v7", "garbage", "dir"]  # fmt: skip
UNUSABLE = {"v7": b'{"type":"header","version":7,"id":"x","createdAt":"","cwd":"/"}\n',
            "garbage": b"not a session\n", "dir": b""}  # fmt: skip
TURNS = {"recall": ["what is 12*8", "what was the result"], "broken": ["hello", "what is 12*8"],
         "rerooted": ["what is 1+1"], "branched": ["hello", "what is 12*8"]}  # fmt: skip
FOLDERS = st.lists(st.tuples(st.sampled_from(SHAPES), st.integers(0, 2)), max_size=5)
NAMED = [[(shape, 0), ("hello", 1)] for shape in SHAPES] + [[("hello", 0), ("recall", 0)]]
ANSWERS = st.sampled_from(["1", "2", " 3 ", "0", "-1", "9", "two", "", "1.5", "  ", "01"])


def check(module: ModuleType) -> str:
    pair = h.subjects(module)
    folders = h.for_all(FOLDERS, lambda files: listed_alike(pair, files), 100, NAMED)
    answers = h.for_all(st.tuples(FOLDERS, ANSWERS), lambda drawn: chosen_alike(pair, *drawn))
    return (
        f"{folders} folders of sessions got the solution's rows, each from the conversation "
        f"resuming restores, nothing written; {answers} answers were picked or refused alike"
    )


def listed_alike(pair: tuple[h.Subject, h.Subject], files: list[tuple[str, int]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        written = [h.Snapshot(p) for p in build(Path(folder), files) if p.is_file()]
        got, want = (s.call(s.module.list_sessions, folder) for s in pair)
        case = f"[{', '.join(f'{shape} {age}s ago' for shape, age in files)}]"
        if got.error is not None:
            raise AssertionError(f"{RULE}; {case}: {got.said()}") from got.error
        if changed := next((s.change() for s in written if s.change()), None):
            h.fail("list_sessions only reads", case, changed, got.line)
        if not isinstance(got.value, list):
            h.fail(RULE, case, f"it returned {h.short(got.value)}", got.line)
        mine, theirs = [row_of(r) for r in got.value], [row_of(r) for r in want.value]
        names = [str(r.get("file")) for r in (theirs + mine[len(theirs) :])]
        for at, (row, wanted) in enumerate(zip(mine, theirs)):  # noqa: B905 (fewer or more)
            if row["file"] != wanted["file"]:
                h.fail(RULE, case, f"row {at + 1} is {row['file']}, expected {names[at]}", got.line)
        if said := h.difference(mine, theirs, lambda at: f"row {at + 1} ({names[at]})", "rows"):
            h.fail(RULE, case, said, got.line)


def row_of(row: object) -> dict[str, object]:
    """A row as it can be compared: its file's name rather than the folder it is in."""
    if not isinstance(row, tuple) or len(row) != 4:
        return {"file": h.short(row, 20)}
    path, title, messages, modified = row
    return {"file": Path(path).stem.split("-")[0], "title": title, "messages": messages,
            "modified": modified}  # fmt: skip


def chosen_alike(pair: tuple[h.Subject, h.Subject], files: list[tuple[str, int]], answer: str) -> None:  # noqa: E501  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        build(Path(folder), files)
        rows = pair[1].module.list_sessions(folder)  # the solution's rows: choose alone is tried
        got, want = (s.call(s.module.choose, rows, answer) for s in pair)
        case = f"choose({len(rows)} rows, {answer!r})"
        if not isinstance(got.error, ValueError) if want.error else got.value != want.value:
            raised = type(got.error).__name__
            said = f"raised {raised}" if got.error else f"gave {Path(got.value).stem}"
            said += f", expected {'ValueError' if want.error else want.value.stem}"
            h.fail("choose takes a row's number, 1 to len(rows)", case, said, got.line)


def build(folder: Path, files: list[tuple[str, int]]) -> list[Path]:
    """Each file of the list, in its shape, modified `age` seconds before the same moment."""
    made = []
    for number, (shape, age) in enumerate(files, start=1):
        path = folder / f"s{number}-{shape}.jsonl"
        if shape in UNUSABLE:
            path.mkdir() if shape == "dir" else path.write_bytes(UNUSABLE[shape])
        else:
            write(h.session_in(folder, path.stem), shape)
        os.utime(path, (1e9 - age, 1e9 - age))
        made.append(path)
    return made


def write(session: object, shape: str) -> None:
    """A session of one shape, written as step 03 would (and a later step, and a crash)."""
    chat = Chat(session, [], cursor=0)  # type: ignore[arg-type]
    if shape == "empty":
        session.file.append(b"")  # type: ignore[attr-defined]  # the header alone
        return
    for text in TURNS.get(shape, ["hello"]):
        h.say(chat, text)
    if shape in ("branched", "rerooted"):  # back to e2, or to before the first entry
        chat = moved(chat, "e2" if shape == "branched" else None)
        h.say(chat, "what is 7*6" if shape == "branched" else "hello again")
    elif shape == "kinds":  # a kind step 04 writes, on the path: followed, and no message
        session.append_entry("model_change", {"model": "scripted-v2"})  # type: ignore[attr-defined]
        h.say(chat, "what is 2*3")
    elif shape == "torn":  # a crash tore the next line: still usable
        with session.path.open("ab") as file:  # type: ignore[attr-defined]
            file.write(b'{"type":"message","id":"e9","parentId":"e2","mess')
    elif shape == "broken":  # e3 torn in the middle: e4 hangs under a parent that is gone
        h.tear(session.path, 3)  # type: ignore[attr-defined]


def moved(chat: Chat, leaf: str | None) -> Chat:
    """The chat at another leaf of its session, as a resume there would have it."""
    chat.session.leaf_id = leaf
    messages = build_context(chat.session.entries, leaf).messages
    return Chat(chat.session, list(messages), cursor=len(messages))
