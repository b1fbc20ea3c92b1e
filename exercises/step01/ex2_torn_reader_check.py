"""Check 01.2: for snapshots of many histories, cut at EVERY byte (and cut, then zero-filled),
salvage returns exactly the complete messages, and never raises.

A crash can stop a snapshot's write after any byte, so every prefix is a file a reader may
meet; after a power cut the file can even keep its full length with the unwritten part read
back as zero bytes. The histories are built to break readers that look for brackets, commas
or quotes themselves: texts full of JSON's own characters, escapes, multi-byte characters
(cut in the middle, too), empty texts, nested values and messages of other shapes.
"""

from __future__ import annotations

import random
from types import ModuleType

import orjson

from messages import Message, make_history, text_message

# The snapshot the notebook talks about: the lab's own history and a few tricky texts.
TRICKY = make_history(4) + [
    text_message("user", 'tricky: ], }, {"a": [1, 2]}, a \\ backslash, "quotes"'),
    text_message("assistant", "non-ASCII: 你好, é, 🙂"),
    text_message("user", "last"),
]
PIECES = [
    "]", "}", "[", "{", ",", ":", '"', "\\", "\\n", "\n", "\t", "},{", '"},{"role":"user"',
    "}]", "é", "你好", "🙂", "\u2028", "null", "1", " ", "text", "",
]  # fmt: skip


def random_message(rng: random.Random) -> Message:
    text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 12)))
    role = rng.choice(["user", "assistant"])
    shape = rng.randrange(4)
    if shape == 0:  # two blocks, the second not text
        blocks = [{"type": "text", "text": text}, {"type": "toolCall", "arguments": {"x": [1]}}]
        return {"role": role, "content": blocks}
    if shape == 1:  # an extra field holding nested arrays and objects
        return {**text_message(role, text), "meta": {"seen": [[], {}, [{"]": "}"}]]}}
    return text_message(role, text)


def histories() -> list[tuple[str, list[Message]]]:
    rng = random.Random(1)  # seeded: every run (and every FAIL line) is the same
    found = [("the tricky history", TRICKY), ("an empty history", []), ("one message", TRICKY[:1])]
    for number in range(1, 5):
        history = [random_message(rng) for _ in range(rng.randrange(2, 7))]
        found.append((f"random history {number}", history))
    return found


def check(module: ModuleType) -> str:
    salvage = module.salvage_snapshot
    cuts = 0
    for name, history in histories():
        data = orjson.dumps(history)  # exactly what SnapshotStore writes
        # Message k (1-based) is complete once the cut reaches the end of its closing brace,
        # which is where the array of the first k messages would close.
        ends = [len(orjson.dumps(history[:k])) - 1 for k in range(1, len(history) + 1)]
        for cut in range(len(data) + 1):
            expected = history[: sum(end <= cut for end in ends)]
            damaged = [(data[:cut], "")]
            if cut < len(data):  # the length was written, the bytes were not
                damaged.append((data[:cut] + bytes(len(data) - cut), ", the rest zero bytes"))
            for torn, how in damaged:
                cuts += 1
                where = f"{name}: {len(data)} bytes cut after {cut}{how} (ending {tail(data, cut)})"
                try:
                    got = salvage(torn)
                except NotImplementedError:
                    raise  # the starter: "not done yet" says it better than "it raised"
                except Exception as error:
                    raise AssertionError(
                        f"salvage_snapshot raised {type(error).__name__} for {where}: a torn "
                        "file must never make it raise; stop at the first value that does not "
                        "parse",
                        salvage,
                    ) from error
                assert isinstance(got, list), (
                    f"salvage_snapshot must return a list, not {type(got).__name__}",
                    salvage,
                )
                assert got == expected, (f"{where}: {difference(expected, got)}", salvage)
    return (
        f"returned exactly the complete messages at {cuts} cut points of 7 snapshots (tricky "
        "texts, multi-byte characters, other message shapes, zero-filled tails), without "
        "raising; an empty file gives back nothing"
    )


def tail(data: bytes, cut: int) -> str:
    """The last bytes kept, so a student can see the shape of the cut."""
    kept = data[max(0, cut - 16) : cut].decode("utf-8", errors="replace")
    return f"`{kept}`" if kept else "with nothing kept"


def messages(count: int) -> str:
    return f"{count} message{'s' * (count != 1)}"


def difference(expected: list[Message], got: list[Message]) -> str:
    if len(got) > len(expected):
        return (
            f"expected {messages(len(expected))} (the complete ones), got {len(got)}: a "
            "message cut short (or a value that is no message) must not be returned"
        )
    if len(got) < len(expected):
        return (
            f"expected {messages(len(expected))} (the complete ones), got {len(got)}: a "
            "complete message was lost"
        )
    first = next(i for i, (a, b) in enumerate(zip(expected, got, strict=True)) if a != b)
    return (
        f"got {len(got)} messages as expected, but message {first + 1} differs: "
        f"expected {expected[first]!r}, got {got[first]!r}"
    )
