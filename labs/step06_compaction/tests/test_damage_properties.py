"""Property-based tests over file damage: a session file made of valid lines plus arbitrary
garbage, truncated lines and duplicated lines always resumes without an exception, keeps
every intact entry that is on the recovered path, and never changes an old byte.

The expected result comes from a small model of the reader's rules, computed from the file
itself: a line is usable if it is a whole line the writer wrote and its id was not seen
before; a damaged line whose id and parentId can still be read stands in the tree, holding
nothing, until a usable line with its id comes; the leaf is the last usable line; the path
follows parentId among these entries and stops where a parent is missing (or seen twice)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import orjson
from harness import new_session
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import user_text
from session import Session


def written_lines(folder: Path, count: int) -> tuple[bytes, list[bytes]]:
    """A real session with one branch in it: its header line and its entry lines."""
    session = new_session(folder, "d")
    for number in range(count):
        if number == count // 2 and number > 1:
            session.append_branch("e1")
        session.append_message(user_text(f"message {number}"))
    header, *lines = session.path.read_bytes().split(b"\n")[:-1]
    session.path.unlink()
    return header, lines


DAMAGE = st.lists(
    st.one_of(
        st.tuples(
            st.just("garbage"),
            st.integers(min_value=0, max_value=10_000),
            st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
        ),
        st.tuples(st.just("truncate"), st.integers(min_value=0, max_value=10_000), st.none()),
        st.tuples(st.just("duplicate"), st.integers(min_value=0, max_value=10_000), st.none()),
    ),
    max_size=8,
)


# Where the writer puts an entry's id and parentId, readable in a line damaged after them.
STAND_IN = re.compile(rb'\{"type":"[^"\\]*","id":"([^"\\]*)","parentId":(?:null|"([^"\\]*)")')


def expected_path(lines: list[bytes], originals: set[bytes]) -> list[str]:
    """The message texts the reader's rules give for these lines."""
    entries: dict[str, dict] = {}
    for line in lines:
        if line in originals:
            entry = orjson.loads(line)
            if entries.get(entry["id"], {"type": "damaged"})["type"] == "damaged":
                entries[entry["id"]] = entry  # the first usable line with an id wins
    # The leaf is the last usable line: a later duplicate of an earlier id is not usable.
    usable_ids = []
    seen: set[str] = set()
    for line in lines:
        if line in originals:
            entry_id = orjson.loads(line)["id"]
            if entry_id not in seen:
                seen.add(entry_id)
                usable_ids.append(entry_id)
    leaf = usable_ids[-1] if usable_ids else None
    texts, visited, current = [], set(), leaf
    while current is not None and current in entries and current not in visited:
        visited.add(current)
        entry = entries[current]
        if entry["type"] == "message":
            texts.append(entry["message"]["content"][0]["text"])
        current = entry["parentId"]
    return texts[::-1]


@settings(max_examples=120, deadline=None)
@given(st.integers(min_value=1, max_value=8), DAMAGE, st.booleans())
def test_any_damage_resumes_and_keeps_the_intact_path(
    count: int, damage: list[tuple], torn_end: bool
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        header, originals = written_lines(Path(folder), count)
        lines = list(originals)
        for kind, value, garbage in damage:
            position = value % (len(lines) + 1)
            match kind:
                case "garbage":
                    lines.insert(position, garbage)
                case "truncate" if lines:
                    index = value % len(lines)
                    lines[index] = lines[index][: value % max(1, len(lines[index]))]
                case "duplicate" if lines:
                    lines.insert(position, lines[value % len(lines)])
        data = header + b"\n" + b"".join(line + b"\n" for line in lines)
        if torn_end and lines:
            data = data[:-1]  # the last line's \n lost as well
        path = Path(folder) / "d.jsonl"
        path.write_bytes(data)

        resumed = Session.open(path)  # never raises on damage after the header
        texts = [m["content"][0]["text"] for m in resumed.context.messages]
        assert texts == expected_path(lines, set(originals))

        resumed.session.append_message(user_text("after the damage"))
        after = path.read_bytes()
        assert after.startswith(data), "an old byte changed"
        new_line = after[len(data) :].lstrip(b"\n")
        assert orjson.loads(new_line)["message"]["content"][0]["text"] == "after the damage"
        again = Session.open(path)
        assert [m["content"][0]["text"] for m in again.context.messages] == [
            *texts,
            "after the damage",
        ]
