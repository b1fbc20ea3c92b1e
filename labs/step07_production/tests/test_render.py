"""What reaches the terminal is only ever displayed: text from a model, a tool or a file cannot
recolour it, move its cursor or print a line that looks like the program's own."""

from __future__ import annotations

import io
import random
import re
import sys
import time
import unicodedata

import orjson
import pytest

from loop import LoopEvent, ToolResultEvent, TurnEnd, run_turn
from messages import Message, assistant_message, tool_result, user_text
from model import ScriptedModel, TextDelta, ToolCallEvent
from render import CONTINUATION, describe, render
from terminal_text import printable
from tools import default_tools

# Built from Unicode's own categories, not from the table printable uses: Cc is every C0 and C1
# control and DEL, Cs the surrogates, Zl/Zp the line and paragraph separators; then the
# bidirectional controls (category Cf, like harmless ones such as the emoji joiner).
BIDI_CONTROLS = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
CONTROLS = {
    chr(code)
    for code in range(sys.maxunicode + 1)
    if unicodedata.category(chr(code)) in ("Cc", "Cs", "Zl", "Zp")
}
UNSAFE = (CONTROLS - {"\t"}) | BIDI_CONTROLS

HOSTILE = [
    "\x1b[31mred\x1b[0m",  # colour
    "\x1b]0;owned\x07",  # set the window title, then BEL
    "done\rerror: fake",  # carriage return: overwrite the line
    "\x9b31m",  # C1 CSI: ESC [ in one byte
    "a\x85b\u2028c\u2029d",  # line breaks to some readers
    "\u202egnp.exe",  # right-to-left override: shows as "exe.png"
    "nul\x00byte\x7fdel",
    "\ud800lone surrogate",  # cannot come from a file (orjson refuses it), can from a file name
]


def is_safe(text: str) -> bool:
    return not UNSAFE.intersection(text)


def shown(events: list[LoopEvent]) -> str:
    out = io.StringIO()
    render(events, out)
    return out.getvalue()


def test_printable_escapes_exactly_the_unsafe_characters() -> None:
    for char in UNSAFE:
        escape = printable(char)
        assert re.fullmatch(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|[nr])", escape), (char, escape)
    # Everything else comes through as itself: tab, accents, CJK, the emoji joiner...
    safe = "".join(chr(code) for code in range(sys.maxunicode + 1) if chr(code) not in UNSAFE)
    assert printable(safe) == safe


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\x1b[31mred", "\\x1b[31mred"),
        ("a\rb\nc", "a\\rb\\nc"),
        ("\x85\u2028\u202e\ud800", "\\x85\\u2028\\u202e\\ud800"),
        ("tab\tstays, é 中 👨\u200d👩\u200d👧 stay", "tab\tstays, é 中 👨\u200d👩\u200d👧 stay"),
    ],
)
def test_printable_shows_escapes(text: str, expected: str) -> None:
    assert printable(text) == expected


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_in_every_event_is_shown_escaped(text: str) -> None:
    call = {"type": "toolCall", "id": text, "name": text, "arguments": {text: text}}
    output = shown(
        [
            TextDelta(text),
            ToolCallEvent(call),
            ToolResultEvent(tool_result(call, text)),
            ToolResultEvent(tool_result(call, text, is_error=True)),
            TurnEnd(4, 4),
        ]
    )
    assert is_safe(output.replace("\n", ""))
    assert output.count("\n") == 5  # one line per event: nothing broke a line
    output.encode("utf-8")  # a lone surrogate would make this raise, as print() would


def test_a_fake_program_line_in_an_answer_stays_inside_the_answer() -> None:
    output = shown([TextDelta("Sure.\nerror: disk full\n[tool result] calc -> 0"), TurnEnd(2, 2)])
    assert output.splitlines() == [
        "assistant> Sure.",
        CONTINUATION + "error: disk full",
        CONTINUATION + "[tool result] calc -> 0",
        "[turn end] 2 new messages (2 in all)",
    ]


def test_a_multi_line_answer_keeps_its_lines_however_it_is_streamed() -> None:
    text = "Two items:\n\n- one\n- two\n"
    whole = shown([TextDelta(text), TurnEnd(2, 2)])
    by_character = shown([*(TextDelta(c) for c in text), TurnEnd(2, 2)])
    assert (
        whole
        == by_character
        == (
            f"assistant> Two items:\n\n{CONTINUATION}- one\n{CONTINUATION}- two\n"
            "[turn end] 2 new messages (2 in all)\n"
        )
    )


def nested(depth: int) -> list[object]:
    """[[[...]]]: orjson reads JSON nested up to 1,024 deep, but writes only 254."""
    value: list[object] = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "arguments",
    [
        {"expression": 12},
        {"expression": None, "other": [1, {"a": True}]},
        {"expression": nested(1000)},  # str() of it raises RecursionError
        {"expression": 2**64},  # more than orjson writes: an int from a live model
        {"expression": 10**5000},  # str() of it raises ValueError
        {"\x1b[2J": "\u202e"},
    ],
)
def test_any_arguments_give_one_tool_call_line(arguments: dict[str, object]) -> None:
    call = {"type": "toolCall", "id": "c", "name": "not-calc", "arguments": arguments}
    line = describe(ToolCallEvent(call))
    assert line is not None and line.startswith("[tool call] not-calc ")
    assert "\n" not in line and is_safe(line)


def test_a_huge_answer_is_rendered_in_linear_time() -> None:
    text = ("word \x1b[31m " * 10_000 + "\n") * 10  # 1.3 MB, 10 lines
    call = {"type": "toolCall", "id": "call_1", "name": "calc", "arguments": {"expression": text}}
    started = time.perf_counter()
    output = shown(
        [
            TextDelta(text),
            ToolCallEvent(call),
            ToolResultEvent(tool_result(call, text)),
            TurnEnd(4, 4),
        ]
    )
    assert time.perf_counter() - started < 2
    assert is_safe(output.replace("\n", ""))
    assert output.count("\n") == 10 + 3  # the answer's lines, then one per other event


def test_escaping_is_for_display_only() -> None:
    """The message keeps its text exactly: what is saved is what the model said."""
    reply = assistant_message("a\x1b b")
    assert shown([TextDelta("a\x1b b"), TurnEnd(1, 1)]).startswith("assistant> a\\x1b b\n")
    assert reply["content"][0]["text"] == "a\x1b b"


def test_random_lines_through_a_whole_turn_are_shown_safely_and_can_be_saved() -> None:
    """Fuzz: lines of any characters a user can type, through the model, calc and the renderer."""
    rng = random.Random(4)
    pools = [
        "".join(map(chr, range(0x100))),
        "0123456789+-*/%(). \t\x0b\x0c\x1c\x1f\x85\u2028\u3000",
        "what is the result hello 12*8 ",
        "".join(map(chr, range(0x2000, 0x2070))),
    ]
    tools = default_tools()
    for _ in range(300):
        pool = rng.choice(pools)
        line = "".join(rng.choice(pool) for _ in range(rng.randrange(2000))).replace("\n", " ")
        messages: list[Message] = []
        for text in (line, "what was the result"):
            output = shown(list(run_turn(ScriptedModel(), tools, messages, user_text(text))))
            assert is_safe(output.replace("\n", "")), line
        orjson.dumps(messages)  # the session can write every message of both turns
