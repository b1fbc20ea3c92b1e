# >>file 02
"""The scripted model checks the history it is given as a real chat API does.

Every tool call of an assistant message must be answered by exactly one toolResult with its
id, in the messages right after it; a toolResult must answer a call. A history that breaks
either rule is refused before the model says a word, with `HistoryRefused` and the API's own
words. Every history the lab itself produces is accepted.
"""

from __future__ import annotations

# >> 02 until prod
# import contextlib
# import importlib.util
# import io
# << 02 until prod
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

import model
from loop import run_turn
from messages import (
    Message,
    ToolCallBlock,
    assistant_message,
    history_problem,
    tool_result,
    user_text,
)
from model import Done, HistoryRefused, ScriptedModel, TextDelta, ToolCallEvent

# >> prod
from model_registry import MODELS
from terminal_text import printable

# << prod
from tools import Tool, default_tools

STEP_DIR = Path(__file__).resolve().parent.parent
TOOLS = default_tools()

MISSING = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
)
WITHOUT_CALL = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
    "with 'tool_calls'. "
)


def call(call_id: str, expression: str = "1+1") -> ToolCallBlock:
    return {
        "type": "toolCall",
        "id": call_id,
        "name": "calc",
        "arguments": {"expression": expression},
    }


def asks(*calls: ToolCallBlock) -> Message:
    return assistant_message("Let me calculate that.", list(calls))


ONE, TWO = call("call_1"), call("call_2", "2+2")
ASK = user_text("what is 1+1")

BAD: dict[str, tuple[list[Message], str]] = {
    "a tool call without its result": (
        [ASK, asks(ONE), user_text("hello")],
        MISSING + "call_1",
    ),
    "a tool call the history ends on": ([ASK, asks(ONE)], MISSING + "call_1"),
    "a result without a call": (
        [ASK, tool_result(ONE, "2"), user_text("hello")],
        WITHOUT_CALL + "(messages[1] answers tool_call_id call_1)",
    ),
    "a result after an answer that asked nothing": (
        [ASK, assistant_message("2"), tool_result(ONE, "2")],
        WITHOUT_CALL + "(messages[2] answers tool_call_id call_1)",
    ),
    "a result with the wrong id": (
        [ASK, asks(ONE), tool_result(call("call_9"), "2"), user_text("hello")],
        WITHOUT_CALL + "(messages[2] answers tool_call_id call_9)",
    ),
    "a result given twice": (
        [ASK, asks(ONE), tool_result(ONE, "2"), tool_result(ONE, "2"), user_text("hello")],
        WITHOUT_CALL + "(messages[3] answers tool_call_id call_1)",
    ),
    "two calls, one answered": (
        [ASK, asks(ONE, TWO), tool_result(ONE, "2"), user_text("hello")],
        MISSING + "call_2",
    ),
    "two calls, none answered": (
        [ASK, asks(ONE, TWO), user_text("hi")],
        MISSING + "call_1, call_2",
    ),
    "a result after a later user message": (
        [ASK, asks(ONE), user_text("hello"), tool_result(ONE, "2")],
        MISSING + "call_1",  # the API stops at the first break: the call lacks its result there
    ),
    "a result after a later assistant message": (
        [ASK, asks(ONE), assistant_message("hm"), tool_result(ONE, "2"), user_text("hi")],
        MISSING + "call_1",
    ),
    "an old call answered by a result after a new one": (
        [
            ASK,
            asks(ONE),
            tool_result(ONE, "2"),
            user_text("again"),
            asks(TWO),
            tool_result(ONE, "2"),
        ],
        WITHOUT_CALL + "(messages[5] answers tool_call_id call_1)",
    ),
    "the same id twice in one message, answered once": (
        [ASK, asks(ONE, ONE), tool_result(ONE, "2"), user_text("hello")],
        MISSING + "call_1",
    ),
}

INTERRUPTED = (
    "interrupted: the program stopped before this tool call finished; it was not run again"
)
GOOD: dict[str, list[Message]] = {
    "nothing yet": [],
    "a first question": [ASK],
    "a call and its result": [ASK, asks(ONE), tool_result(ONE, "2")],
    "a whole turn, then the next question": [
        ASK,
        asks(ONE),
        tool_result(ONE, "2"),
        assistant_message("1+1 = 2."),
        user_text("again"),
    ],
    "two calls answered in the other order": [
        ASK,
        asks(ONE, TWO),
        tool_result(TWO, "4"),
        tool_result(ONE, "2"),
    ],
    "a failed call (isError)": [
        ASK,
        asks(ONE),
        tool_result(ONE, "division by zero", is_error=True),
    ],
    # What the production step's resume appends for a call the program never finished (the
    # tool is not run again): an error result with its id, and the history is whole again.
    "an interrupted call, repaired": [
        ASK,
        asks(ONE),
        tool_result(ONE, INTERRUPTED, is_error=True),
        user_text("what is 2+2"),
    ],
    "two calls, the second interrupted and repaired": [
        ASK,
        asks(ONE, TWO),
        tool_result(ONE, "2"),
        tool_result(TWO, INTERRUPTED, is_error=True),
    ],
    "the same id in two turns, each answered": [
        ASK,
        asks(ONE),
        tool_result(ONE, "2"),
        user_text("again"),
        asks(ONE),
        tool_result(ONE, "2"),
    ],
    "the same id twice in one message, answered twice": [
        ASK,
        asks(ONE, ONE),
        tool_result(ONE, "2"),
        tool_result(ONE, "2"),
    ],
    "user messages in a row": [ASK, user_text("hello"), user_text("what is 2+2")],
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_history_is_refused_in_the_apis_words(case: str) -> None:
    history, problem = BAD[case]
    assert history_problem(history) == problem
    # >> 02 until prod
    # for name, scripted in model.MODELS.items():
    # << 02 until prod
    # >> prod
    for name, scripted in MODELS.items():
        # << prod
        events = scripted.stream(history, list(TOOLS.values()))
        with pytest.raises(HistoryRefused) as refused:
            next(events)  # refused before the first event
        assert str(refused.value) == f"{name} refused the conversation: {problem}"
        assert refused.value.model == name and refused.value.problem == problem


@pytest.mark.parametrize("case", list(GOOD))
def test_a_good_history_is_accepted(case: str) -> None:
    history = GOOD[case]
    assert history_problem(history) is None
    events = list(ScriptedModel().stream(history, list(TOOLS.values())))
    assert isinstance(events[-1], Done)


# >> prod


def test_ids_from_a_file_are_named_on_one_short_printable_line() -> None:
    hostile = [call(f"\x1b[2J\nerror: fake {n} " + "9" * 5000) for n in range(1000)]
    problem = history_problem([ASK, asks(*hostile), user_text("hi")])
    assert problem is not None and problem.startswith(MISSING)
    assert printable(problem) == problem  # no line break, no escape a terminal would obey
    assert len(problem) < 500
    assert problem.endswith(" and 995 more")
    orphan = history_problem([tool_result(hostile[0], "x")])
    assert orphan is not None and printable(orphan) == orphan and len(orphan) < 300


# << prod


class Counted(dict):  # type: ignore[type-arg]
    """A message that counts how often its fields are read: the work, without a clock."""

    reads = 0

    def __getitem__(self, key: str) -> object:
        Counted.reads += 1
        return super().__getitem__(key)


def test_a_long_history_is_checked_in_linear_time() -> None:
    """A check that looked ahead from every call for its result would read each message once
    per call before it: 5,000 turns, 25 million reads. One pass reads each a few times."""
    history: list[Message] = []
    for n in range(5_000):
        turn = [ASK, asks(call(f"call_{n}")), tool_result(call(f"call_{n}"), "2")]
        history += [Counted(message) for message in turn]  # type: ignore[misc]
    Counted.reads = 0
    assert history_problem(history) is None
    last = Counted(asks(*[call(f"c{n}") for n in range(5_000)]))
    assert history_problem([*history, last]) is not None  # type: ignore[list-item]
    assert Counted.reads <= 10 * (2 * len(history) + 1)


# --- Through the loop -------------------------------------------------------------------------


def checked_stream(monkeypatch: pytest.MonkeyPatch) -> list[list[Message]]:
    """Record every history the scripted models are handed (and still check it)."""
    seen: list[list[Message]] = []
    stream = ScriptedModel.stream

    def spy(self: ScriptedModel, messages: Sequence[Message], tools: Sequence[Tool]) -> Iterator:
        seen.append(list(messages))
        return stream(self, messages, tools)

    monkeypatch.setattr(ScriptedModel, "stream", spy)
    return seen


def test_every_history_the_loop_builds_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = checked_stream(monkeypatch)
    messages: list[Message] = []
    for line in ["hello", "what is 12*8", "what is 1/0", "what is 2**10000", "what was the result"]:
        # >> 02 until prod
        # for name in model.MODELS:
        #     list(run_turn(model.MODELS[name], TOOLS, messages, user_text(line)))
        # << 02 until prod
        # >> prod
        for name in MODELS:
            list(run_turn(MODELS[name], TOOLS, messages, user_text(line)))
        # << prod
    # one call per model and turn, one more after each of 3 tool calls
    # >> 02 until prod
    # assert len(seen) == len(model.MODELS) * (5 + 3)
    # << 02 until prod
    # >> prod
    assert len(seen) == len(MODELS) * (5 + 3)
    # << prod
    assert all(history_problem(history) is None for history in seen)
    assert history_problem(messages) is None


class TwoCalls:
    """A model that asks for two tools at once, one of them unknown and one that crashes."""

    name = "two-calls"

    def stream(
        self, messages: Sequence[Message], tools: Sequence[Tool]
    ) -> Iterator[model.ModelEvent]:
        assert history_problem(messages) is None
        if messages[-1]["role"] == "toolResult":
            yield Done(assistant_message("done"))
            return
        calls = [call("a"), {**call("b"), "name": "crash"}, {**call("c"), "name": "nowhere"}]
        reply = asks(*calls)  # type: ignore[arg-type]
        yield TextDelta("Let me calculate that.")
        for one in calls:
            yield ToolCallEvent(one)  # type: ignore[arg-type]
        yield Done(reply)


def test_the_loop_answers_every_call_of_a_reply_even_failing_ones() -> None:
    def crash(arguments: dict[str, object]) -> str:
        raise RuntimeError("a bug in the tool")

    tools = {**TOOLS, "crash": Tool("crash", "raises", {}, crash)}
    messages: list[Message] = []
    list(run_turn(TwoCalls(), tools, messages, user_text("go")))
    assert history_problem(messages) is None
    assert [m["role"] for m in messages] == ["user", "assistant", *["toolResult"] * 3, "assistant"]


def test_the_loop_lets_a_refusal_through() -> None:
    """Not turned into a tool error or swallowed: the program shows it in one `error:` line."""
    messages = [ASK, asks(ONE)]  # what an older step left after a killed tool call
    with pytest.raises(HistoryRefused, match="did not have response messages: call_1$"):
        list(run_turn(ScriptedModel(), TOOLS, messages, user_text("what was the result")))
    assert messages[-1] == user_text("what was the result")  # the prompt is in the list, only it


# >> 02 until prod
#
#
# def test_every_history_the_demo_builds_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
#     seen = checked_stream(monkeypatch)
#     spec = importlib.util.spec_from_file_location("step_demo", STEP_DIR / "demo.py")
#     assert spec is not None and spec.loader is not None
#     demo = importlib.util.module_from_spec(spec)
#     spec.loader.exec_module(demo)
#     with contextlib.redirect_stdout(io.StringIO()) as out:
#         demo.main()
#     assert out.getvalue() == (STEP_DIR / "expected-output.txt").read_text(encoding="utf-8")
#     assert seen and all(history_problem(history) is None for history in seen)
# << 02 until prod
# >> 04


@pytest.mark.parametrize(
    ("value", "kind"), [(None, "null"), ("hi", "a string"), ([], "an array"), (7, "a number")]
)
def test_a_value_that_is_not_a_message_is_refused_not_crashed_on(value: object, kind: str) -> None:
    """A reader that hands over None (a replay that took a model switch for a message) gets
    the 400 a real API gives, naming the place, not a TypeError deep in the check."""
    history = [user_text("hello"), value]
    assert history_problem(history) == (  # type: ignore[arg-type]
        f"Invalid type for 'messages[1]': expected an object, but got {kind} instead."
    )


# << 04
