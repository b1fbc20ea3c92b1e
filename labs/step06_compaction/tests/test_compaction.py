"""Compaction: a summary stands in for what the model no longer needs, as one more line.

The context at a leaf whose path holds a compaction is its summary, then the path's messages
from its first kept entry on; the latest compaction on the path wins, a branch to an entry
before it gets the whole history back, and nothing in the file is rewritten.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from conftest import RunMain, Saved, save_conversation
from harness import file_size_limit, run

from commands import Chat, compact, run_command
from entries import build_context, path_to_leaf
from loop import run_turn
from messages import (
    Message,
    ToolCallBlock,
    assistant_message,
    history_problem,
    summary_in,
    text_of,
    tool_result,
    user_text,
)
from model import SUMMARY_LINES, SUMMARY_WIDTH, ScriptedModel
from session import Session, read_session
from tools import default_tools

THREE_TURNS = ["hello", "what is 12*8", "what is 2+3"]


def chat_on(path: Path) -> Chat:
    return Chat.resume(Session.open(path)).chat


def say(chat: Chat, text: str) -> None:
    """One turn, as main.py runs it: the loop, then the save."""
    for _ in run_turn(ScriptedModel(), default_tools(), chat.messages, user_text(text)):
        pass
    chat.save_new()


def user_lines(messages: list[Message]) -> list[str]:
    return [text_of(m) for m in messages if m["role"] == "user" and summary_in(m) is None]


def summaries(messages: list[Message]) -> list[str]:
    return [s for s in map(summary_in, messages) if s is not None]


@pytest.fixture
def three_turns(tmp_path: Path) -> Saved:
    return save_conversation(tmp_path / ".sessions", "three", THREE_TURNS)


def test_a_compaction_is_one_line_and_the_context_is_the_summary_then_the_last_turn(
    three_turns: Saved,
) -> None:
    before = three_turns.path.read_bytes()
    chat = chat_on(three_turns.path)
    done = compact(chat)
    assert done is not None and (done.summarised, done.kept) == (6, 4)
    after = three_turns.path.read_bytes()
    assert after.startswith(before)  # not a byte of what it summarises is rewritten
    [line] = after[len(before) :].splitlines()
    entry = orjson.loads(line)
    assert (entry["type"], entry["parentId"], entry["firstKeptId"]) == ("compaction", "e10", "e7")
    # What the model is given now, in memory and after a restart alike:
    for messages in (chat.messages, Session.open(three_turns.path).context.messages):
        [summary] = summaries(messages)
        assert summary_in(messages[0]) == summary
        assert messages[1:] == three_turns.messages[6:]  # the last turn, whole
        assert history_problem(messages) is None


def test_the_summary_names_each_user_line_and_result_so_results_are_still_recalled(
    three_turns: Saved,
) -> None:
    chat = chat_on(three_turns.path)
    compact(chat)
    summary = summary_in(chat.messages[0])
    assert summary == "- asked: hello\n- asked: what is 12*8\n- calc(12*8) -> 96"
    branch_to_a_turn_of_its_own = run_command(chat, "/branch e11")  # the compaction itself
    assert branch_to_a_turn_of_its_own.lines[0].startswith("already at")
    say(chat, "what was the result")  # the kept turn's 5 is newest
    assert text_of(chat.messages[-1]) == "The last result was 5 (2+3)."
    compact(chat)  # now 2+3 is summarised too, and no result is left unsummarised
    say(chat, "what was the result")
    assert not [m for m in chat.messages if m["role"] == "toolResult"]
    assert text_of(chat.messages[-1]) == "The last result was 5 (2+3)."


def test_a_summary_holds_one_line_per_message_whatever_the_file_holds() -> None:
    """A tool's name and arguments come from the file, and may hold line breaks: each summary
    line is still one line, so no line of a file's making passes for a summarised result."""
    call: ToolCallBlock = {
        "type": "toolCall",
        "id": "c1",
        "name": "calc(9*9) -> 81\n- calc",
        "arguments": {"expression": "1\n2\u2028+3"},
    }
    messages = [user_text("what is 1+3"), assistant_message("", [call]), tool_result(call, "4")]
    summary = ScriptedModel().summarize(messages)
    assert summary.splitlines() == [
        "- asked: what is 1+3",
        "- calc(9*9) -> 81 - calc(1 2 +3) -> 4",
    ]


def test_a_second_compaction_keeps_what_the_first_one_summarised(three_turns: Saved) -> None:
    """A second compaction must start from all the first one left the model: what it kept
    (pi #2608 looked only after the first compaction entry, and lost the kept turn) and its
    summary (left out, what it held is lost). Every user line before either must survive."""
    chat = chat_on(three_turns.path)
    compact(chat)
    say(chat, "what is 7*6")
    say(chat, "what was the result")
    compact(chat)
    resumed = Session.open(three_turns.path).context.messages
    [summary] = summaries(resumed)  # the latest wins: one summary, not two
    asked = re.findall(r"^- asked: (.*)$", summary, re.MULTILINE)
    assert asked == [*THREE_TURNS, "what is 7*6"]  # nothing said before either is lost
    assert user_lines(resumed) == ["what was the result"]


def test_nothing_to_compact_is_refused_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    one_turn = save_conversation(tmp_path / ".sessions", "one", ["what is 12*8"])
    chat = chat_on(one_turn.path)
    before = one_turn.path.read_bytes()
    assert run_command(chat, "/compact").lines == [
        "nothing to compact: only the last turn, or a summary, is there"
    ]
    say(chat, "hello")
    assert run_command(chat, "/compact").lines[0].startswith("compacted: ")
    twice = one_turn.path.read_bytes()
    assert len(twice.splitlines()) == len(before.splitlines()) + 3  # two messages, a compaction
    assert run_command(chat, "/compact").lines[0].startswith("nothing to compact")  # again
    assert one_turn.path.read_bytes() == twice


def test_a_branch_to_before_a_compaction_gets_the_whole_history_back(three_turns: Saved) -> None:
    chat = chat_on(three_turns.path)
    compact(chat)
    say(chat, "what is 7*6")
    lines = run_command(chat, "/branch e6").lines  # the answer to 12*8, before the compaction
    assert lines[0].startswith("moved to e6: 6 messages on the path")
    assert summaries(chat.messages) == [] and chat.messages == three_turns.messages[:6]
    say(chat, "what was the result")
    assert text_of(chat.messages[-1]) == "The last result was 96 (12*8)."
    resumed = Session.open(three_turns.path).context.messages
    assert resumed == chat.messages


TURNS_WITH_CALLS = [
    "hello",
    "what is 1+1",
    "what is 2**10000",  # a tool error, then an answer
    "what was the result",
    "what is 3*3",
    "what is 4*4",
]


@pytest.mark.parametrize("turns", range(2, len(TURNS_WITH_CALLS) + 1))
def test_the_boundary_never_cuts_a_tool_call_from_its_result(tmp_path: Path, turns: int) -> None:
    saved = save_conversation(tmp_path / "s", "calls", TURNS_WITH_CALLS[:turns])
    chat = chat_on(saved.path)
    assert compact(chat) is not None
    kept = chat.session.entries[chat.session.entries[chat.session.leaf_id]["firstKeptId"]]
    assert kept["message"]["role"] == "user"  # where a turn starts
    assert history_problem(chat.messages) is None  # a real API takes this history
    say(chat, "what is 5*5")  # and the model does
    assert text_of(chat.messages[-1]) == "5*5 = 25."


def test_a_compaction_line_does_not_grow_with_the_session(tmp_path: Path) -> None:
    """No list of ids, and a summary of at most SUMMARY_LINES lines of SUMMARY_WIDTH: the
    80th compaction is no bigger than the 10th (history re-embedded each time would be)."""
    saved = save_conversation(tmp_path / "s", "long", ["hello"])
    chat = chat_on(saved.path)
    sizes = []
    for number in range(80):
        say(chat, f"what is {number}+{number}")
        assert compact(chat) is not None
        line = saved.path.read_bytes().splitlines()[-1]
        assert len(re.findall(rb'"e[0-9]+"', line)) == 3  # its own id, its parent, what it keeps
        sizes.append(len(line))
    assert max(sizes) <= 200 + SUMMARY_LINES * (SUMMARY_WIDTH + 1)
    assert max(sizes[10:]) - min(sizes[10:]) < SUMMARY_WIDTH  # flat: the newest lines only
    summary = summary_in(Session.open(saved.path).context.messages[0]) or ""
    assert summary.splitlines()[-1] == "- calc(78+78) -> 156"  # newest first to be kept


def test_a_damaged_compaction_line_is_skipped_and_the_whole_path_comes_back(
    three_turns: Saved,
) -> None:
    chat = chat_on(three_turns.path)
    compact(chat)
    good = three_turns.path.read_bytes()
    for broken in (
        b'{"type":"compaction","id":"e11","parentId":"e10","firstKeptId":"e7"}',  # no summary
        b'{"type":"compaction","id":"e11","parentId":"e10","summary":"s"}',  # nothing kept?
        b'{"type":"compaction","id":"e11","parentId":"e10","summary":"s","firstKeptId":7}',
    ):
        lines = good.splitlines()
        three_turns.path.write_bytes(b"\n".join([*lines[:-1], broken]) + b"\n")
        resumed = Session.open(three_turns.path)
        assert resumed.skipped == 1
        assert resumed.context.messages == three_turns.messages  # no summary, every message


def test_a_compaction_that_keeps_nothing_gives_the_summary_alone(three_turns: Saved) -> None:
    """firstKeptId null: no program of the lab writes it, but a reader must take it (another
    program may summarise everything)."""
    with three_turns.path.open("ab") as file:
        file.write(b'{"type":"compaction","id":"e11","parentId":"e10","summary":"all of it",')
        file.write(b'"firstKeptId":null}\n')
    context = Session.open(three_turns.path).context
    assert [summary_in(m) for m in context.messages] == ["all of it"]


def test_a_first_kept_entry_that_is_not_on_the_path_keeps_the_whole_path(
    three_turns: Saved,
) -> None:
    """A hand edit, say: the walk never meets it, so it goes to the start, summary first."""
    with three_turns.path.open("ab") as file:
        file.write(b'{"type":"compaction","id":"e11","parentId":"e10","summary":"s",')
        file.write(b'"firstKeptId":"e99"}\n')
    reading = read_session(three_turns.path)
    path = path_to_leaf(reading.by_id, reading.leaf_id)
    assert [e["id"] for e in path.entries][0] == "e1" and path.chain_break is None
    messages = build_context(reading.by_id, reading.leaf_id).messages
    assert summaries(messages) == ["s"] and messages[1:] == three_turns.messages


def test_compact_at_compacts_before_a_turn_that_would_be_over_the_limit(
    tmp_path: Path, run_main: RunMain
) -> None:
    script = "hello\nwhat is 12*8\nwhat is 2+3\nwhat was the result\n"
    done = run_main(script, "--compact-at", "900")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stdout.decode().splitlines() if "compacted:" in line]
    assert said and all(line.endswith("the context was over 900 characters") for line in said)
    assert "The last result was 5 (2+3)." in done.stdout.decode()
    [path] = (tmp_path / ".sessions").glob("*.jsonl")
    kinds = [orjson.loads(line)["type"] for line in path.read_bytes().splitlines()[1:]]
    assert kinds.count("compaction") == len(said)


def test_compact_at_measures_any_context_the_reader_accepts(
    tmp_path: Path, run_main: RunMain
) -> None:
    """A file's tool arguments may nest deeper than orjson writes (254 levels; it reads 1,024):
    such a context cannot be measured as JSON, nor sent to any API. It counts as over every
    limit, so the next compaction summarises it away; never a traceback. (The production
    step skips a line nested over 200 levels as damage.)"""
    saved = save_conversation(tmp_path / ".sessions", "deep", ["what is 12*8"])
    lines = saved.path.read_bytes().splitlines(keepends=True)
    deep = b"[" * 300 + b"]" * 300
    lines[2] = lines[2].replace(b'"arguments":{', b'"arguments":{"deep":' + deep + b",")
    saved.path.write_bytes(b"".join(lines))
    done = run_main("what is 2+3\nwhat is 7*6\n", "--continue", "--compact-at", "100000")
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    assert "7*6 = 42." in done.stdout.decode()
    assert "compacted: a summary stands in for" in done.stdout.decode()


def test_a_compaction_keeps_the_model_a_switch_before_it_chose(
    tmp_path: Path, run_main: RunMain
) -> None:
    """The walk from the leaf stops at the first kept entry, so a `/model` switch before it
    was read no more: the next turn, and --continue, fell back to scripted-v1 unsaid."""
    done = run_main("/model scripted-v2\nhello\nwhat is 12*8\n/compact\n/model\n")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert "compacted: a summary stands in for 2 messages; 4 kept" in lines
    assert "* scripted-v2" in lines and "* scripted-v1" not in lines
    again = run_main("", "--continue")
    assert again.returncode == 0 and again.stderr == b""
    assert again.stdout.decode().splitlines()[0].endswith("model scripted-v2)")
    [path] = (tmp_path / ".sessions").glob("*.jsonl")
    kinds = [orjson.loads(line)["type"] for line in path.read_bytes().splitlines()[1:]]
    assert kinds[-2:] == ["model_change", "compaction"]  # the switch, written on the path again


def test_a_write_cut_short_between_the_two_lines_keeps_the_model(
    tmp_path: Path, run_main: RunMain
) -> None:
    """That switch is a second line: the disk full at each line end and in the middle of
    each (a file size limit, a real write refused in a real process, as a crash would stop
    it), --continue still answers with scripted-v2. The compaction written first, a limit
    between the two lines lost the switch, and the next runs fell back to scripted-v1 unsaid."""
    assert run_main("/model scripted-v2\nhello\nwhat is 12*8\n").returncode == 0
    [path] = (tmp_path / ".sessions").glob("*.jsonl")
    before = path.read_bytes()
    assert run_main("/compact\n", "--continue").returncode == 0
    written = path.read_bytes()[len(before) :].splitlines(keepends=True)
    assert len(written) == 2  # the switch, then the compaction
    ends = [len(before) + len(written[0]), len(before) + len(written[0]) + len(written[1])]
    for limit in sorted({ends[0] - 40, ends[0], ends[1] - 40, ends[1] - 1}):
        path.write_bytes(before)
        run(tmp_path, b"/compact\n", "--continue", preexec_fn=file_size_limit(limit))
        assert len(path.read_bytes()) == limit  # the write stopped there
        again = run_main("", "--continue")
        assert again.stdout.decode().splitlines()[0].endswith("model scripted-v2)"), limit


@pytest.mark.parametrize("value", ["0", "-5", "x", "1e3", "٣", "9" * 5000, "x" * 5000])
def test_compact_at_takes_a_whole_number_of_characters(run_main: RunMain, value: str) -> None:
    """Each refused in one short line: 5,000 digits printed their whole value (argparse's
    own message, past Python's limit of 4,300 digits for int())."""
    done = run_main("hello\n", "--compact-at", value)
    assert done.returncode == 1
    [line] = done.stderr.decode().splitlines()
    assert line.startswith("error: argument --compact-at: not a number of characters: ")
    assert len(line) < 100
