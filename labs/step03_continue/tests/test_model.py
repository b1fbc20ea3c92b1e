"""The scripted model answers from the history it is given, and streams like a real one."""

from __future__ import annotations

from messages import Message, assistant_message, text_of, tool_calls, tool_result, user_text
from model import Done, ScriptedModel, TextDelta, ToolCallEvent
from tools import default_tools

TOOLS = list(default_tools().values())


def test_arithmetic_asks_for_calc() -> None:
    reply = ScriptedModel().reply([user_text("what is 12*8")], ["calc"])
    assert reply["stopReason"] == "toolUse"
    [call] = tool_calls(reply)
    assert call["name"] == "calc"
    assert call["arguments"] == {"expression": "12*8"}


def test_after_a_tool_result_it_answers_and_stops() -> None:
    call = tool_calls(ScriptedModel().reply([user_text("what is 12*8")], ["calc"]))[0]
    history: list[Message] = [
        user_text("what is 12*8"),
        assistant_message("Let me calculate that.", [call]),
        tool_result(call, "96"),
    ]
    reply = ScriptedModel().reply(history, ["calc"])
    assert reply["stopReason"] == "stop"
    assert text_of(reply) == "12*8 = 96."


def test_recall_uses_the_history_it_is_given() -> None:
    call = {"type": "toolCall", "id": "call_1", "name": "calc", "arguments": {"expression": "3+4"}}
    history: list[Message] = [
        user_text("what is 3+4"),
        assistant_message("Let me calculate that.", [call]),
        tool_result(call, "7"),
        assistant_message("3+4 = 7."),
        user_text("what was the result"),
    ]
    assert text_of(ScriptedModel().reply(history, ["calc"])) == "The last result was 7 (3+4)."


def test_recall_without_history_cannot_answer() -> None:
    reply = ScriptedModel().reply([user_text("what was the result")], ["calc"])
    assert "no earlier result" in text_of(reply)
    assert reply["stopReason"] == "stop"


def test_plain_reply_is_deterministic() -> None:
    first = ScriptedModel().reply([user_text("tell me a story")], ["calc"])
    second = ScriptedModel().reply([user_text("tell me a story")], ["calc"])
    assert first == second
    assert not tool_calls(first)


def test_stream_is_text_deltas_then_tool_call_then_done() -> None:
    events = list(ScriptedModel().stream([user_text("what is 12*8")], TOOLS))
    kinds = [type(event) for event in events]
    assert kinds[-2:] == [ToolCallEvent, Done]
    assert set(kinds[:-2]) == {TextDelta}
    done = events[-1]
    assert isinstance(done, Done)
    streamed = "".join(event.text for event in events if isinstance(event, TextDelta))
    assert streamed == text_of(done.message)


def test_tool_call_ids_are_unique_in_a_conversation() -> None:
    model = ScriptedModel()
    history: list[Message] = []
    for question in ["what is 1+1", "what is 2+2"]:
        history.append(user_text(question))
        reply = model.reply(history, ["calc"])
        history.append(reply)
        history.append(tool_result(tool_calls(reply)[0], "x"))
    ids = [call["id"] for message in history for call in tool_calls(message)]
    assert ids == ["call_1", "call_2"]
