"""Check 03.2: a folder of sessions of every shape step 03 reads, listed newest first, each row
describing what resuming it restores; then a pick by number, and the pick resumed.

A row's count and title must come from the conversation resuming restores, the path from the
leaf, and never from the file's lines. The two agree on a tidy file, so most files here are
built so that they differ, each in one way, and the FAIL line names the file and the way:

- a torn last line (a line, but no message);
- a branch left behind (step 05 writes such files; step 03 already reads them right);
- a second root: the conversation starts at the later one, so even the title differs;
- model changes (a kind step 04 writes, unknown here): on the path, but no message;
- a damaged middle line that breaks the chain: only the path back to the break is restored;
- a session with no message at all (an older version's empty run);
- two sessions modified at the same moment (the later name first, as list_session_files).

Five files that cannot be a session must be left out.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from loop import run_turn
from messages import Message, preview, user_text
from model import ScriptedModel
from session import Session, persist_new_messages, read_session
from tools import default_tools

NOW = 1_800_000_000  # every file's modification time is NOW minus its age in seconds
LONG = "please tell me, what is the sum of 2+3 and why does it matter to you"


@dataclass(frozen=True)
class Expected:
    """One usable session: the row it must get, and what makes the file differ from it."""

    name: str
    title: str
    messages: int
    why: str  # what a reader of the file's lines gets wrong about it
    title_differs: bool  # the file's first user message is not the conversation's


def check(module: ModuleType) -> str:
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary).resolve()
        expected = build(folder)
        before = {p.name: p.read_bytes() for p in folder.iterdir() if is_regular(p)}
        rows = guarded(module.list_sessions, "list_sessions(directory)", folder)
        after = {p.name: p.read_bytes() for p in folder.iterdir() if is_regular(p)}
        changed = [name for name in before if after.get(name) != before[name]]
        assert not changed, (
            f"list_sessions changed {changed[0]}: listing sessions must only read them",
            module.list_sessions,
        )
        compare_rows(module, folder, rows, expected)
        picked = compare_choose(module, rows)
        compare_resume(module, folder, expected)
    differing = sum(e.why != "" for e in expected)
    return (
        f"{len(expected)} usable sessions were listed newest first (a tie by the later name) "
        "and 5 unusable files left out, without a byte written; each "
        "row's count and title came from the conversation resuming restores, also on "
        f"{differing} files whose lines say otherwise (a torn line, a branch left behind, a "
        "second root, model changes, a broken chain) and on a session with no message; "
        f"choose picked {picked} answers by number and refused 7 others with ValueError; the "
        "picked session resumed with its conversation"
    )


# --- What the student's code must do ---------------------------------------------------------


def compare_rows(module: ModuleType, folder: Path, rows: object, expected: list[Expected]) -> None:
    blame = module.list_sessions
    assert isinstance(rows, list) and all(isinstance(r, module.SessionRow) for r in rows), (
        f"list_sessions must return a list of SessionRow, not {type(rows).__name__} "
        f"{str(rows)[:80]}",
        blame,
    )
    got = [Path(row.path).name for row in rows]
    want = [e.name for e in expected]
    assert rows, (
        f"list_sessions returned no row, but the folder holds {len(want)} usable sessions",
        blame,
    )
    unusable = [name for name in got if name not in want]
    assert not unusable, (
        f"list_sessions listed {unusable[0]}, which cannot be a session (Session.open refuses "
        "it with UnusableSessionFile): leave such files out",
        blame,
    )
    left_out = [name for name in want if name not in got]
    assert not left_out, (
        f"list_sessions left out {left_out[0]}, a usable session: list every session that "
        "can be opened, damaged or not, even one with no message",
        blame,
    )
    if got != want:
        row = next(i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b)
        tie = (folder / got[row]).stat().st_mtime == (folder / want[row]).stat().st_mtime
        why = (
            "of two modified at the same moment the later name first"
            if tie
            else "the most recently modified first"
        )
        raise AssertionError(
            f"list_sessions put {got[row]} in row {row + 1}, where {want[row]} belongs: "
            f"keep the order of list_session_files, {why}",
            blame,
        )
    for row, e in zip(rows, expected, strict=True):
        where = f"{e.name} (row {want.index(e.name) + 1})"
        assert row.messages == e.messages, (
            f"{where}: messages={row.messages!r}, but resuming it restores {e.messages}"
            f"{': ' + e.why if e.why else ''}. Count the messages of the conversation on the "
            "path from the leaf, not the file's lines",
            blame,
        )
        assert row.title == e.title, (
            f"{where}: title={row.title!r}, expected {e.title!r}, the preview of the first "
            "user message of the conversation resuming restores"
            f"{' (' + e.why + ')' if e.why and e.title_differs else ''}",
            blame,
        )
        mtime = (folder / e.name).stat().st_mtime
        assert row.modified == mtime, (
            f"{where}: modified={row.modified!r}, but the file's st_mtime is {mtime}",
            blame,
        )


def compare_choose(module: ModuleType, rows: list[Any]) -> int:
    choose = module.choose
    picks = [("3", 2), (" 1 \n", 0), (str(len(rows)), len(rows) - 1)]
    for answer, index in picks:
        advice = f"It is row {index + 1}'s number (spaces around a number are fine)"
        got = guarded(choose, f"choose(rows, {answer!r})", rows, answer, advice=advice)
        assert isinstance(got, str | os.PathLike) and Path(got) == Path(rows[index].path), (
            f"choose(rows, {answer!r}) returned {got!r}; expected row {index + 1}'s path, "
            f"{Path(rows[index].path).name} (rows count from 1; spaces around are fine)",
            choose,
        )
    past_the_end = str(len(rows) + 1)
    for answer in ["0", "-1", past_the_end, "two", "", "1.5", "   "]:
        try:
            got = choose(rows, answer)
        except ValueError:
            continue
        except Exception as error:
            raise AssertionError(
                f"choose(rows, {answer!r}) raised {type(error).__name__}: {error}; refuse an "
                "answer that is not a row's number with ValueError and a short reason",
                choose,
            ) from error
        which = next(
            (f"row {i + 1}'s path" for i, r in enumerate(rows) if Path(r.path) == got), repr(got)
        )
        raise AssertionError(
            f"choose(rows, {answer!r}) returned {which} instead of raising ValueError: the "
            f"rows are numbered 1 to {len(rows)}, and anything else is refused",
            choose,
        )
    return len(picks)


def compare_resume(module: ModuleType, folder: Path, expected: list[Expected]) -> None:
    number = [e.name for e in expected].index("20260104-branched.jsonl") + 1
    session, messages = guarded(
        module.resume,
        f"resume(directory, '{number}')",
        folder,
        str(number),
        advice="resume is given: restore it as the starter has it, or use list_sessions and "
        "choose as it does",
    )
    want = Session.open(folder / "20260104-branched.jsonl").context.messages
    assert Path(session.path) == folder / "20260104-branched.jsonl" and messages == want, (
        f"resume(directory, '{number}') should open row {number}, 20260104-branched.jsonl, with "
        f"the {len(want)} messages on its path; it opened {Path(session.path).name} with "
        f"{len(messages)}",
        module.resume,
    )


LISTING_ADVICE = (
    "The folder holds sessions of every shape step 03 reads and files that cannot be a "
    "session: leave the latter out (UnusableSessionFile), and give a session with no user "
    "message the title '(no user message)'"
)


def guarded(
    function: Callable[..., Any], call: str, *args: object, advice: str = LISTING_ADVICE
) -> Any:
    """The student's function; any exception becomes a verdict."""
    try:
        return function(*args)
    except NotImplementedError:
        raise
    except Exception as error:
        raise AssertionError(
            f"{call} raised {type(error).__name__}: {error}. {advice}",
            function,
        ) from error


def is_regular(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


# --- The folder -------------------------------------------------------------------------------


TITLE_DIFFERS = {"20260105-second-root.jsonl", "20260107-chain-break.jsonl"}


def build(folder: Path) -> list[Expected]:
    """Write every session, age them, and return the rows they must get, newest first."""
    expected = [
        Expected(name, title, count, why, title_differs=name in TITLE_DIFFERS)
        for name, title, count, why in [
            ("20260109-tie-b.jsonl", "hello", 2, ""),
            ("20260109-tie-a.jsonl", "hello", 2, ""),
            ("20260108-no-message.jsonl", "(no user message)", 0, ""),
            (
                "20260103-torn.jsonl",
                preview(user_text(LONG)),
                4,
                "its torn last line is a line but no message",
            ),
            (
                "20260104-branched.jsonl",
                "hello",
                6,
                "the file also holds the 4 messages of a branch the conversation left behind",
            ),
            (
                "20260105-second-root.jsonl",
                "hello again",
                2,
                "its first 4 messages are a conversation left behind: this one starts at a "
                "second root",
            ),
            (
                "20260106-model-changes.jsonl",
                "hello",
                6,
                "2 entries on its path are model changes, a kind this step does not know: "
                "follow them, but they are no message",
            ),
            (
                "20260107-chain-break.jsonl",
                "(no user message)",
                3,
                "a damaged line (its second user message) breaks its chain: only the path from "
                "the leaf back to the break is restored, and it holds no user message",
            ),
            ("20260102-recall.jsonl", "what is 12*8", 6, ""),
            ("20260101-hello.jsonl", "hello", 2, ""),
        ]
    ]
    ages = [100, 100, 200, 250, 300, 400, 500, 600, 800, 900]

    saved(folder, "20260101-hello", ["hello"])
    saved(folder, "20260102-recall", ["what is 12*8", "what was the result"])
    torn = saved(folder, "20260103-torn", [LONG])
    with torn.open("ab") as file:  # a crash tore the next line: still usable
        file.write(b'{"type":"message","id":"e5","parentId":"e4","mess')
    branched = session_in(folder, "20260104-branched")
    say(branched, "hello")
    say(branched, "what is 12*8")
    branched.leaf_id = "e2"  # back to the first answer: what follows is another branch
    say(branched, "what is 7*6")
    second_root = session_in(folder, "20260105-second-root")
    say(second_root, "what is 1+1")
    second_root.leaf_id = None  # a new first entry: the old conversation is left behind
    say(second_root, "hello again")
    changes = session_in(folder, "20260106-model-changes")
    say(changes, "hello")
    changes.append_entry("model_change", {"model": "scripted-v2"})
    say(changes, "what is 2*3")
    changes.append_entry("model_change", {"model": "scripted-v3"})  # the leaf is no message
    broken = saved(folder, "20260107-chain-break", ["hello", "what is 12*8"])
    lines = broken.read_bytes().split(b"\n")
    lines[3] = lines[3][:40]  # e3, torn in the middle: e4 now hangs under a missing parent
    broken.write_bytes(b"\n".join(lines))
    header = {"type": "header", "version": 1, "id": "x", "createdAt": "", "cwd": "/"}
    (folder / "20260108-no-message.jsonl").write_bytes(orjson.dumps(header) + b"\n")
    for name in ("20260109-tie-a", "20260109-tie-b"):
        saved(folder, name, ["hello"])
    for e, age in zip(expected, ages, strict=True):
        aged(folder / e.name, age)
    unusable_files(folder)

    for e in expected:  # the check's own premise: step 03's reader agrees, the file does not
        path = folder / e.name
        restored = Session.open(path).context.messages
        users = [m for m in restored if m["role"] == "user"]
        title = preview(users[0]) if users else "(no user message)"
        if (len(restored), title) != (e.messages, e.title):
            raise RuntimeError(f"the check's own {e.name} no longer restores what it expects")
        lines = len(path.read_bytes().splitlines()) - 1  # after the header
        said = [e["message"] for e in read_session(path).entries if e["type"] == "message"]
        users = [m for m in said if m["role"] == "user"]
        in_file = preview(users[0]) if users else "(no user message)"
        if (in_file != e.title) != e.title_differs:
            raise RuntimeError(f"the check's own {e.name} no longer titles as it expects")
        if e.why and lines == e.messages:
            raise RuntimeError(f"the check's own {e.name} no longer differs from its lines")
    return expected


def session_in(folder: Path, name: str) -> Session:
    return Session.create(folder, session_id=name, created_at="2026-01-01T00:00:00Z", cwd="/")


def say(session: Session, text: str) -> None:
    """One turn of the scripted model, saved: the messages hang under the session's leaf."""
    history = [] if session.leaf_id is None else messages_to(session, session.leaf_id)
    start = len(history)
    for _ in run_turn(ScriptedModel(), default_tools(), history, user_text(text)):
        pass
    persist_new_messages(session, history, start)


def messages_to(session: Session, leaf_id: str) -> list[Message]:
    """The conversation on the path to `leaf_id`, so the model answers from that history."""
    path: list[Message] = []
    current: str | None = leaf_id
    while current is not None:
        entry = session.entries[current]
        if entry["type"] == "message":
            path.append(entry["message"])
        current = entry["parentId"]
    return path[::-1]


def saved(folder: Path, name: str, inputs: list[str]) -> Path:
    session = session_in(folder, name)
    for text in inputs:
        say(session, text)
    return session.path


def aged(path: Path, age: int) -> None:
    os.utime(path, (NOW - age, NOW - age), follow_symlinks=False)


def unusable_files(folder: Path) -> None:
    """Five files named like sessions that cannot be one, newer than every session."""
    header = {"type": "header", "version": 7, "id": "v7", "createdAt": "", "cwd": "/"}
    (folder / "20260110-v7.jsonl").write_bytes(orjson.dumps(header) + b"\n")
    (folder / "20260111-garbage.jsonl").write_bytes(b"this is not JSON\n")
    (folder / "20260112-empty.jsonl").write_bytes(b"")
    (folder / "20260113-folder.jsonl").mkdir()
    (folder / "20260114-dangling.jsonl").symlink_to(folder / "nowhere")
    names = ["14-dangling", "13-folder", "12-empty", "11-garbage", "10-v7"]
    for age, name in enumerate(names, start=10):
        aged(folder / f"202601{name}.jsonl", age)
