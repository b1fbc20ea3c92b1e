# >>file 02
"""Whatever a file can hold as a message, the model, the loop, the renderer and `preview`
survive it.

A resumed run hands the model messages it did not write. The reader decides once what a valid
message is (a role, a list of content blocks with a string `type`, text blocks with string
text, tool calls with string id and name and an object of arguments, a toolResult's ids and
isError); everything after it may rely on that much, and on nothing more. The messages below
keep to that rule and are otherwise as hostile as JSON allows.

A history in which they leave a tool call without its result (or a result without its call)
is one a real API refuses, and so does the scripted model: in one short printable line.
"""

from __future__ import annotations

# >> prod
import io
import time

# << prod
import orjson
import pytest

# >> prod
from loop import run_turn

# << prod
from messages import (
    Message,
    # >> 05
    assistant_message,
    # << 05
    history_problem,
    preview,
    # >> prod
    text_of,
    # << prod
    tool_calls,
    tool_result,
    # >> 05
    unanswered_calls,
    # << 05
    user_text,
)

# >> prod
from model import Done, HistoryRefused, ScriptedModel, TextDelta
from render import render
from terminal_text import printable
from tools import default_tools

TOOLS = default_tools()
# << prod

DEEP = orjson.loads("[" * 1000 + "]" * 1000)  # orjson reads 1,024 levels; str() of it raises
ESCAPES = "\x1b[31mred\x1b]0;title\x07\rerror: fake\x9b2J\x85\u2028\u202eevil\x00"


def call(arguments: dict[str, object], name: str = "calc", call_id: str = "call_1") -> dict:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def assistant(*calls: dict, text: str = "") -> Message:
    content = [{"type": "text", "text": text}, *calls] if text else list(calls)
    return {"role": "assistant", "content": content, "stopReason": "toolUse"}


VALID_BUT_HOSTILE: dict[str, Message] = {
    "user, no content": {"role": "user", "content": []},
    "assistant, no content": {"role": "assistant", "content": [], "stopReason": "toolUse"},
    "toolResult, no content": {
        "role": "toolResult",
        "toolCallId": "",
        "toolName": "",
        "content": [],
        "isError": False,
    },
    "blocks of unknown kinds": {
        "role": "user",
        "content": [{"type": "image", "data": "..."}, {"type": ""}, {"type": "text", "text": ""}],
    },
    "a tool call in a user message": {"role": "user", "content": [call({"expression": "1/0"})]},
    "terminal escapes": user_text(f"what is 1+1 {ESCAPES}"),
    "NUL bytes": user_text("what is 1\x00+2\x00"),
    "1 MB of '-'": user_text("-" * 1_000_000),
    "1 MB of '('": user_text("(" * 1_000_000 + "1"),
    "a 1 MB sum": user_text("what is " + "1+" * 500_000 + "1"),
    "a 1 MB number": user_text("what is " + "9" * 1_000_000 + "*2"),
    "no expression argument": assistant(call({})),
    "a number as expression": assistant(call({"expression": 18446744073709551615})),
    "a float as expression": assistant(call({"expression": -1.7976931348623157e308})),
    "null as expression": assistant(call({"expression": None})),
    "an object as expression": assistant(call({"expression": {"a": {"b": [1, "2"]}}})),
    "expression nested 1000 deep": assistant(call({"expression": DEEP})),
    "a 1 MB expression": assistant(call({"expression": "x" * 1_000_000})),
    "escapes in every field": assistant(
        call({ESCAPES: ESCAPES}, name=ESCAPES, call_id=ESCAPES), text=ESCAPES
    ),
    "a tool that is not calc": assistant(call({"path": "/"}, name="rm -rf")),
    "an id of 5000 digits": assistant(call({"expression": "1+1"}, call_id="call_" + "9" * 5000)),
    "the same id twice": assistant(call({"expression": "1+1"}), call({"expression": "2+2"})),
    "the id a run would use next": assistant(call({"expression": "1+1"}, call_id="call_2")),
    "a result for no call": {
        "role": "toolResult",
        "toolCallId": "nowhere",
        "toolName": ESCAPES,
        "content": [{"type": "text", "text": ESCAPES * 10_000}],
        "isError": True,
    },
}


def as_file_holds_it(message: Message) -> Message:
    """The message as a reader hands it over: only what JSON can carry."""
    if message is VALID_BUT_HOSTILE["expression nested 1000 deep"]:
        return message  # orjson writes only 254 levels, but reads this one
    return orjson.loads(orjson.dumps(message))


# >> prod


def histories(message: Message) -> list[list[Message]]:
    """The message restored, then what a run could do next: ask, recall, get a tool result."""
    restored = as_file_holds_it(message)
    after = [tool_result(c, "42") for c in tool_calls(restored)]  # type: ignore[arg-type]
    return [
        [restored],
        [restored, user_text("what is 2+3")],
        [restored, user_text("what was the result")],
        [restored, *after, user_text("what was the result")],
        [restored, *after],
    ]


# << prod


CASES = list(VALID_BUT_HOSTILE)


def answered(message: Message) -> list[Message]:
    """The message restored and, if it holds tool calls, their results: a history an API takes
    (a toolResult alone answers nothing, so it stays refused)."""
    restored = as_file_holds_it(message)
    return [restored, *(tool_result(c, "42") for c in tool_calls(restored))]  # type: ignore[arg-type]


# >> prod


def assert_refused_in_one_line(history: list[Message], problem: str) -> None:
    started = time.perf_counter()
    with pytest.raises(HistoryRefused) as refused:
        list(ScriptedModel().stream(history, list(TOOLS.values())))
    assert time.perf_counter() - started < 2
    assert str(refused.value) == f"scripted-v1 refused the conversation: {problem}"
    assert printable(str(refused.value)) == str(refused.value)  # one line, nothing obeyed
    assert len(str(refused.value)) < 500  # whatever ids the file holds


@pytest.mark.parametrize("case", CASES)
def test_the_model_answers_after_any_valid_message_or_refuses_as_an_api_does(case: str) -> None:
    for history in histories(VALID_BUT_HOSTILE[case]):
        if (problem := history_problem(history)) is not None:
            assert_refused_in_one_line(history, problem)
            continue
        started = time.perf_counter()
        events = list(ScriptedModel().stream(history, list(TOOLS.values())))
        assert time.perf_counter() - started < 2
        done = events[-1]
        assert isinstance(done, Done)
        streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
        assert streamed == text_of(done.message)
        ids = [c["id"] for m in history for c in tool_calls(m)]
        assert not {c["id"] for c in tool_calls(done.message)} & set(ids)  # a new call, a new id


# << prod


@pytest.mark.parametrize("case", CASES)
def test_a_history_with_its_tool_calls_answered_is_accepted(case: str) -> None:
    history = [*answered(VALID_BUT_HOSTILE[case]), user_text("what is 2+3")]
    if VALID_BUT_HOSTILE[case]["role"] == "toolResult":
        assert history_problem(history) is not None  # a result for a call nobody made
    else:
        assert history_problem(history) is None


# >> prod


@pytest.mark.parametrize("case", CASES)
def test_a_turn_after_any_valid_message_is_shown_and_can_be_saved(case: str) -> None:
    for text in ["what is 2+3", "what was the result"]:
        messages = answered(VALID_BUT_HOSTILE[case])
        restored = len(messages)
        out = io.StringIO()
        if history_problem([*messages, user_text(text)]) is not None:
            with pytest.raises(HistoryRefused):
                render(run_turn(ScriptedModel(), TOOLS, messages, user_text(text)), out)
            assert out.getvalue() == ""  # refused before the model said a word
            continue
        render(run_turn(ScriptedModel(), TOOLS, messages, user_text(text)), out)
        for line in out.getvalue().splitlines():
            assert printable(line) == line  # nothing left that a terminal would obey
        orjson.dumps(messages[restored:])  # what the turn added is JSON: the session can write it


@pytest.mark.parametrize("case", CASES)
def test_preview_is_one_short_printable_line(case: str) -> None:
    message = as_file_holds_it(VALID_BUT_HOSTILE[case])
    for width in (40, 34):
        line = preview(message, width)
        assert len(line) <= width
        assert printable(line) == line  # no control character, no line break


# << prod


def test_preview_of_ordinary_messages_is_unchanged() -> None:
    assert preview(user_text("what is\n12*8   please")) == "what is 12*8 please"
    long = preview(user_text("Hello! I can do arithmetic with the calc tool (try: ...)"))
    assert long == "Hello! I can do arithmetic with the cal…"
    assert preview(assistant(call({"expression": "12*8"}), text="Let me calculate that.")) == (
        "Let me calculate that. calc(12*8)"
    )


# >> prod


def test_preview_reads_only_the_words_it_shows() -> None:
    message = user_text("word " * 2_000_000)  # 10 MB
    started = time.perf_counter()
    assert preview(message) == "word " * 7 + "word…"
    assert time.perf_counter() - started < 0.1


# << prod
# >> 05


def test_a_call_followed_by_a_users_line_is_not_at_the_end() -> None:
    """The repair answers a call a kill left at the end; a call a later line follows is in the
    middle, where an appended result would answer nothing (a chat API still refuses it)."""
    call = {"type": "toolCall", "id": "call_1", "name": "calc", "arguments": {"expression": "1"}}
    asked = assistant_message("Let me calculate that.", [call])  # type: ignore[list-item]
    assert [c["id"] for c in unanswered_calls([user_text("q"), asked])] == ["call_1"]
    assert unanswered_calls([user_text("q"), asked, user_text("hello")]) == []


# << 05
# >> prod


def test_a_preview_is_cut_by_the_columns_it_takes_never_inside_a_character() -> None:
    """A CJK character takes two columns; an accent, a skin tone or the rest of a family emoji
    (joined by U+200D) is drawn into the character before it, so no cut falls between them."""
    assert preview(user_text("你好" * 30), 10) == "你好你好…"  # 8 columns, and the ellipsis
    family = "👨\u200d👩\u200d👧"
    assert preview(user_text(("a" + family) * 10), 6) == "a" + family + "a…"
    assert preview(user_text("e\u0301" * 50), 6) == "e\u0301" * 5 + "…"
    assert preview(user_text("ok 👍🏽" * 9), 6) == "ok 👍🏽…"  # the tone stays with its hand
    assert preview(user_text("x" * 40), 40) == "x" * 40  # what fits is not cut


def test_a_preview_counts_a_column_for_each_character_that_takes_one() -> None:
    """^ and ` are modifier symbols (category Sk) like a skin tone, but take a column each;
    a character after a zero-width joiner is drawn into the one before only if it is an
    emoji (a CJK character after U+200D takes its two columns)."""
    assert preview(user_text("^" * 300), 40) == "^" * 39 + "…"
    assert preview(user_text("a" + "\u200d漢" * 200), 9) == "a\u200d漢\u200d漢\u200d漢\u200d…"


# << prod
