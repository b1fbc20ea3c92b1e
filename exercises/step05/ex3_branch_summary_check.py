"""Check 05.3: a move that leaves messages behind appends one `branch_summary` entry under its
branch entry, through the one write path, summarising exactly what was left behind (the old
leaf's path below the common ancestor); the model is given the summary as a note where the
entry is on the path, before and after a real restart; the note is never saved as a message;
bad input, and a move that leaves no message behind, write no summary.

- left_behind is asked directly on a mapping that is no dict, for targets above the old
  leaf and on another branch: "the target's side", "everything below the target" and
  "walk up until the target" each give another answer.
- Real turns (the step's loop and scripted model) build the tree; four moves follow: back
  up the same branch, across to another branch (the common ancestor is not the target), up
  again, and a move that leaves only a branch and a summary entry behind. Every user question
  and tool result in the file has a text of its own, so a summary is judged by which of them
  it holds: all of those left behind, none of the others (the path moved to, an older branch,
  an older summary).
- The model is a recording stand-in for the scripted one: what it is GIVEN on the turn after
  each move must hold the notes of the path's summaries, in place. After each turn the
  entries written are the turn's messages, and no note.
- A real restart: a child process loads the student's module afresh, reopens the file with
  `open_chat`, runs a turn and reports what the model was given.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import session as session_module
from commands import Chat, CommandResult
from entries import Entry, build_context, path_to_leaf
from loop import run_turn
from messages import (
    Message,
    ToolCallBlock,
    assistant_message,
    history_problem,
    preview,
    text_of,
    tool_result,
    user_text,
)
from model import DEFAULT_MODEL, MODELS, ModelEvent
from session import Session
from tools import Tool, default_tools

STEP_DIR = Path(session_module.__file__).resolve().parent
KIND = "branch_summary"
CHILD_SECONDS = 20

WRITTEN: list[Entry] = []  # every entry written through Session.append_entry, in order

# The child: load the student's module afresh, reopen the file as --continue would, run one
# turn with a model that records what it is given, and report it.
CHILD = """
import importlib.util, json, sys
target, step_dir, path = sys.argv[1:]
sys.path.insert(0, step_dir)
spec = importlib.util.spec_from_file_location("ex3_branch_summary", target)
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)
from loop import run_turn
from messages import user_text
from model import MODELS
from tools import default_tools
given = []
class Recorder:
    name = "recorder"
    def stream(self, messages, tools):
        given.append([dict(m) for m in messages])
        return MODELS["scripted-v1"].stream(messages, tools)
chat = module.open_chat(path)
for _ in run_turn(Recorder(), default_tools(), chat.messages, user_text("what is 3*3")):
    pass
print(json.dumps({"given": given[0][:-1]}))
"""


def before_load() -> None:
    """Record every entry the one write path writes, whoever calls it."""
    real = Session.append_entry

    def recording(self: Session, kind: str, fields: Any) -> Entry:
        entry = real(self, kind, fields)
        WRITTEN.append(entry)
        return entry

    Session.append_entry = recording  # type: ignore[method-assign]


def check(module: ModuleType) -> str:
    lookups = direct_left_behind(module.left_behind)
    longest = direct_summaries(module)
    untrusted = direct_untrusted_summaries(module.context_with_summaries)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        session = Session.create(folder, session_id="summaries", created_at="2026", cwd="/")
        chat = Chat(session, [], cursor=0)
        ids: dict[str, str] = {}

        say(module, chat, "hello", ids)  # e1 e2
        command(module, chat, "/model scripted-v2")  # e3: in force on the first branch
        say(module, chat, "what is 12*8", ids)  # e4..e7
        say(module, chat, "what was the result", ids)  # e8 e9: two turns, two questions
        command(module, chat, "/model scripted-v1")  # e10: the move starts at a model_change
        # Up the same branch, right after /model: e3..e10 are left behind (two questions); the
        # moves back to the first branch later must bring scripted-v2 back.
        move(module, chat, f"/branch {ids['answer hello']}", summary=True)  # e11, e12
        say(module, chat, "what is 7*6", ids)  # e11..e14: the model must see e10's note
        for line, why in [
            ("/branch", "it names no entry"),
            ("/branch e99", "there is no entry e99"),
            (f"/branch {ids['call what is 12*8']}", "that entry is a tool call"),
            (f"/branch {chat.session.leaf_id}", "that entry is already the leaf"),
        ]:
            refused(module, chat, line, why)
        # Across to the first branch: the common ancestor is e2, not the target e6.
        move(module, chat, f"/branch {ids['answer what is 12*8']}", summary=True)  # e15, e16
        summary_2 = chat.session.leaf_id
        say(module, chat, "what is 2**10", ids)  # e17..e20
        move(module, chat, f"/branch {summary_2}", summary=True)  # e21, e22
        # Only a branch and a summary are left behind: no new summary, the older one stays.
        move(module, chat, f"/branch {summary_2}", summary=False)  # e23
        say(module, chat, "what is 9*9", ids)  # e24..e27: the model must still see e16's note
        path = chat.session.path

        resumed = Session.open(path)
        assert resumed.skipped == 0, (
            f"the step's reader skipped {resumed.skipped} lines: write with session.append_entry",
            module.branch_command,
        )
        plain = resumed.context
        expected = expected_context(resumed.session.entries, resumed.session.leaf_id)
        assert plain.messages == [m for kind, m in expected if kind == "message"], (
            "the step's own reader (which skips branch_summary entries, as steps 03 and 04 do) "
            "does not restore the conversation: the summary must be an entry of its own kind, "
            "never a message",
            module.branch_command,
        )

        restarted = restart(module, path)
        problem = compare(restarted, expected)
        if problem:
            raise AssertionError(
                "a new process that reopened the file with open_chat and ran a turn gave the "
                f"model {len(restarted)} messages: {problem}",
                module.context_with_summaries,
            )
    paired = direct_pairing(module.context_with_summaries)
    return (
        f"left_behind gave the old path below the common ancestor for {lookups} moves, up and "
        "across; summarize_branch gave '' for no message and "
        f"{longest} characters (the limit is {module.SUMMARY_LIMIT}) for 160 messages; of 4 "
        "real moves, the 3 that left messages behind each wrote one branch_summary under "
        "their branch entry, holding "
        "every user question and tool result left behind and none of the file's others, and "
        "the move that left none wrote none; 4 bad /branch commands wrote nothing; on the 3 "
        "turns that followed moves (the first made right after /model, each move followed "
        "by the model in force at its leaf) the model was given the notes of the summaries on the "
        "path, in place, and no note was saved as a message; a new process reopening the "
        "file gave the model the same; the step's own reader still restores the conversation; "
        f"{untrusted} branch_summary entries whose summary is no string (a list, an object, "
        "null, none at all) gave the model no note; on a path with a summary and "
        f"{paired} tool calls and results that do not pair up, the context was the step's own "
        "(a lost result answered in memory, a result without its call left out), with the "
        "note in place"
    )


# --- left_behind and summarize_branch on their own -------------------------------------------


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


def message_entry(number: int, parent: int | None, role: str, text: str) -> Entry:
    message: Message = user_text(text) if role == "user" else assistant_message(text)
    return {
        "type": "message",
        "id": f"e{number}",
        "parentId": f"e{parent}" if parent else None,
        "message": message,
    }


def direct_left_behind(left_behind: Callable[..., Any]) -> int:
    """e1 e2 e3 e4 e5 is the first branch; e6 (a branch back to e2) e7 e8 the second."""
    tree = Entries(
        [
            message_entry(1, None, "user", "hello"),
            message_entry(2, 1, "assistant", "Hello!"),
            message_entry(3, 2, "user", "a"),
            message_entry(4, 3, "assistant", "A."),
            message_entry(5, 4, "user", "b"),
            {"type": "branch", "id": "e6", "parentId": "e2", "fromId": "e5"},
            message_entry(7, 6, "user", "c"),
            message_entry(8, 7, "assistant", "C."),
        ]
    )
    cases = [
        ("e8", "e4", ["e6", "e7", "e8"], "a target on another branch (common ancestor e2)"),
        ("e5", "e2", ["e3", "e4", "e5"], "a target above the old leaf"),
        ("e5", "e1", ["e2", "e3", "e4", "e5"], "the first entry as the target"),
        ("e8", "e6", ["e7", "e8"], "a target above the old leaf that is a branch entry"),
        ("e4", "e8", ["e3", "e4"], "a target on another branch, below its own branch entry"),
    ]
    for old, target, want, what in cases:
        try:
            got = left_behind(tree, old, target)
        except (AssertionError, NotImplementedError):
            raise
        except Exception as error:
            raise AssertionError(
                f"left_behind(entries, {old!r}, {target!r}) raised {type(error).__name__}: "
                f"{error}; entries is a mapping id -> entry: use path_to_leaf, `in`, [] or .get",
                left_behind,
            ) from error
        got_ids = [e.get("id") if isinstance(e, dict) else e for e in got or []]
        if got_ids == want:
            continue
        asked = (
            f"left_behind(entries, {old!r}, {target!r}) gave {got_ids}, for {what}; expected "
            f"{want}, the old leaf's path below the common ancestor"
        )
        old_ids = [e["id"] for e in path_to_leaf(tree, old).entries]
        new_ids = [e["id"] for e in path_to_leaf(tree, target).entries]
        shared = [i for i in old_ids if i in new_ids]
        if got_ids and all(i in new_ids for i in got_ids) and not set(got_ids) & set(want):
            asked += (
                f": {got_ids} is on the path to the TARGET, the branch moved to; what is left "
                "behind is on the path from the OLD leaf"
            )
        elif set(got_ids) & set(shared):
            on_both = [i for i in got_ids if i in shared]
            asked += (
                f": {on_both} are on the path to the target too (the model keeps them); stop "
                "at the deepest entry the two paths share"
            )
        elif got_ids == []:
            asked += ": the target is not always on the old leaf's path; compare the two paths"
        raise AssertionError(asked, left_behind)
    return len(cases)


def direct_summaries(module: ModuleType) -> int:
    summarize, limit = module.summarize_branch, module.SUMMARY_LIMIT
    quiet = [
        {"type": "branch", "id": "e6", "parentId": "e2", "fromId": "e5"},
        {"type": KIND, "id": "e7", "parentId": "e6", "fromId": "e5", "summary": "asked: x"},
    ]
    for entries, what in [([], "no entry"), (quiet, "only a branch and a summary entry")]:
        got = summarize(entries)
        assert got == "", (
            f"summarize_branch gave {got!r} for {what}; it should give '' when no message is "
            "left behind (and then no summary is written)",
            summarize,
        )
    long_branch = []
    for turn in range(40):
        base = 4 * turn + 1
        long_branch += [
            message_entry(base, base - 1 or None, "user", f"question {turn} " + "why? " * 30),
            message_entry(base + 1, base, "assistant", "Let me see. " * 20),
            message_entry(base + 2, base + 1, "user", "tool said " + "9" * 500),
            message_entry(base + 3, base + 2, "assistant", "So there. " * 20),
        ]
    got = summarize(long_branch)
    assert isinstance(got, str) and 0 < len(got) <= limit, (
        f"summarize_branch gave {len(got) if isinstance(got, str) else got!r} characters for a "
        f"branch of {len(long_branch)} messages; a summary is short: at most SUMMARY_LIMIT "
        f"({limit}) characters, so cut it short",
        summarize,
    )
    return len(got)


def direct_untrusted_summaries(context_with_summaries: Callable[..., Any]) -> int:
    """A file is data: a branch_summary whose summary is no string gives the model no note."""
    odd: list[dict[str, Any]] = [{"summary": ["asked: x"]}, {"summary": {"text": "x"}},
                                 {"summary": None}, {}]  # fmt: skip
    entries = [message_entry(1, None, "user", "hello")]
    for number, fields in enumerate(odd, start=2):
        entries.append({"type": KIND, "id": f"e{number}", "parentId": f"e{number - 1}",
                        "fromId": "e1", **fields})  # fmt: skip
    last = len(entries) + 1
    entries.append(message_entry(last, last - 1, "user", "what is 2+3"))
    try:
        context = context_with_summaries(Entries(entries), f"e{last}")
    except (AssertionError, NotImplementedError):
        raise
    except Exception as error:
        raise AssertionError(
            f"context_with_summaries raised {type(error).__name__}: {error} on a path whose "
            "branch_summary entries hold a list, an object, null and no summary at all: a "
            "file is data; read the field with .get() and make a note of a string only",
            context_with_summaries,
        ) from error
    texts = [text_of(message) for message in context.messages]
    assert texts == ["hello", "what is 2+3"], (
        f"context_with_summaries gave the model {texts!r} for a path whose branch_summary "
        "entries hold a list, an object, null and no summary at all; it should give "
        "['hello', 'what is 2+3']: a summary that is no string is no note",
        context_with_summaries,
    )
    return len(odd)


def direct_pairing(context_with_summaries: Callable[..., Any]) -> int:
    """Tool calls and results as the step's own build_context pairs them, the note in place:
    e2's call lost its result (e3 is an entry of a kind this step does not know), e5 is a
    result whose call is not on the path, and the path ends on e7's call, which has none."""
    call_1: ToolCallBlock = {"type": "toolCall", "id": "call_1", "name": "calc",
                             "arguments": {"expression": "6*7"}}  # fmt: skip
    call_2: ToolCallBlock = {**call_1, "id": "call_2"}
    stray: ToolCallBlock = {**call_1, "id": "call_9"}
    summary = "asked: what is 2**10000; result: too large"
    chain: list[dict[str, Any]] = [
        {"type": "message", "message": user_text("what is 6*7")},
        {"type": "message", "message": assistant_message("Let me calculate that.", [call_1])},
        {"type": "x_later_kind"},  # where call_1's result would be: a kind no step knows
        {"type": KIND, "fromId": "e1", "summary": summary},
        {"type": "message", "message": tool_result(stray, "81")},
        {"type": "message", "message": user_text("and 7*6?")},
        {"type": "message", "message": assistant_message("Let me calculate that.", [call_2])},
    ]
    entries = Entries([
        {"id": f"e{n}", "parentId": f"e{n - 1}" if n > 1 else None, **fields}
        for n, fields in enumerate(chain, start=1)
    ])  # fmt: skip
    try:
        context = context_with_summaries(entries, "e7")
    except (AssertionError, NotImplementedError):
        raise
    except Exception as error:
        raise AssertionError(
            f"context_with_summaries raised {type(error).__name__}: {error} on a path with an "
            "entry of a kind this step does not know: walk it as build_context does",
            context_with_summaries,
        ) from error
    plain = build_context(entries, "e7").messages  # the step's own pairing
    want = plain[:3] + [("note", summary)] + plain[3:]
    given = list(context.messages)
    notes = [i for i, m in enumerate(given) if is_note(m, summary)]
    without = [m for i, m in enumerate(given) if i not in notes]
    if without == plain and notes == [3]:
        return 3
    said = (
        f"context_with_summaries gave the model {[preview(m)[:30] for m in given]} for a path "
        "with a summary and tool calls that do not pair up"
    )
    problem = history_problem(without)
    if problem is not None:
        raise AssertionError(
            f"{said}; a chat API refuses that ({problem[:160]}). The step's build_context "
            "pairs them (read it): an error result in memory for a call whose result is lost, "
            "no result without its call; do the same, with the notes in place",
            context_with_summaries,
        )
    raise AssertionError(
        f"{said}; expected the step's own context with the note in place: "
        f"{[preview(m)[:30] if isinstance(m, dict) else 'note' for m in want]}",
        context_with_summaries,
    )


# --- Driving the chat ------------------------------------------------------------------------


class Recorder:
    """The scripted model, recording what it is given on every call."""

    name = "recorder"

    def __init__(self, model_name: str) -> None:
        self.inner = MODELS[model_name]
        self.given: list[list[Message]] = []

    def stream(self, messages: Sequence[Message], tools: Sequence[Tool]) -> Iterator[ModelEvent]:
        self.given.append(list(messages))
        return self.inner.stream(messages, tools)


MOVES: list[tuple[str, str]] = []  # (the command, the summary entry's id or "") of each move


def say(module: ModuleType, chat: Chat, text: str, ids: dict[str, str]) -> None:
    """One real turn, saved as main.py saves it; what the model is given is recorded."""
    recorder = Recorder(chat.model)
    before_messages = len(chat.messages)
    mark = len(WRITTEN)
    for _ in run_turn(recorder, default_tools(), chat.messages, user_text(text)):
        pass
    chat.save_new()
    turn = chat.messages[before_messages:]
    written = WRITTEN[mark:]
    got = [e["message"] for e in written if e["type"] == "message"]
    if got != turn or len(written) != len(turn):
        notes = [m for m in got if m not in turn]
        raise AssertionError(
            f"the turn '{text}' after `{MOVES[-1][0] if MOVES else ''}` saved "
            f"{len(written)} entries, not its {len(turn)} messages"
            + (
                f": it saved the note {preview(notes[0])!r} as a message too. The note is in "
                "the file already, as the branch_summary entry: chat.follow(context) counts it "
                "in the cursor"
                if notes
                else ""
            ),
            module.branch_command,
        )
    # Ids for the commands to come, from the entries just written.
    ids[text] = written[0]["id"]
    ids[f"call {text}"] = written[1]["id"] if len(written) > 2 else written[0]["id"]
    ids[f"answer {text}"] = written[-1]["id"]
    if MOVES:
        expected = expected_context(chat.session.entries, written[0]["parentId"])
        problem = compare(recorder.given[0][:-1], expected)
        if problem:
            command, summary_id = MOVES[-1]
            raise AssertionError(
                f"on the turn after `{command}` the model was given "
                f"{len(recorder.given[0]) - 1} messages before the question: {problem}",
                module.context_with_summaries if summary_id else module.branch_command,
            )


def expected_context(entries: Mapping[str, Entry], leaf: str | None) -> list[tuple[str, Any]]:
    """("message", message) and ("note", summary text), in path order."""
    expected: list[tuple[str, Any]] = []
    for entry in path_to_leaf(entries, leaf).entries:
        if entry["type"] == "message":
            expected.append(("message", entry["message"]))
        elif entry["type"] == KIND:
            expected.append(("note", entry["summary"]))
    return expected


def is_note(message: Any, summary: str) -> bool:
    return (
        isinstance(message, dict) and message.get("role") == "user" and summary in text_of(message)  # type: ignore[arg-type]
    )


def compare(given: list[Any], expected: list[tuple[str, Any]]) -> str | None:
    """What is wrong with `given` as the model's context, or None."""
    summaries = [summary for kind, summary in expected if kind == "note"]
    wanted = [i for i, (kind, _) in enumerate(expected) if kind == "note"]
    plain = [m for kind, m in expected if kind == "message"]
    for summary in summaries:
        if not any(is_note(message, summary) for message in given):
            return (
                f"none holds the summary {summary[:60]!r}, though its branch_summary entry is "
                "on the path: give the model a note of each summary on the path "
                "(context_with_summaries), and chat.follow it after every move"
            )
    extra = [
        message
        for message in given
        if not any(is_note(message, s) for s in summaries) and message not in plain
    ]
    if extra:
        shown = preview(extra[0])[:60] if isinstance(extra[0], dict) else repr(extra[0])
        return (
            f"{len(extra)} of them (the first: {shown!r}) {'is' if len(extra) == 1 else 'are'} "
            "neither a message nor a note of a "
            "summary on the path from the leaf: a summary on another branch (or anywhere else "
            "in the file) is not this conversation's"
        )
    for summary, index in zip(summaries, wanted, strict=True):
        places = [i for i, message in enumerate(given) if is_note(message, summary)]
        if index not in places:
            return (
                f"the note of {summary[:40]!r} is message {places[0] + 1}; its entry comes "
                f"after message {index} on the path: put each note where its summary is"
            )
    others = [m for i, m in enumerate(given) if i not in wanted]
    if len(given) != len(expected) or others != plain:
        return (
            f"expected the {len(plain)} messages of the path from the leaf with "
            f"{len(summaries)} note(s) in place, {len(expected)} in all"
        )
    return None


def command(module: ModuleType, chat: Chat, line: str) -> list[str]:
    try:
        result = module.run_command(chat, line)
    except (AssertionError, NotImplementedError):
        raise
    except Exception as error:
        raise AssertionError(
            f"`{line}` raised {type(error).__name__}: {error}: a command answers in lines "
            "and never raises",
            module.branch_command,
        ) from error
    assert isinstance(result, CommandResult) and result.lines, (
        f"`{line}` returned {result!r}: return a CommandResult with at least one line",
        module.branch_command,
    )
    return list(result.lines)


def move(module: ModuleType, chat: Chat, line: str, summary: bool) -> None:
    """The step's branch entry, then one branch_summary under it (or none)."""
    session = chat.session
    old_leaf = session.leaf_id
    assert old_leaf is not None
    mark = len(WRITTEN)
    before = session.path.read_bytes()
    lines = command(module, chat, line)
    after = session.path.read_bytes()
    new = WRITTEN[mark:]
    kinds = [e["type"] for e in new]
    assert after.startswith(before) and after.count(b"\n") - before.count(b"\n") == len(new), (
        f"`{line}` changed the file other than through session.append_entry",
        module.branch_command,
    )
    assert kinds and kinds[0] in ("branch", KIND), (
        f"`{line}` answered {lines} and wrote {kinds or 'nothing'}: call step_branch_command",
        module.branch_command,
    )
    if kinds[0] == KIND:
        raise AssertionError(
            f"`{line}` wrote {kinds}: the summary went in before the move, so it hangs under "
            "the old leaf, on the branch left behind, where the new branch never sees it. "
            "Move first (step_branch_command), then append the summary under the branch entry",
            module.branch_command,
        )
    branch = new[0]
    target = branch["parentId"]
    left = left_behind_ids(session.entries, old_leaf, target)
    left_messages = [session.entries[i] for i in left if session.entries[i]["type"] == "message"]
    if not summary:
        assert kinds == ["branch"], (
            f"`{line}` wrote {kinds}, but it left no message behind (only "
            f"{', '.join(left)}: a branch and a summary entry): write no summary",
            module.branch_command,
        )
        MOVES.append((line, ""))
        check_chat(module, chat, line)
        return
    if kinds == ["branch"]:
        raise AssertionError(
            f"`{line}` left {len(left_messages)} messages behind ({left_messages[0]['id']}.."
            f"{left_messages[-1]['id']}) but wrote no {KIND} entry: append one under the "
            "branch entry with session.append_entry, so the summary is in the file"
            + (
                "; a note in chat.messages alone is gone at the next start"
                if len(chat.messages)
                > len(build_context(session.entries, session.leaf_id).messages)
                else ""
            ),
            module.branch_command,
        )
    if kinds != ["branch", KIND]:
        raise AssertionError(
            f"`{line}` wrote {kinds}; it should write a branch entry and one {KIND} entry"
            + (
                ": a summary written as a message is a message the user never typed, shown "
                "as theirs by /tree and by every older reader; give it its own kind"
                if "message" in kinds
                else ""
            ),
            module.branch_command,
        )
    entry = new[1]
    text = entry.get("summary")
    assert entry.get("parentId") == branch["id"] and entry.get("fromId") == old_leaf, (
        f"`{line}` wrote the summary {entry['id']} under {entry.get('parentId')} with fromId "
        f"{entry.get('fromId')!r}; it hangs under the branch entry {branch['id']}, and its "
        f"fromId is the old leaf {old_leaf}",
        module.branch_command,
    )
    assert isinstance(text, str) and text, (
        f"`{line}` wrote a summary whose summary is {text!r}: it should be the text",
        module.summarize_branch,
    )
    judge_summary(module, chat, line, text, left_messages)
    MOVES.append((line, entry["id"]))
    check_chat(module, chat, line)


def left_behind_ids(entries: Mapping[str, Entry], old_leaf: str, target: str) -> list[str]:
    old = [e["id"] for e in path_to_leaf(entries, old_leaf).entries]
    new = {e["id"] for e in path_to_leaf(entries, target).entries}
    return [i for i in old if i not in new]


def judge_summary(module: ModuleType, chat: Chat, line: str, text: str, left: list[Entry]) -> None:
    """Every question and tool result left behind is in it; none from anywhere else."""
    left_ids = {e["id"] for e in left}
    entries = chat.session.entries
    kept = {
        e_id: entries[e_id]
        for e_id in entries
        if entries[e_id]["type"] == "message"
        and entries[e_id]["message"]["role"] in ("user", "toolResult")
    }
    on_path = {e["id"] for e in path_to_leaf(entries, chat.session.leaf_id).entries}
    for e_id, entry in kept.items():
        said = text_of(entry["message"])
        if e_id in left_ids:
            assert said in text, (
                f"`{line}` wrote the summary {text[:120]!r}, which lacks {said!r}, a "
                f"{entry['message']['role']} message left behind ({e_id}): hold every user "
                "question and tool result left behind",
                module.summarize_branch,
            )
        elif said in text:
            where = (
                "on the path the conversation continues on (the model still has it)"
                if e_id in on_path
                else "on a branch that was left before this move (or in an older summary)"
            )
            raise AssertionError(
                f"`{line}` wrote the summary {text[:120]!r}, which holds {said!r} ({e_id}), "
                f"{where}: summarise only what this move leaves behind, the old leaf's path "
                "below the common ancestor",
                module.left_behind,
            )


def check_chat(module: ModuleType, chat: Chat, line: str) -> None:
    """After a move: the chat is the context with notes, all counted by the cursor, and the
    model is the one in force at the new leaf."""
    session = chat.session
    expected = expected_context(session.entries, session.leaf_id)
    recorded = build_context(session.entries, session.leaf_id).model
    assert chat.model == (recorded or DEFAULT_MODEL), (
        f"after `{line}` chat.model is {chat.model}; the path from the new leaf switched to "
        f"{recorded}: the context given to chat.follow carries the model in force at the "
        "leaf, as build_context finds it (the step's /branch set it; the context with "
        "summaries must not lose it)",
        module.context_with_summaries,
    )
    problem = compare(chat.messages, expected)
    if problem:
        raise AssertionError(
            f"after `{line}` chat.messages holds {len(chat.messages)} messages: {problem}",
            module.branch_command,
        )
    assert chat.cursor == len(chat.messages), (
        f"after `{line}` chat.cursor is {chat.cursor}, but chat.messages holds "
        f"{len(chat.messages)}: the next save would write the note as a message. Every message "
        "of the new context is in the file already (the note as its entry): "
        "chat.follow(context_with_summaries(...)) sets the cursor to all of them",
        module.branch_command,
    )


def refused(module: ModuleType, chat: Chat, line: str, why: str) -> None:
    mark, before = len(WRITTEN), chat.session.path.read_bytes()
    leaf, messages = chat.session.leaf_id, list(chat.messages)
    command(module, chat, line)
    assert len(WRITTEN) == mark and chat.session.path.read_bytes() == before, (
        f"`{line}` wrote {[e['type'] for e in WRITTEN[mark:]]}, but {why}: the step's /branch "
        "refuses it; when the leaf did not move, write nothing (no summary either)",
        module.branch_command,
    )
    assert chat.session.leaf_id == leaf and chat.messages == messages, (
        f"`{line}` changed the chat, but {why}: leave it as it was",
        module.branch_command,
    )


def restart(module: ModuleType, path: Path) -> list[Any]:
    target = str(Path(module.__file__).resolve())
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, target, str(STEP_DIR), str(path)],
            cwd=path.parent,
            capture_output=True,
            text=True,
            timeout=CHILD_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"a new process reopening the file took over {CHILD_SECONDS} s",
            module.context_with_summaries,
        ) from None
    if done.returncode != 0:
        errors = done.stderr.strip().splitlines()
        raise AssertionError(
            "a new process that reopened the file with open_chat and ran a turn failed: "
            f"{errors[-1] if errors else f'exit {done.returncode}'}",
            module.context_with_summaries,
        )
    return json.loads(done.stdout.strip().splitlines()[-1])["given"]
