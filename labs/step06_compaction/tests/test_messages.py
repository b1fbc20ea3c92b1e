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

import orjson
import pytest

from messages import (
    Message,
    assistant_message,
    history_problem,
    preview,
    tool_calls,
    tool_result,
    unanswered_calls,
    user_text,
)

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


CASES = list(VALID_BUT_HOSTILE)


def answered(message: Message) -> list[Message]:
    """The message restored and, if it holds tool calls, their results: a history an API takes
    (a toolResult alone answers nothing, so it stays refused)."""
    restored = as_file_holds_it(message)
    return [restored, *(tool_result(c, "42") for c in tool_calls(restored))]  # type: ignore[arg-type]


@pytest.mark.parametrize("case", CASES)
def test_a_history_with_its_tool_calls_answered_is_accepted(case: str) -> None:
    history = [*answered(VALID_BUT_HOSTILE[case]), user_text("what is 2+3")]
    if VALID_BUT_HOSTILE[case]["role"] == "toolResult":
        assert history_problem(history) is not None  # a result for a call nobody made
    else:
        assert history_problem(history) is None


def test_preview_of_ordinary_messages_is_unchanged() -> None:
    assert preview(user_text("what is\n12*8   please")) == "what is 12*8 please"
    long = preview(user_text("Hello! I can do arithmetic with the calc tool (try: ...)"))
    assert long == "Hello! I can do arithmetic with the cal…"
    assert preview(assistant(call({"expression": "12*8"}), text="Let me calculate that.")) == (
        "Let me calculate that. calc(12*8)"
    )


def test_a_call_followed_by_a_users_line_is_not_at_the_end() -> None:
    """The repair answers a call a kill left at the end; a call a later line follows is in the
    middle, where an appended result would answer nothing (a chat API still refuses it)."""
    call = {"type": "toolCall", "id": "call_1", "name": "calc", "arguments": {"expression": "1"}}
    asked = assistant_message("Let me calculate that.", [call])  # type: ignore[list-item]
    assert [c["id"] for c in unanswered_calls([user_text("q"), asked])] == ["call_1"]
    assert unanswered_calls([user_text("q"), asked, user_text("hello")]) == []
