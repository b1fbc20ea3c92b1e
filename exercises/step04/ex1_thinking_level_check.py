"""Check 04.1: a thinking level is one entry written through the session's one write path, a
command that writes nothing for bad input, and a level restored from the path from the leaf
by a process that knows nothing but the file.

- The write path. `Session.append_entry` is wrapped (before the student's module is loaded,
  so any way of reaching it counts) and every entry it writes is recorded. `/thinking high`
  after a turn must write exactly one `thinking_level_change` through it, under the leaf, and
  move the leaf; the next turn's messages must hang under the switch; the first `/thinking`
  of a session with nothing written yet must create the file with its header.
- Bad input. `/thinking` alone, the level in force and levels that do not exist must leave
  the file as it was (on a new session: leave no file at all), and the chat's level too.
- The path, not the file. A file with a branch has its last change in the file on a branch
  the leaf is not on; the level asked at five leaves is the last change on each one's path,
  and each expected value differs from what the file's last change, the path's first change
  and the default would give. A last change naming no level this program has falls back to
  the default; a broken chain ends the path.
- A real restart. A child process loads the student's module afresh and opens each file with
  `open_chat` (Session.open, then the student's `thinking_level_at`): no object of this
  process survives into it, so only what the file holds can come back.
- Old readers. The step's own reader reads every file with no line skipped and the
  conversation intact: the new kind is skipped for what it means, followed for its parentId.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

import session as session_module
from commands import CommandResult
from entries import Entry
from messages import Message, assistant_message, user_text
from session import Session, SessionError, read_session

STEP_DIR = Path(session_module.__file__).resolve().parent
KIND = "thinking_level_change"
LEVELS = ("off", "low", "medium", "high")
DEFAULT = "off"
CHILD_SECONDS = 20  # a fresh interpreter opening three small files: well under 1 s

WRITTEN: list[Entry] = []  # every entry written through Session.append_entry, in order

# The child: load the student's module afresh, open each file as --continue would, and say
# what came back. It shares nothing with the check but the files.
CHILD = """
import importlib.util, json, sys
target, step_dir, *paths = sys.argv[1:]
sys.path.insert(0, step_dir)
spec = importlib.util.spec_from_file_location("ex1_thinking_level", target)
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)
found = []
for path in paths:
    chat = module.open_chat(path)
    shown = module.run_command(chat, "/thinking").lines
    found.append({"level": chat.thinking, "shown": list(shown), "messages": len(chat.messages)})
print(json.dumps(found))
"""


def before_load() -> None:
    """Record every entry the one write path writes. Wrapped on the class, before the
    student's module is loaded, so `session.append_entry(...)`, `Session.append_entry(s, ...)`
    and a reference taken at import time all go through the recorder."""
    real = Session.append_entry

    def recording(self: Session, kind: str, fields: Any) -> Entry:
        entry = real(self, kind, fields)
        WRITTEN.append(entry)
        return entry

    Session.append_entry = recording  # type: ignore[method-assign]


def check(module: ModuleType) -> str:
    append, level_at = module.append_thinking_level_change, module.thinking_level_at
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)

        # --- A session with nothing written yet: showing and refusing leave no file ---------
        chat = new_chat(module, folder, "talked")
        path = chat.session.path
        expect_shown(module, chat, DEFAULT, "on a new session")
        unknown = ["ultra", "maximum", "high please", "1", "medium-high", "\x1b[2Jhigh"]
        for argument in [DEFAULT, *unknown[:3]]:
            refused(module, chat, argument, before=None, level=DEFAULT)

        # --- After a turn: one entry under the leaf, through the one write path -------------
        say(chat, "what is 12*8", "12*8 = 96.")  # e1, e2
        switch(module, append, chat, "high", leaf="e2", new_id="e3")
        expect_shown(module, chat, "high", "after `/thinking high`")
        before = path.read_bytes()
        for argument in ["high", *unknown[2:]]:
            refused(module, chat, argument, before=before, level="high")
        say(chat, "what was the result", "The last result was 96 (12*8).")  # e4, e5
        chain = [(e["id"], e["parentId"]) for e in read_session(path).entries]
        assert chain == [("e1", None), ("e2", "e1"), ("e3", "e2"), ("e4", "e3"), ("e5", "e4")], (
            f"after the switch and one more turn, the file's ids and parents are {chain}; "
            "they should run e1 <- e2 <- e3 (the switch) <- e4 <- e5: write the entry with "
            "session.append_entry, so the session numbers it and moves its leaf",
            append,
        )
        # Right after /model: the leaf is a model_change, not a message.
        command(module, chat, "/model scripted-v2")  # e6
        switch(module, append, chat, "medium", leaf="e6", new_id="e7")

        # --- The first write of a session: the file is created with its header --------------
        first = new_chat(module, folder, "first-write")
        switch(module, append, first, "low", leaf=None, new_id="e1")

        # --- A branched file: the level is the last change on the path, not in the file -----
        branched, leaves = branched_file(folder)
        for leaf, want in leaves.items():
            got = ask(level_at, branched.entries, leaf, "a branched file")
            if got != want:
                raise AssertionError(wrong_level(branched.entries, leaf, got, want), level_at)
        damaged = damaged_paths()
        for what, entries, want in damaged:
            got = ask(level_at, entries, "e4", what)
            assert got == want, (
                f"thinking_level_at gave {got!r} for {what}; expected {want!r}: "
                + (
                    "the path from the leaf ends at the break (path_to_leaf stops there), "
                    "so a change beyond it is not in force"
                    if "breaks" in what
                    else "other kinds on the path (a model switch, a newer program's entry) "
                    "change nothing about the level: the last thinking_level_change decides"
                    if "follow" in what
                    else "when the last change names no level of LEVELS, trust none of it "
                    "and use DEFAULT_LEVEL, as main.py does for a model it does not have"
                ),
                level_at,
            )

        # --- A real restart: a new process, the files and nothing else ----------------------
        files = [path, first.session.path, branched.path]
        expected = [("medium", 4), ("low", 0), ("high", 6)]
        restored = restart(module, files)
        for file, (level, messages), got in zip(files, expected, restored, strict=True):
            assert got["level"] == level and got["shown"] == [f"thinking level: {level}"], (
                f"a new process opening {file.name} with open_chat restored the level "
                f"{got['level']!r} and `/thinking` answered {got['shown']!r}; the file's "
                f"level in force is {level!r}: read it from the entries on the path from "
                "the leaf, which is all a restarted program has",
                level_at,
            )
            assert got["messages"] == messages, (
                f"a new process opening {file.name} restored {got['messages']} messages, not "
                f"{messages}: a thinking level must never become a message",
                module.thinking_command,
            )

        # --- Resumed, the leaf a thinking_level_change: the next switch hangs under it -------
        resumed_chat = module.open_chat(path)
        assert resumed_chat.model == "scripted-v2", (
            f"reopened with open_chat, the model is {resumed_chat.model}, not scripted-v2: "
            "the thinking level change after /model must leave the model switch on the path",
            append,
        )
        switch(module, append, resumed_chat, "low", leaf="e7", new_id="e8")

        # --- Old readers: the step's own reader still reads the conversation ----------------
        for file, messages in [(path, chat.messages), (branched.path, branched.messages)]:
            resumed = Session.open(file)
            assert resumed.skipped == 0 and resumed.context.messages == messages, (
                f"the step's own reader skipped {resumed.skipped} lines of {file.name} and "
                f"restored {len(resumed.context.messages)} of its {len(messages)} messages: "
                "write the entry with the fields shown, so an older reader skips it",
                append,
            )
    return (
        "`/thinking high` wrote one thinking_level_change through session.append_entry, under "
        "the leaf, and the next turn hung under it (e1 <- ... <- e5); so did `/thinking "
        "medium` right after /model (under the model_change) and `/thinking low` in a "
        "resumed session whose leaf was that change; a session's first "
        f"`/thinking low` created the file with its header; `/thinking` alone, the level in "
        f"force and {len(unknown)} unknown levels wrote nothing; at {len(leaves)} leaves of a "
        "branched file the level was the last change on the path, not in the file; "
        f"{len(damaged) - 3} untrustworthy levels fell back to {DEFAULT}, a broken chain "
        "ended the path, and a model switch or a newer kind after the change left it in "
        "force; a new process reopening {len(files)} files restored "
        f"{', '.join(level for level, _ in expected)}; the step's own reader still restores "
        "every message"
    )


# --- The steps of the check ---------------------------------------------------------------


def new_chat(module: ModuleType, folder: Path, name: str) -> Any:
    session = Session.create(
        folder, session_id=name, created_at="2026-01-01T12:00:00.000Z", cwd=str(folder)
    )
    chat = module.ThinkingChat(session, [], cursor=0)
    assert chat.thinking == DEFAULT, "ThinkingChat is given: keep `thinking: str = DEFAULT_LEVEL`"
    return chat


def say(chat: Any, question: str, answer: str) -> None:
    """A turn as main.py runs it: two messages in memory, then saved past the cursor."""
    chat.messages += [user_text(question), assistant_message(answer)]
    chat.save_new()


def command(module: ModuleType, chat: Any, line: str) -> list[str]:
    """The lines `line` answers; a command that raises or answers nothing is a FAIL."""
    try:
        result = module.run_command(chat, line)
    except (AssertionError, NotImplementedError):
        raise
    except Exception as error:
        raise AssertionError(
            f"`{line}` raised {type(error).__name__}: {error}: a command answers in lines "
            "(one saying what is wrong, for bad input) and never raises",
            module.thinking_command,
        ) from error
    assert isinstance(result, CommandResult) and not result.exit, (
        f"`{line}` returned {result!r}: return a CommandResult with the lines to print",
        module.thinking_command,
    )
    assert result.lines and all(isinstance(shown, str) for shown in result.lines), (
        f"`{line}` answered {result.lines!r}: answer at least one line of text, so the user "
        "sees what happened",
        module.thinking_command,
    )
    return result.lines


def expect_shown(module: ModuleType, chat: Any, level: str, when: str) -> None:
    size = size_of(chat.session.path)
    lines = command(module, chat, "/thinking")
    assert lines == [f"thinking level: {level}"], (
        f"`/thinking` {when} answered {lines!r}; it should answer one line, "
        f"'thinking level: {level}' (the level in force)",
        module.thinking_command,
    )
    assert size_of(chat.session.path) == size, (
        "`/thinking` alone wrote to the session file: showing the level writes nothing",
        module.thinking_command,
    )


def refused(module: ModuleType, chat: Any, argument: str, before: bytes | None, level: str) -> None:
    """`/thinking ARGUMENT` must answer, and leave the file, the leaf and the level alone."""
    leaf, messages = chat.session.leaf_id, list(chat.messages)
    command(module, chat, f"/thinking {argument}")
    after = chat.session.path.read_bytes() if chat.session.path.exists() else None
    if argument == level:
        why = f"{level} is already in force"
    else:
        why = f"{argument!r} is not one of {', '.join(LEVELS)}"
    assert after == before and chat.session.leaf_id == leaf, (
        f"`/thinking {escaped(argument)}` wrote to the session file, but {why}: answer one "
        "line and "
        "write nothing (a line in the file is forever)",
        module.thinking_command,
    )
    assert chat.thinking == level and chat.messages == messages, (
        f"`/thinking {escaped(argument)}` changed the chat (thinking {chat.thinking!r}, "
        f"{len(chat.messages)} messages), but {why}: leave it as it was",
        module.thinking_command,
    )


def switch(
    module: ModuleType,
    append: Callable[..., Any],
    chat: Any,
    level: str,
    leaf: str | None,
    new_id: str,
) -> None:
    """`/thinking LEVEL`: one entry, through append_entry, under the leaf; the leaf moves."""
    path, session = chat.session.path, chat.session
    before = path.read_bytes() if path.exists() else b""
    messages, cursor, mark = list(chat.messages), chat.cursor, len(WRITTEN)
    command(module, chat, f"/thinking {level}")
    after = path.read_bytes() if path.exists() else b""
    ours = [entry for entry in WRITTEN[mark:] if entry["type"] == KIND]
    added = after[len(before) :].count(b"\n")
    assert after.startswith(before), (
        f"`/thinking {level}` changed bytes already in the file: a session file is only "
        "ever appended to",
        append,
    )
    if after == before and not WRITTEN[mark:]:
        raise AssertionError(
            f"`/thinking {level}` wrote nothing to the session file, though {level} is not "
            f"in force: append a {KIND} entry (append_thinking_level_change), so that a "
            "restarted program can find the switch",
            module.thinking_command,
        )
    if WRITTEN[mark:] and not ours:
        raise AssertionError(
            f"`/thinking {level}` wrote {orjson.dumps(WRITTEN[mark]).decode()} through "
            f"session.append_entry; it should write one {KIND} entry",
            append,
        )
    if not ours:
        raise AssertionError(
            f"`/thinking {level}` added {added} line(s) to the file, but not through "
            f"session.append_entry: the session's leaf is still {session.leaf_id}, so the "
            "next entry would hang beside the switch instead of under it, and --continue "
            "would not find it. Write it with session.append_entry(kind, fields), the one "
            "write path: it numbers the entry, hangs it under the leaf, writes a new file's "
            "header first, and moves the leaf",
            append,
        )
    assert len(ours) == 1 and added == (1 if before else 2) and len(WRITTEN) == mark + 1, (
        f"`/thinking {level}` wrote {len(WRITTEN) - mark} entries ({added} lines); it "
        f"should write exactly one {KIND} entry",
        append,
    )
    try:
        reading = read_session(path)
    except SessionError as error:
        raise AssertionError(
            f"after `/thinking {level}` the step's reader refuses the file ({error}): write "
            "only through session.append_entry",
            append,
        ) from None
    entry = reading.entries[-1]
    under = reading.by_id.get(str(leaf))
    assert entry.get("type") != KIND or entry.get("parentId") == leaf or under is None, (
        f"`/thinking {level}` hung the change under {entry.get('parentId')}, not under the "
        f"leaf {leaf}, a {under['type'] if under else ''} entry"
        + (" (the leaf right after /model)" if under and under["type"] == "model_change" else "")
        + ": hang it under the leaf, whatever its kind, and let session.append_entry do it. "
        f"Hung elsewhere, {leaf} drops off the path the conversation goes on from, and what "
        "it recorded is lost to --continue",
        append,
    )
    want = {"type": KIND, "id": new_id, "parentId": leaf, "thinkingLevel": level}
    got = {key: entry.get(key) for key in want}
    assert got == want and reading.skipped == 0, (
        f"`/thinking {level}` wrote {orjson.dumps(entry).decode()}; the file's last entry "
        f"should be {orjson.dumps(want).decode()} (other fields may follow): the kind "
        f"{KIND}, one field thinkingLevel holding the level typed",
        append,
    )
    assert session.leaf_id == new_id, (
        f"after `/thinking {level}` the session's leaf is {session.leaf_id}, not the new "
        f"entry {new_id}: the next message must hang under the switch",
        append,
    )
    assert chat.thinking == level, (
        f"after `/thinking {level}` chat.thinking is {chat.thinking!r}: the chat holds the "
        "level in force, as chat.model holds the model",
        module.thinking_command,
    )
    assert chat.messages == messages and chat.cursor == cursor, (
        f"`/thinking {level}` changed the messages or the cursor: a command never becomes "
        "a message; only the entry records it",
        module.thinking_command,
    )


class Branched:
    def __init__(self, path: Path, entries: dict[str, Entry], messages: list[Message]) -> None:
        self.path, self.entries, self.messages = path, entries, messages


def branched_file(folder: Path) -> tuple[Branched, dict[str | None, str]]:
    """e1 user, e2 low, e3 assistant, e4 high, e5 user, e6 assistant, e7 medium (a branch
    left behind: the leaf goes back to e6), e8 user, e9 assistant. Written by the check.

    At e9 the path's last change is e4 (high), the file's last is e7 (medium), the path's
    first is e2 (low), and the default is off: four different answers, one right."""
    session = Session.create(folder, session_id="branched", created_at="2026", cwd="/")
    asked = [user_text("what is 12*8"), assistant_message("12*8 = 96.")]
    session.append_message(asked[0])
    session.append_entry(KIND, {"thinkingLevel": "low"})
    session.append_message(asked[1])
    session.append_entry(KIND, {"thinkingLevel": "high"})
    later = [user_text("hello"), assistant_message("Hello!")]
    for message in later:
        session.append_message(message)
    session.append_entry(KIND, {"thinkingLevel": "medium"})  # e7
    session.leaf_id = "e6"  # back to e6: e7 is left on a branch of its own
    last = [user_text("what was the result"), assistant_message("The last result was 96.")]
    for message in last:
        session.append_message(message)
    leaves: dict[str | None, str] = {
        "e9": "high",
        "e7": "medium",
        "e3": "low",
        "e1": DEFAULT,
        None: DEFAULT,
    }
    return Branched(session.path, dict(session.entries), asked + later + last), leaves


def wrong_level(entries: dict[str, Entry], leaf: str | None, got: object, want: str) -> str:
    """What a wrong answer at `leaf` is, in the student's terms."""
    in_file = [e for e in entries.values() if e["type"] == KIND]
    asked = f"thinking_level_at(entries, {leaf!r}) gave {got!r}; the level in force is {want!r}"
    if in_file and got == in_file[-1]["thinkingLevel"] and got != want:
        return (
            f"{asked}, the last change on the path from the leaf. {got!r} is the last change "
            f"in the FILE ({in_file[-1]['id']}), on a branch the leaf is not on: walk "
            "path_to_leaf(entries, leaf_id).entries, not the entries in file order"
        )
    if got == "low" and want == "high":
        return f"{asked}: that is the first change on the path; the LAST one wins"
    if got == DEFAULT:
        return f"{asked}: the path from {leaf} holds a {KIND}; the last one on it decides"
    return f"{asked}, the last {KIND} on the path from the leaf (DEFAULT_LEVEL if none)"


def damaged_paths() -> list[tuple[str, dict[str, Entry], str]]:
    """Paths to e4 whose last change cannot be trusted, or which break below the change."""

    def entries(last: dict[str, Any], parent_of_e3: str = "e2") -> dict[str, Entry]:
        return {
            "e1": {"type": "message", "id": "e1", "parentId": None, "message": user_text("hi")},
            "e2": {"type": KIND, "id": "e2", "parentId": "e1", "thinkingLevel": "high"},
            "e3": {"type": "message", "id": "e3", "parentId": parent_of_e3, "message": HELLO},
            "e4": {"id": "e4", "parentId": "e3", **last},
        }

    change = {"type": KIND}
    message = {"type": "message", "message": user_text("and now?")}
    return [
        (
            "a path whose last change names the level 'ultra'",
            entries(change | {"thinkingLevel": "ultra"}),
            DEFAULT,
        ),
        ("a path whose last change has no thinkingLevel", entries(change), DEFAULT),
        (
            "a path whose last change has the level 7",
            entries(change | {"thinkingLevel": 7}),
            DEFAULT,
        ),
        (
            "a path whose last change holds a list for its level",
            entries(change | {"thinkingLevel": ["high"]}),
            DEFAULT,
        ),
        (
            "a path whose last change holds an object for its level",
            entries(change | {"thinkingLevel": {"level": "high"}}),
            DEFAULT,
        ),
        (
            "a path where a model switch follows the change to high, and ends on it",
            entries({"type": "model_change", "model": "scripted-v2"}),
            "high",
        ),
        (
            "a path where an entry of a kind this step does not know follows the change",
            entries({"type": "x_later_kind", "note": {"by": "a newer program"}}),
            "high",
        ),
        (
            "a path whose chain breaks at e3 (its parent e0 is not in the file), so the high "
            "in e2 is not on it",
            entries(message, parent_of_e3="e0"),
            DEFAULT,
        ),
    ]


HELLO = assistant_message("Hello!")


def ask(
    level_at: Callable[..., Any], entries: dict[str, Entry], leaf: str | None, what: str
) -> Any:
    try:
        return level_at(entries, leaf)
    except (AssertionError, NotImplementedError):
        raise
    except Exception as error:
        raise AssertionError(
            f"thinking_level_at(entries, {leaf!r}) raised {type(error).__name__}: {error} on "
            f"{what}: a file is data; walk path_to_leaf(entries, leaf_id), which stops at a "
            "break, and read a field with .get()",
            level_at,
        ) from error


def restart(module: ModuleType, files: list[Path]) -> list[dict[str, Any]]:
    """Open each file in a new process with the student's module loaded afresh."""
    target = str(Path(module.__file__).resolve())
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, target, str(STEP_DIR), *map(str, files)],
            cwd=files[0].parent,
            capture_output=True,
            text=True,
            timeout=CHILD_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"a new process opening the files with open_chat took over {CHILD_SECONDS} s",
            module.thinking_level_at,
        ) from None
    if done.returncode != 0:
        errors = done.stderr.strip().splitlines()
        raise AssertionError(
            "a new process opening the session files with open_chat failed: "
            f"{errors[-1] if errors else f'exit status {done.returncode}'}",
            module.thinking_level_at,
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def escaped(text: str) -> str:
    """Text for a FAIL line: a control character typed in a test is shown, never obeyed."""
    return repr(text)[1:-1]


def size_of(path: Path) -> int | None:
    return path.stat().st_size if path.exists() else None
