"""Check 01.2: snapshots cut at EVERY byte (and zero-filled after the cut, as a power cut can
leave them) must salvage what the solution salvages, the complete messages, never raising: the
notebook's (JSON's own characters, multi-byte characters cut in the middle), an empty history,
one message, and generated histories of other shapes and nested values."""

from __future__ import annotations

from types import ModuleType

import orjson
from hypothesis import strategies as st

from exercises import harness as h
from messages import Message, make_history, text_message

RULE = "salvage returns every complete message"
TRICKY = make_history(4) + [
    text_message("user", 'tricky: ], }, {"a": [1, 2]}, a \\ backslash, "quotes"'),
    text_message("assistant", "non-ASCII: 你好, é, 🙂"),
    text_message("user", "last"),
]
PIECES = ["]", "}", "{", ",", '"', "\\", "\n", '"},{"role":"user"', "é", "🙂", "\u2028", " ", "x"]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)
MESSAGES = st.one_of(
    st.builds(text_message, st.sampled_from(["user", "assistant"]), TEXTS),
    st.builds(lambda t: {**text_message("user", t), "meta": {"seen": [[], {"]": "}"}]}}, TEXTS),
    st.builds(lambda t: {"role": "assistant", "content": [{"type": "tool", "x": [t]}]}, TEXTS),
)


def check(module: ModuleType) -> str:
    mine, theirs = h.subjects(module)
    cuts = 0
    for name, history in [("the tricky history", TRICKY), ("[]", []), ("1 message", TRICKY[:1])]:
        data = orjson.dumps(history)  # exactly what SnapshotStore writes
        for cut in range(len(data) + 1):
            cuts += salvaged_alike(mine, theirs, name, data, cut)
    generated = st.tuples(st.lists(MESSAGES, max_size=5), st.integers(0, 10**6))
    h.for_all(generated, lambda drawn: salvaged_alike(mine, theirs, "a history", *cut_at(*drawn)))
    return (
        f"salvaged what the solution salvages (the complete messages) at {cuts} cuts of 3 "
        "snapshots, zero-filled or not, and of 100 generated ones, never raising"
    )


def cut_at(history: list[Message], position: int) -> tuple[bytes, int]:
    data = orjson.dumps(history)
    return data, position % (len(data) + 1)


def salvaged_alike(mine: h.Subject, theirs: h.Subject, name: str, data: bytes, cut: int) -> int:
    """Both salvages of the file cut after `cut` bytes, and of it zero-filled: the same."""
    tails = [b""] if cut == len(data) else [b"", bytes(len(data) - cut)]
    for tail in tails:
        torn = data[:cut] + tail
        kept = data[max(0, cut - 10) : cut].decode(errors="replace")
        case = f"{name} cut after {cut}/{len(data)} bytes{', zero-filled' if tail else ''}"
        case += f", ending `{kept}`"
        got = mine.call(mine.module.salvage_snapshot, torn)
        if got.error is not None:
            raise AssertionError(f"salvage never raises; {case}: {got.said()}") from got.error
        want = theirs.call(theirs.module.salvage_snapshot, torn).value
        said = h.difference(got.value, want, lambda at: f"message {at + 1}")
        if said is not None and isinstance(got.value, list) and len(got.value) != len(want):
            said = f"{len(got.value)} messages, expected {len(want)}"
        if said is not None:
            h.fail(RULE, case, said, got.line)
    return len(tails)
