"""Check 04.2: a session's name is one entry written through the session's one write path, a
command that writes nothing for bad input, a name read from the path from the leaf by a
process that knows nothing but the file, and a session list titled by it.

- The write path. `Session.append_entry` is wrapped (before the student's module is loaded,
  so any way of reaching it counts) and every entry it writes is recorded. `/name TEXT`
  after a turn must write exactly one `session_info` through it, under the leaf, and move the
  leaf; the next turn hangs under it, a rename appends another; the first `/name` of a
  session with nothing written yet creates the file with its header.
- Bad input. `/name` alone and the name in force leave the file as it was, and the chat's
  name too.
- The path, not the file. In a file with a branch the last name in the file is on a branch
  the leaf is not on; the name asked at five leaves is the last one on each one's path, and
  each expected value differs from the file's last, the path's first and None. A title with
  no name is the first user message of the path, in a file whose first user message is on
  an abandoned tree.
- A real restart. A child process loads the student's module afresh, opens each file with
  `open_chat` and lists the folder with `list_sessions`: nothing of this process survives
  into it, so only what the files hold can come back.
- Old readers. The step's own reader reads the files with no line skipped and the
  conversation intact.
"""

from __future__ import annotations

import json
import os
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
from messages import Message, assistant_message, preview, user_text
from session import Session, SessionError, read_session

STEP_DIR = Path(session_module.__file__).resolve().parent
KIND = "session_info"
CHILD_SECONDS = 20  # a fresh interpreter opening a few small files: well under 1 s
LONG = "please tell me, what is the sum of 2+3 and why does it matter to you"
LONG_MESSAGE = user_text(LONG)
WIDE_NAME = "税务 Fragen für 2026"  # three scripts, and spaces: a name is any text

WRITTEN: list[Entry] = []  # every entry written through Session.append_entry, in order

# The child: load the student's module afresh, open each file as --continue would, list the
# folder as --resume would, and say what came back. It shares nothing with the check but the
# files.
CHILD = """
import importlib.util, json, sys
target, step_dir, folder, *paths = sys.argv[1:]
sys.path.insert(0, step_dir)
spec = importlib.util.spec_from_file_location("ex2_session_name", target)
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)
opened = []
for path in paths:
    chat = module.open_chat(path)
    shown = module.run_command(chat, "/name").lines
    opened.append({"name": chat.name, "shown": list(shown), "messages": len(chat.messages)})
rows = [[row.path.name, row.title] for row in module.list_sessions(folder)]
print(json.dumps({"opened": opened, "rows": rows}))
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
    append, name_at = module.append_session_name, module.session_name_at
    title = module.session_title
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)

        # --- A session with nothing written yet: showing and refusing leave no file ---------
        chat = new_chat(module, folder, "talked")
        path = chat.session.path
        command(module, chat, "/name")
        assert not path.exists(), (
            "`/name` alone wrote to the session file: showing the name writes nothing",
            module.name_command,
        )

        # --- After a turn: one entry under the leaf, through the one write path -------------
        say(chat, "what is 12*8", "12*8 = 96.")  # e1, e2
        named(module, append, chat, "tax questions", leaf="e2", new_id="e3")
        expect_shown(module, chat, "tax questions")
        before = path.read_bytes()
        refused(module, chat, "tax questions", before=before, name="tax questions")
        say(chat, "what was the result", "The last result was 96 (12*8).")  # e4, e5
        named(module, append, chat, "arithmetic", leaf="e5", new_id="e6")  # a rename appends
        chain = [(e["id"], e["parentId"]) for e in read_session(path).entries]
        want_chain = [(f"e{n}", f"e{n - 1}" if n > 1 else None) for n in range(1, 7)]
        assert chain == want_chain, (
            f"after a name, a turn and a rename the file's ids and parents are {chain}; they "
            "should run e1 <- e2 <- ... <- e6: write each entry with session.append_entry, "
            "so the session numbers it and moves its leaf",
            append,
        )

        # --- The first write of a session: the file is created with its header --------------
        first = new_chat(module, folder, "first-write")
        named(module, append, first, "draft", leaf=None, new_id="e1")

        # --- A name in any script, of several words: all of it is the name ------------------
        wide = new_chat(module, folder / "more", "wide")  # another folder: not in the list
        named(module, append, wide, WIDE_NAME, leaf=None, new_id="e1")
        expect_shown(module, wide, WIDE_NAME)

        # --- A branched file: the name is the last one on the path, not in the file ---------
        branched, leaves = branched_file(folder)
        for leaf, want in leaves.items():
            got = ask(name_at, "session_name_at", branched.entries, leaf, "a branched file")
            if got != want:
                raise AssertionError(wrong_name(branched.entries, leaf, got, want), name_at)
        for what, entries, leaf, want in among_other_kinds():
            got = ask(name_at, "session_name_at", entries, leaf, what)
            if got != want:
                raise AssertionError(wrong_name(entries, leaf, got, want), name_at)
        for what, entries in untrustworthy():
            got = ask(name_at, "session_name_at", entries, "e3", what)
            assert got is None, (
                f"session_name_at gave {got!r} for {what}; expected None: when the last "
                "session_info on the path holds no string name, the session has no name",
                name_at,
            )

        # --- Titles: the name in force, else the path's first user message ----------------
        rerooted = rerooted_file(folder)
        cases = titles(branched.entries, rerooted)
        for what, entries, leaf, want in cases:
            got = ask(title, "session_title", entries, leaf, what)
            if got != want:
                raise AssertionError(wrong_title(what, got, want), title)

        # --- A real restart: a new process, the files and nothing else ----------------------
        broken = folder / "unusable.jsonl"
        broken.write_bytes(b'{"type":"header","version":7}\n')  # not listed: no session
        files = [path, first.session.path, branched.path, rerooted.path, broken]
        for age, file in enumerate(files):  # newest first: talked, first-write, ...
            os.utime(file, (1_800_000_000 - 10 * age, 1_800_000_000 - 10 * age))
        expected = [("arithmetic", 4), ("draft", 0), ("arithmetic", 6), (None, 2)]
        opened = files[:-1]
        restored = restart(module, folder, opened)
        for file, (name, messages), got in zip(opened, expected, restored["opened"], strict=True):
            shown_ok = got["shown"] == [f"session name: {name}"] if name else bool(got["shown"])
            assert got["name"] == name and shown_ok, (
                f"a new process opening {file.name} with open_chat restored the name "
                f"{got['name']!r} and `/name` answered {got['shown']!r}; the file's name in "
                f"force is {name!r}: read it from the entries on the path from the leaf, "
                "which is all a restarted program has",
                name_at,
            )
            assert got["messages"] == messages, (
                f"a new process opening {file.name} restored {got['messages']} messages, not "
                f"{messages}: a name must never become a message",
                module.name_command,
            )
        want_rows = [
            ["talked.jsonl", "arithmetic"],
            ["first-write.jsonl", "draft"],
            ["branched.jsonl", "arithmetic"],
            ["rerooted.jsonl", "what is 2+3"],
        ]
        assert restored["rows"] == want_rows, (
            f"a new process listing the folder with list_sessions got the rows (file, title) "
            f"{restored['rows']}; expected {want_rows}: each title is the name in force, "
            "else the first user message on the path",
            title,
        )

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
        "`/name TEXT` wrote one session_info through session.append_entry, under the leaf, "
        "and a turn and a rename hung under it (e1 <- ... <- e6); a session's first `/name` "
        "created the file with its header; `/name` alone and the name in force wrote "
        "nothing; a name of four words in "
        f"three scripts was kept whole; at {len(leaves)} leaves of a branched file, and on "
        f"{len(among_other_kinds())} paths where other kinds follow the name (one ending on a "
        "model switch), the name was the last one on the path, not in the file; "
        f"{len(untrustworthy())} names that are no string gave none; {len(cases)} titles "
        "were the name in force, else the path's first user message; a new process "
        f"reopening {len(expected)} files restored their names and listed them with those "
        "titles, newest first, leaving out an unusable file; the step's own reader still "
        "restores every message"
    )


# --- The steps of the check ---------------------------------------------------------------


def new_chat(module: ModuleType, folder: Path, name: str) -> Any:
    session = Session.create(
        folder, session_id=name, created_at="2026-01-01T12:00:00.000Z", cwd=str(folder)
    )
    chat = module.NamedChat(session, [], cursor=0)
    assert chat.name is None, "NamedChat is given: keep `name: str | None = None`"
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
            f"`{escaped(line)}` raised {type(error).__name__}: {error}: a command answers "
            "in lines (one saying what is wrong, for bad input) and never raises",
            module.name_command,
        ) from error
    assert isinstance(result, CommandResult) and not result.exit, (
        f"`{escaped(line)}` returned {result!r}: return a CommandResult with the lines to print",
        module.name_command,
    )
    assert result.lines and all(isinstance(shown, str) for shown in result.lines), (
        f"`{escaped(line)}` answered {result.lines!r}: answer at least one line of text, so "
        "the user sees what happened",
        module.name_command,
    )
    return result.lines


def expect_shown(module: ModuleType, chat: Any, name: str) -> None:
    size = chat.session.path.stat().st_size
    lines = command(module, chat, "/name")
    assert lines == [f"session name: {name}"], (
        f"`/name` after `/name {name}` answered {lines!r}; it should answer one line, "
        f"'session name: {name}' (the name in force)",
        module.name_command,
    )
    assert chat.session.path.stat().st_size == size, (
        "`/name` alone wrote to the session file: showing the name writes nothing",
        module.name_command,
    )


def refused(
    module: ModuleType, chat: Any, argument: str, before: bytes | None, name: str | None
) -> None:
    """`/name ARGUMENT` must answer, and leave the file, the leaf and the name alone."""
    leaf, messages = chat.session.leaf_id, list(chat.messages)
    command(module, chat, f"/name {argument}")
    after = chat.session.path.read_bytes() if chat.session.path.exists() else None
    why = "that is already the session's name"
    assert after == before and chat.session.leaf_id == leaf, (
        f"`/name {escaped(argument)}` wrote to the session file, but {why}: answer one line "
        "and write nothing (a line in the file is forever)",
        module.name_command,
    )
    assert chat.name == name and chat.messages == messages, (
        f"`/name {escaped(argument)}` changed the chat (name {chat.name!r}, "
        f"{len(chat.messages)} messages), but {why}: leave it as it was",
        module.name_command,
    )


def named(
    module: ModuleType,
    append: Callable[..., Any],
    chat: Any,
    name: str,
    leaf: str | None,
    new_id: str,
) -> None:
    """`/name NAME`: one entry, through append_entry, under the leaf; the leaf moves."""
    path, session = chat.session.path, chat.session
    before = path.read_bytes() if path.exists() else b""
    messages, cursor, mark = list(chat.messages), chat.cursor, len(WRITTEN)
    command(module, chat, f"/name {name}")
    after = path.read_bytes() if path.exists() else b""
    ours = [entry for entry in WRITTEN[mark:] if entry["type"] == KIND]
    added = after[len(before) :].count(b"\n")
    assert after.startswith(before), (
        f"`/name {name}` changed bytes already in the file: a session file is only ever "
        "appended to (a rename is one more entry)",
        append,
    )
    if after == before and not WRITTEN[mark:]:
        raise AssertionError(
            f"`/name {name}` wrote nothing to the session file: append a {KIND} entry "
            "(append_session_name), so that a restarted program and the session list can "
            "find the name",
            module.name_command,
        )
    if WRITTEN[mark:] and not ours:
        raise AssertionError(
            f"`/name {name}` wrote {orjson.dumps(WRITTEN[mark]).decode()} through "
            f"session.append_entry; it should write one {KIND} entry",
            append,
        )
    if not ours:
        raise AssertionError(
            f"`/name {name}` added {added} line(s) to the file, but not through "
            f"session.append_entry: the session's leaf is still {session.leaf_id}, so the "
            "next entry would hang beside the name instead of under it, and --continue "
            "would not find it. Write it with session.append_entry(kind, fields), the one "
            "write path: it numbers the entry, hangs it under the leaf, writes a new file's "
            "header first, and moves the leaf",
            append,
        )
    assert len(ours) == 1 and added == (1 if before else 2) and len(WRITTEN) == mark + 1, (
        f"`/name {name}` wrote {len(WRITTEN) - mark} entries ({added} lines); it should "
        f"write exactly one {KIND} entry",
        append,
    )
    try:
        reading = read_session(path)
    except SessionError as error:
        raise AssertionError(
            f"after `/name {name}` the step's reader refuses the file ({error}): write only "
            "through session.append_entry",
            append,
        ) from None
    entry = reading.entries[-1]
    want = {"type": KIND, "id": new_id, "parentId": leaf, "name": name}
    got = {key: entry.get(key) for key in want}
    assert got == want and reading.skipped == 0, (
        f"`/name {name}` wrote {orjson.dumps(entry).decode()}; the file's last entry should "
        f"be {orjson.dumps(want).decode()} (other fields may follow): the kind "
        f"{KIND}, one field name holding the whole text typed, spaces and all",
        append,
    )
    assert session.leaf_id == new_id, (
        f"after `/name {name}` the session's leaf is {session.leaf_id}, not the new entry "
        f"{new_id}: the next message must hang under it",
        append,
    )
    assert chat.name == name, (
        f"after `/name {name}` chat.name is {chat.name!r}: the chat holds the name in force, "
        "as chat.model holds the model",
        module.name_command,
    )
    assert chat.messages == messages and chat.cursor == cursor, (
        f"`/name {name}` changed the messages or the cursor: a command never becomes a "
        "message; only the entry records it",
        module.name_command,
    )


class Written:
    """A file the check wrote itself, its entries, and the messages on its leaf's path."""

    def __init__(self, session: Session, messages: list[Message]) -> None:
        self.path, self.entries, self.messages = session.path, dict(session.entries), messages


def branched_file(folder: Path) -> tuple[Written, dict[str | None, str | None]]:
    """e1 user, e2 "draft", e3 assistant, e4 "arithmetic", e5 user, e6 assistant,
    e7 "greetings" (a branch left behind: the leaf goes back to e6), e8 user, e9 assistant.

    At e9 the path's last name is e4's, the file's last is e7's, the path's first is e2's,
    and None is what a reader that found nothing would say: four answers, one right."""
    session = Session.create(folder, session_id="branched", created_at="2026", cwd="/")
    asked = [user_text("what is 12*8"), assistant_message("12*8 = 96.")]
    session.append_message(asked[0])
    session.append_entry(KIND, {"name": "draft"})
    session.append_message(asked[1])
    session.append_entry(KIND, {"name": "arithmetic"})
    later = [user_text("hello"), assistant_message("Hello!")]
    for message in later:
        session.append_message(message)
    session.append_entry(KIND, {"name": "greetings"})  # e7
    session.leaf_id = "e6"  # back to e6: e7 is left on a branch of its own
    last = [user_text("what was the result"), assistant_message("The last result was 96.")]
    for message in last:
        session.append_message(message)
    leaves: dict[str | None, str | None] = {
        "e9": "arithmetic",
        "e7": "greetings",
        "e3": "draft",
        "e1": None,
        None: None,
    }
    return Written(session, asked + later + last), leaves


def rerooted_file(folder: Path) -> Written:
    """e1 user "hello", e2 named "old tree", e3 assistant; then a new first entry (the leaf
    back to None, as a branch from the very start): e4 user "what is 2+3", e5 assistant.

    The leaf's path is e4, e5: no name on it, and its first user message is not the file's."""
    session = Session.create(folder, session_id="rerooted", created_at="2026", cwd="/")
    session.append_message(user_text("hello"))
    session.append_entry(KIND, {"name": "old tree"})
    session.append_message(assistant_message("Hello!"))
    session.leaf_id = None
    asked = [user_text("what is 2+3"), assistant_message("2+3 = 5.")]
    for message in asked:
        session.append_message(message)
    return Written(session, asked)


def untrustworthy() -> list[tuple[str, dict[str, Entry]]]:
    """Paths e1..e3 whose last session_info holds no string name, under a good one."""

    def entries(last: dict[str, Any]) -> dict[str, Entry]:
        return {
            "e1": {"type": "message", "id": "e1", "parentId": None, "message": user_text("hi")},
            "e2": {"type": KIND, "id": "e2", "parentId": "e1", "name": "kept?"},
            "e3": {"type": KIND, "id": "e3", "parentId": "e2", **last},
        }

    return [
        ("a path whose last session_info has the name 7", entries({"name": 7})),
        ("a path whose last session_info has an object for its name",
         entries({"name": {"first": "tax", "then": ["questions"]}})),
        ("a path whose last session_info has a list for its name", entries({"name": ["tax"]})),
        ("a path whose last session_info has the name true", entries({"name": True})),
        ("a path whose last session_info has no name field", entries({})),
        ("a path whose last session_info has the name null", entries({"name": None})),
    ]


def among_other_kinds() -> list[tuple[str, dict[str, Entry], str | None, str | None]]:
    """(what, entries, leaf, the name expected): paths where the name is followed by entries
    of other kinds (a model switch, a kind this step does not know), and end on one."""

    def entry(entry_id: str, parent: str | None, kind: str, **fields: Any) -> Entry:
        return {"type": kind, "id": entry_id, "parentId": parent, **fields}

    path = {
        "e1": entry("e1", None, "message", message=user_text("what is 12*8")),
        "e2": entry("e2", "e1", KIND, name="tax questions"),
        "e3": entry("e3", "e2", "model_change", model="scripted-v2"),
        "e4": entry("e4", "e3", "x_later_kind", note={"by": "a newer program"}),
        "e5": entry("e5", "e4", "message", message=user_text("what was the result")),
    }
    return [
        ("a path where a model switch and a newer kind follow the name", path, "e5",
         "tax questions"),
        ("a path that ends on a model switch after the name", path, "e3", "tax questions"),
    ]  # fmt: skip


def titles(
    branched: dict[str, Entry], rerooted: Written
) -> list[tuple[str, dict[str, Entry], str | None, str]]:
    """(what, entries, leaf, the title expected), each expected title unlike the wrong ones."""
    named = {
        "e1": {"type": "message", "id": "e1", "parentId": None, "message": user_text(LONG)},
        "e2": {"type": KIND, "id": "e2", "parentId": "e1", "name": "long questions"},
    }
    unnamed = {"e1": named["e1"]}
    empty = {"e1": {"type": KIND, "id": "e1", "parentId": None, "name": 7}}
    turns = {
        "e1": {"type": "message", "id": "e1", "parentId": None,
               "message": user_text("the first question")},
        "e2": {"type": "message", "id": "e2", "parentId": "e1",
               "message": assistant_message("An answer.")},
        "e3": {"type": "message", "id": "e3", "parentId": "e2",
               "message": user_text("the second question")},
        "e4": {"type": KIND, "id": "e4", "parentId": "e3", "name": ["not", "a", "name"]},
    }  # fmt: skip
    cases = [
        ("a branched file at e9", branched, "e9", "arithmetic"),
        ("a branched file at e1 (no name on the path yet)", branched, "e1", "what is 12*8"),
        (
            "a file whose first user message ('hello') is on a tree the leaf left behind, "
            "with the only name on that tree too",
            rerooted.entries,
            "e5",
            "what is 2+3",
        ),
        ("a named session whose first message is long", named, "e2", "long questions"),
        ("an unnamed session whose first message is long", unnamed, "e1", preview(LONG_MESSAGE)),
        ("a session with no message and no usable name", empty, "e1", "(no user message)"),
        (
            "an unnamed session of two turns (its last session_info holds a list), at a leaf "
            "that is no message",
            turns,
            "e4",
            "the first question",
        ),
        ("an empty session", {}, None, "(no user message)"),
    ]
    return cases


def wrong_name(entries: dict[str, Entry], leaf: str | None, got: object, want: str | None) -> str:
    """What a wrong name at `leaf` is, in the student's terms."""
    in_file = [e for e in entries.values() if e["type"] == KIND]
    asked = f"session_name_at(entries, {leaf!r}) gave {got!r}; the name in force is {want!r}"
    if in_file and got == in_file[-1]["name"] and got != want:
        return (
            f"{asked}, the last session_info on the path from the leaf. {got!r} is the last "
            f"name in the FILE ({in_file[-1]['id']}), on a branch the leaf is not on: walk "
            "path_to_leaf(entries, leaf_id).entries, not the entries in file order"
        )
    if got == "draft" and want == "arithmetic":
        return f"{asked}: that is the first name on the path; the LAST one wins (a rename)"
    if got is None:
        return f"{asked}: the path from {leaf} holds a {KIND}; the last one on it decides"
    return f"{asked}, the name of the last {KIND} on the path from the leaf (None if none)"


def wrong_title(what: str, got: object, want: str) -> str:
    shown = quoted(got) if isinstance(got, str) else repr(got)
    title = f"session_title gave {shown} for {what}; expected {quoted(want)}"
    if got == "hello":
        return (
            f"{title}: 'hello' is the first user message in the FILE, on a tree the leaf "
            "left behind; take the first user message on the path from the leaf"
        )
    if got == "old tree":
        return f"{title}: 'old tree' names a tree the leaf left behind, not the leaf's path"
    if got == LONG:
        return f"{title}: show the message as the list does, with preview()"
    return f"{title}: the name in force, else preview() of the path's first user message"


def quoted(text: str) -> str:
    """'text' for a FAIL line, every control character shown escaped."""
    return f"'{escaped(text)}'"


def escaped(text: str) -> str:
    """Text for a FAIL line: a control character is shown, never obeyed."""
    return repr(text)[1:-1]


def ask(
    function: Callable[..., Any],
    name: str,
    entries: dict[str, Entry],
    leaf: str | None,
    what: str,
) -> Any:
    try:
        return function(entries, leaf)
    except (AssertionError, NotImplementedError):
        raise
    except Exception as error:
        raise AssertionError(
            f"{name}(entries, {leaf!r}) raised {type(error).__name__}: {error} on {what}: a "
            "file is data; walk path_to_leaf(entries, leaf_id), which stops at a break, and "
            "read a field with .get()",
            function,
        ) from error


def restart(module: ModuleType, folder: Path, files: list[Path]) -> dict[str, Any]:
    """Open each file, and list the folder, in a new process with the student's module."""
    target = str(Path(module.__file__).resolve())
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, target, str(STEP_DIR), str(folder), *map(str, files)],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=CHILD_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"a new process opening the files with open_chat took over {CHILD_SECONDS} s",
            module.session_name_at,
        ) from None
    if done.returncode != 0:
        errors = done.stderr.strip().splitlines()
        raise AssertionError(
            "a new process opening the session files with open_chat and listing them with "
            f"list_sessions failed: {errors[-1] if errors else f'exit {done.returncode}'}",
            module.session_name_at,
        )
    return json.loads(done.stdout.strip().splitlines()[-1])
