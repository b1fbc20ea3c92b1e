"""Check 05.2: a label is one `label` entry written through the one write path, under the leaf,
that leaves the conversation as it was; `/branch NAME` moves to the target of the latest label
of that name, wherever in the file it was written, exactly as `/branch ID` would; bad input
and unknown names write nothing; and a new process that knows nothing but the file finds the
labels again.

- The write path. `Session.append_entry` is wrapped before the student's module is loaded
  and records every entry written. Each `/label` must write exactly one `label` entry
  through it, hung under the leaf, naming its target; the chat (messages, cursor, model)
  stays, and the conversation rebuilt from the new leaf is the one before. One label names
  an entry on a branch the conversation has left, so a label hung under its target would
  change the conversation.
- The tree. Real turns (the step's loop and scripted model) build two branches. The name
  `answer` is given twice, to entries on different branches; `/branch answer` is typed where
  no label is on the path, so the only right move is to the target of the LATEST label
  `answer` in the file: the first label's target, the path's, and "unknown" all differ from it.
- A real restart. A child process loads the student's module afresh, reopens the file with
  `open_chat` and types `/branch answer`: only labels read from the file can take it there.
- Bad input: `/label` alone, three words, an unknown id, two id-shaped names, a label in an
  empty session, `/branch` to an unknown name: one line each, no byte written, nothing moved.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import session as session_module
from commands import Chat, CommandResult
from entries import Entry, build_context, path_to_leaf
from loop import run_turn
from messages import tool_calls, user_text
from model import MODELS
from session import Session
from tools import default_tools

STEP_DIR = Path(session_module.__file__).resolve().parent
KIND = "label"
CHILD_SECONDS = 20  # a fresh interpreter opening one small file: about a second

WRITTEN: list[Entry] = []  # every entry written through Session.append_entry, in order
LABELS = BAD = 0  # how many `/label` commands labelled, and how many bad inputs were refused

# The child: load the student's module afresh, reopen the file as --continue would, type one
# command, and say where it went. It shares nothing with the check but the file.
CHILD = """
import importlib.util, json, sys
target, step_dir, path, line = sys.argv[1:]
sys.path.insert(0, step_dir)
spec = importlib.util.spec_from_file_location("ex2_labels", target)
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)
chat = module.open_chat(path)
before = chat.session.leaf_id
lines = module.run_command(chat, line).lines
leaf = chat.session.leaf_id
moved_to = chat.session.entries[leaf]["parentId"] if leaf != before else None
print(json.dumps({"lines": list(lines), "moved_to": moved_to, "messages": chat.messages}))
"""


def before_load() -> None:
    """Record every entry the one write path writes. Wrapped on the class, before the
    student's module is loaded, so every way of reaching it goes through the recorder."""
    real = Session.append_entry

    def recording(self: Session, kind: str, fields: Any) -> Entry:
        entry = real(self, kind, fields)
        WRITTEN.append(entry)
        return entry

    Session.append_entry = recording  # type: ignore[method-assign]


def check(module: ModuleType) -> str:
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)

        # --- Nothing to label yet: one line, no file ---------------------------------------
        chat = new_chat(folder)
        path = chat.session.path
        refused(module, chat, "/label early", "the session has no entry yet: nothing to label")
        assert not path.exists()

        # --- Labels on a tree of two branches ----------------------------------------------
        say(chat, "hello")  # e1 e2
        greeted = leaf(chat)
        labelled(module, chat, "/label greeted", "greeted", greeted)  # e3
        say(chat, "what is 12*8")  # e4..e7, under the label
        twelve = leaf(chat)
        call = next(e["id"] for e in path_entries(chat) if is_call(e))  # e5
        labelled(module, chat, "/label answer", "answer", twelve)  # e8
        moved(module, chat, "/branch greeted", greeted, "the label 'greeted'")  # e9
        # A label of an entry on the branch just left: the conversation must not follow it.
        labelled(module, chat, f"/label zwölf✓ {twelve}", "zwölf✓", twelve)  # e10: any script
        say(chat, "what is 2**10000")  # e11..e14
        too_large = leaf(chat)
        labelled(module, chat, f"/label answer {too_large}", "answer", too_large)  # e15
        first_answer = twelve

        # --- Bad input: one line, nothing written -------------------------------------------
        for line, why in [
            ("/label", "it names no label"),
            ("/label a b c", "it has three words: /label NAME [ID]"),
            ("/label lost e99", "e99 is no entry of the session"),
            (f"/label {greeted}", f"'{greeted}' reads as an entry id (`/branch {greeted}`)"),
            ("/label e99", "'e99' reads as an entry id (the id of an entry to come)"),
            ("/branch nosuch", "no entry and no label is called 'nosuch'"),
            ("/branch \x1b[2Jnosuch", "no entry and no label is called that"),
        ]:
            refused(module, chat, line, why)

        # --- A label of a tool call: the move goes through the step's own guards ------------
        labelled(module, chat, f"/label call {call}", "call", call)
        refused(
            module,
            chat,
            "/branch call",
            f"the label 'call' names {call}, a tool call, and the next message would follow a "
            "call without its result, a history a chat API refuses: the step's /branch "
            "refuses that move (make every move with step_branch_command, whose guards say so)",
        )

        # --- /branch NAME: the latest label, wherever it was written -----------------------
        moved(module, chat, f"/branch {greeted}", greeted, f"the entry {greeted}")  # e16
        assert not any(e["type"] == KIND for e in path_entries(chat))  # no label on the path
        moved(
            module,
            chat,
            "/branch answer",
            too_large,
            "the latest label 'answer'",
            first=first_answer,
        )  # e17
        moved(module, chat, "/branch zwölf✓", twelve, "the label 'zwölf✓'")  # e18
        say(chat, "what was the result")  # the next turn hangs under the move
        # Right after /model the leaf is a model_change: `/label NAME` names it, not a message.
        command(module, chat, "/model scripted-v2")
        labelled(module, chat, "/label switched", "switched", leaf(chat))

        # --- A real restart: a new process, the file and nothing else -----------------------
        restarted = restart(module, path, "/branch answer")
        expected = build_context(Session.open(path).session.entries, too_large).messages
        if restarted["moved_to"] != too_large or restarted["messages"] != expected:
            raise AssertionError(
                "a new process that reopened the file with open_chat and typed `/branch "
                f"answer` got {restarted['lines']} and "
                + (
                    "did not move: labels must be read back from the file's entries (they "
                    "are entries like any other), not kept in memory"
                    if restarted["moved_to"] is None
                    else f"moved to {restarted['moved_to']}, not to {too_large}, the target "
                    "of the latest label 'answer' in the file"
                ),
                module.label_target,
            )
        reopened = Session.open(path)
        assert reopened.context.messages == expected and reopened.skipped == 0, (
            "reopened by the step's own reader, the file does not hold the conversation the "
            "restarted `/branch answer` moved to: write every entry with session.append_entry",
            module.append_label,
        )

    # --- label_target on its own: file order, labels only -----------------------------------
    lookups = direct_lookups(module.label_target)
    return (
        f"each of {LABELS} `/label` commands wrote one label entry through session.append_entry, "
        "under the leaf, naming the leaf or the id given, and left the conversation and the "
        "chat as they were (one label named an entry on a branch left behind); `/branch "
        "NAME` moved where `/branch ID` would, to the latest label of the name even where "
        f"no label was on the path; {BAD} bad inputs (one a label of a tool call, refused as "
        "the step's /branch refuses it) answered one line and wrote nothing; `/label` right "
        "after /model named the model_change at the leaf; a new "
        "process reopening the file went to the latest label 'answer'; label_target "
        f"answered {lookups} lookups in a mapping that is no dict, in file order, other "
        "kinds with a name ignored"
    )


# --- Driving the chat ------------------------------------------------------------------------


def new_chat(folder: Path) -> Chat:
    session = Session.create(folder, session_id="labels", created_at="2026-01-01", cwd="/")
    return Chat(session, [], cursor=0)


def say(chat: Chat, text: str) -> None:
    """One real turn, saved: what main.py does with a line that is not a command."""
    for _ in run_turn(MODELS[chat.model], default_tools(), chat.messages, user_text(text)):
        pass
    chat.save_new()


def is_call(entry: Entry) -> bool:
    return entry["type"] == "message" and bool(tool_calls(entry["message"]))


def leaf(chat: Chat) -> str:
    assert chat.session.leaf_id is not None
    return chat.session.leaf_id


def path_entries(chat: Chat) -> list[Entry]:
    return path_to_leaf(chat.session.entries, chat.session.leaf_id).entries


def blamed(module: ModuleType, line: str) -> Callable[..., Any]:
    return module.label_command if line.startswith("/label") else module.branch_command


def command(module: ModuleType, chat: Chat, line: str) -> list[str]:
    try:
        result = module.run_command(chat, line)
    except (AssertionError, NotImplementedError):
        raise
    except Exception as error:
        raise AssertionError(
            f"`{line}` raised {type(error).__name__}: {error}: a command answers in lines "
            "(one saying what is wrong, for bad input) and never raises",
            blamed(module, line),
        ) from error
    assert isinstance(result, CommandResult) and not result.exit, (
        f"`{line}` returned {result!r}: return a CommandResult with the lines to print",
        blamed(module, line),
    )
    assert result.lines and all(isinstance(shown, str) for shown in result.lines), (
        f"`{line!r}` answered {result.lines!r}: answer at least one line of text",
        blamed(module, line),
    )
    return list(result.lines)


class State:
    """What a command must leave alone (or change in one way only)."""

    def __init__(self, chat: Chat) -> None:
        path = chat.session.path
        self.data = path.read_bytes() if path.exists() else None
        self.leaf = chat.session.leaf_id
        self.messages = list(chat.messages)
        self.cursor = chat.cursor
        self.model = chat.model
        self.written = len(WRITTEN)
        context = build_context(chat.session.entries, chat.session.leaf_id)
        self.context = (context.messages, context.model)


def labelled(module: ModuleType, chat: Chat, line: str, name: str, target: str) -> None:
    """One label entry, through append_entry, under the leaf; the conversation unchanged."""
    global LABELS
    LABELS += 1
    session, before = chat.session, State(chat)
    lines = command(module, chat, line)
    after = session.path.read_bytes()
    new = WRITTEN[before.written :]
    assert before.data is not None and after.startswith(before.data), (
        f"`{line}` changed bytes already in the file: a session file is only appended to",
        module.append_label,
    )
    if not new and after == before.data:
        raise AssertionError(
            f"`{line}` answered {lines} and wrote nothing to the session file: append a "
            f"{KIND} entry (append_label), so that a restarted program can find the label",
            module.label_command,
        )
    assert new, (
        f"`{line}` added to the file, but not through session.append_entry: the session's "
        f"leaf is still {session.leaf_id}, so the next entry would hang beside the label. "
        "Write it with session.append_entry(kind, fields), the one write path",
        module.append_label,
    )
    assert len(new) == 1 and after[len(before.data) :].count(b"\n") == 1, (
        f"`{line}` wrote {len(new)} entries; it should write exactly one {KIND} entry",
        module.append_label,
    )
    written = new[0]
    context = build_context(session.entries, session.leaf_id)
    if (context.messages, context.model) != before.context:
        raise AssertionError(
            f"`{line}` changed the conversation: the path from the new leaf "
            f"({session.leaf_id}, hung under {written.get('parentId')}) holds "
            f"{len(context.messages)} messages, the chat {len(before.messages)}. A label hangs "
            "under the leaf like any entry (session.append_entry does that) and only NAMES "
            "its target",
            module.append_label,
        )
    want = {"type": KIND, "parentId": before.leaf, "name": name, "targetId": target}
    got = {key: written.get(key) for key in want}
    kind = session.entries[target]["type"] if target in session.entries else None
    assert written.get("targetId") == target or kind == "message" or len(line.split()) > 2, (
        f"`{line}` labelled {written.get('targetId')}, not the leaf {target}, a {kind} entry "
        "(the leaf right after /model): with no ID, a label names the leaf, whatever its kind, "
        "so that `/branch NAME` comes back to exactly there (here, with the model switched to)",
        module.label_command,
    )
    assert got == want, (
        f"`{line}` wrote {json.dumps(dict(written))}; it should write {json.dumps(want)} "
        "(with the id the write path gives it)",
        module.append_label,
    )
    assert session.leaf_id == written["id"], (
        f"after `{line}` the session's leaf is {session.leaf_id}, not the label {written['id']}",
        module.append_label,
    )
    assert (chat.messages, chat.cursor, chat.model) == (
        before.messages,
        before.cursor,
        before.model,
    ), (
        f"`{line}` changed the chat (now {len(chat.messages)} messages, cursor "
        f"{chat.cursor}, model {chat.model}): a label is no message and moves nothing",
        module.label_command,
    )


def refused(module: ModuleType, chat: Chat, line: str, why: str) -> None:
    """One line, and the file, the leaf and the chat as they were."""
    global BAD
    BAD += 1
    before = State(chat)
    lines = command(module, chat, line)
    path = chat.session.path
    after = path.read_bytes() if path.exists() else None
    assert after == before.data and len(WRITTEN) == before.written, (
        f"`{line}` wrote to the session file, but {why}: answer one line and write nothing "
        "(a line in the file is forever)",
        blamed(module, line),
    )
    assert chat.session.leaf_id == before.leaf, (
        f"`{line}` moved the leaf to {chat.session.leaf_id}, but {why}: change nothing",
        blamed(module, line),
    )
    assert (chat.messages, chat.cursor, chat.model) == (
        before.messages,
        before.cursor,
        before.model,
    ), (f"`{line}` changed the chat, but {why}: leave it as it was", blamed(module, line))
    assert lines


def moved(
    module: ModuleType,
    chat: Chat,
    line: str,
    target: str,
    what: str,
    first: str | None = None,
) -> None:
    """One branch entry under `target`; the chat rebuilt from the new leaf."""
    session, before = chat.session, State(chat)
    lines = command(module, chat, line)
    new = WRITTEN[before.written :]
    if not new:
        raise AssertionError(
            f"`{line}` answered {lines} and moved nothing; it should move to {target}, "
            f"{what}"
            + (
                ", written on a branch the conversation has since left: labels are bookmarks "
                "for the whole file; look for them among all the session's entries, not on "
                "the path from the leaf"
                if first is not None
                else ""
            ),
            module.branch_command,
        )
    kinds = [e["type"] for e in new]
    assert kinds == ["branch"], (
        f"`{line}` wrote {kinds}; it should write one branch entry, as `/branch ID` does: "
        "call step_branch_command(chat, id)",
        module.branch_command,
    )
    went = new[0]["parentId"]
    if went != target:
        if went == first:
            raise AssertionError(
                f"`{line}` moved to {went}, the target of the FIRST label named 'answer'; "
                f"the latest label of a name wins ({target})",
                module.label_target,
            )
        raise AssertionError(
            f"`{line}` moved to {went}; it should move to {target}, {what}",
            module.branch_command,
        )
    expected = build_context(session.entries, session.leaf_id)
    assert chat.messages == expected.messages and chat.cursor == len(expected.messages), (
        f"after `{line}` chat.messages holds {len(chat.messages)} messages (cursor "
        f"{chat.cursor}); the conversation at the new leaf has {len(expected.messages)}: "
        "the next save would write under the new leaf a history it does not have. Call "
        "step_branch_command(chat, id), which rebuilds the messages, the cursor and the model",
        module.branch_command,
    )


# --- label_target on its own -----------------------------------------------------------------


class Entries(Mapping[str, Entry]):
    """A mapping id -> entry that is no dict (as a lazily decoded session's may be)."""

    def __init__(self, entries: list[Entry]) -> None:
        self._entries = {e["id"]: e for e in entries}

    def __getitem__(self, key: str) -> Entry:
        return self._entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


def direct_lookups(label_target: Callable[..., Any]) -> int:
    def label(number: int, name: str, target: str) -> Entry:
        parent = f"e{number - 1}" if number > 1 else None
        return {
            "type": KIND,
            "id": f"e{number}",
            "parentId": parent,
            "name": name,
            "targetId": target,
        }

    def message(number: int, text: str) -> Entry:
        parent = f"e{number - 1}" if number > 1 else None
        return {
            "type": "message",
            "id": f"e{number}",
            "parentId": parent,
            "message": user_text(text),
        }

    entries = Entries(
        [
            message(1, "hello"),
            label(2, "keep", "e1"),
            label(3, "other", "e1"),
            {"type": "session_info", "id": "e4", "parentId": "e3", "name": "keep"},
            message(5, "later"),
            label(6, "keep", "e5"),
            {
                "type": "session_info",
                "id": "e7",
                "parentId": "e6",
                "name": "other",
                "targetId": "e4",
            },
            # A file is data: labels whose name or target is no string name nothing.
            {"type": KIND, "id": "e8", "parentId": "e7", "name": ["keep"], "targetId": "e1"},
            {"type": KIND, "id": "e9", "parentId": "e8", "name": {"n": 1}, "targetId": "e1"},
            {"type": KIND, "id": "e10", "parentId": "e9", "name": "list", "targetId": ["e1"]},
            {"type": KIND, "id": "e11", "parentId": "e10", "name": "none", "targetId": None},
        ]
    )
    cases = [("keep", "e5"), ("other", "e1"), ("none", None), ("hello", None), ("list", None)]
    for name, want in cases:
        try:
            got = label_target(entries, name)
        except (AssertionError, NotImplementedError):
            raise
        except Exception as error:
            raise AssertionError(
                f"label_target(entries, {name!r}) raised {type(error).__name__}: {error}; "
                "entries is a mapping id -> entry: use `in`, [], iteration or .get",
                label_target,
            ) from error
        assert got == want, (
            f"label_target(entries, {name!r}) gave {got!r}, not {want!r}, for entries "
            "e1..e11 holding labels keep->e1 (e2), other->e1 (e3), keep->e5 (e6), two "
            "session_info entries with a name, and labels whose name (a list, an object) or "
            "target (a list, null) is no string: the latest LABEL entry of the name wins, "
            "and a name or target that is no string names nothing",
            label_target,
        )
    return len(cases)


def restart(module: ModuleType, path: Path, line: str) -> dict[str, Any]:
    """Reopen the file and type `line`, in a new process with the student's module."""
    target = str(Path(module.__file__).resolve())
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, target, str(STEP_DIR), str(path), line],
            cwd=path.parent,
            capture_output=True,
            text=True,
            timeout=CHILD_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"a new process reopening the file and typing `{line}` took over {CHILD_SECONDS} s",
            module.branch_command,
        ) from None
    if done.returncode != 0:
        errors = done.stderr.strip().splitlines()
        raise AssertionError(
            f"a new process that reopened the file with open_chat and typed `{line}` failed: "
            f"{errors[-1] if errors else f'exit {done.returncode}'}",
            module.branch_command,
        )
    return json.loads(done.stdout.strip().splitlines()[-1])
