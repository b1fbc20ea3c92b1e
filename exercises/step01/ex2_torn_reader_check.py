"""Check 01.2: for a snapshot cut at EVERY byte, salvage returns exactly the complete messages."""

from __future__ import annotations

from types import ModuleType

import orjson

from messages import make_history, text_message

HISTORY = make_history(4) + [
    text_message("user", 'tricky: ], }, {"a": [1, 2]}, a \\ backslash, "quotes"'),
    text_message("assistant", "non-ASCII: 你好, é, 🙂"),
    text_message("user", "last"),
]


def check(module: ModuleType) -> str:
    data = orjson.dumps(HISTORY)  # exactly what SnapshotStore writes
    # Message k (1-based) is complete once the cut reaches the end of its closing brace,
    # which is where the array of the first k messages would close.
    ends = [len(orjson.dumps(HISTORY[:k])) - 1 for k in range(1, len(HISTORY) + 1)]
    for cut in range(len(data) + 1):
        expected = HISTORY[: sum(end <= cut for end in ends)]
        got = module.salvage_snapshot(data[:cut])
        assert isinstance(got, list), f"salvage_snapshot must return a list, not {type(got)}"
        assert got == expected, (
            f"cut after {cut} of {len(data)} bytes: expected {len(expected)} complete "
            f"messages, got {len(got)}" + ("" if len(got) != len(expected) else " (different)")
        )
    return (
        f"salvaged the complete messages at all {len(data) + 1} cut points; an empty file "
        "still gives back nothing, while a ledger never loses more than its torn last line"
    )
