# >>file 05
"""Property-based tests over file damage: a session file made of valid lines plus arbitrary
garbage, truncated lines and duplicated lines always resumes without an exception, keeps
every intact entry that is on the recovered path, and never changes an old byte.

The expected result comes from a small model of the reader's rules, computed from the file
itself: a line is usable if it is a whole line the writer wrote and its id was not seen
before; a damaged line whose id and parentId can still be read stands in the tree, holding
nothing, until a usable line with its id comes; the leaf is the last usable line; the path
follows parentId among these entries and stops where a parent is missing (or seen twice)."""

from __future__ import annotations

# >> prod
import io

# << prod
import re
import tempfile
from pathlib import Path

import orjson
from harness import new_session

from hypothesis import given, settings

# >> prod
from hypothesis import example

# << prod
from hypothesis import strategies as st

# >> prod
import session_reader as layer
from entry_index import EntryIndex

# << prod
from messages import user_text
from session import Session

# >> prod
from session_file import TooLong

# << prod


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
        # >> prod
        elif (found := STAND_IN.match(line)) and found.group(1).decode() not in entries:
            # A damaged line whose id and parent can be read: the walk goes through it.
            parent = None if found.group(2) is None else found.group(2).decode()
            entries[found.group(1).decode()] = {"type": "damaged", "parentId": parent}
        # << prod
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


# >> prod


WRITTEN = (
    b'{"type":"message","id":"e1","parentId":null,"message":'
    b'{"role":"user","content":[{"type":"text","text":"a"}]}}'
)


LINES = st.lists(
    st.one_of(
        st.sampled_from(
            [
                WRITTEN,
                b'{"type":"message","id":"e2","parentId":"e1","message":'
                b'{"role":"user","content":[{"type":"text","text":"b"}]}}',
                b'{"type":"message","id":"e3","parentId":"e2","message":5}',  # looks right, is not
                b'{"type":"model_change","id":"e3","parentId":"e2","model":"scripted-v2"}',
                b'{"type":"branch","id":"e4","parentId":"e1","fromId":"e3"}',
                b'{"type":"x_kind","id":"\xc3\xa9","parentId":"e1"}',  # an id that is not ASCII
                b'{"type":"x_kind","id":"\xff","parentId":"e1"}',  # not UTF-8
                b'{"id":"e5","type":"x_kind","parentId":"e4"}',  # another key order
                b'{"type":"x_kind","id":"e\\u0036","parentId":"e4"}',  # an escaped id
                b'{"type":"header","id":"e7","parentId":null}',
                b"",
                b"not JSON",
            ]
        ),
        st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")),
    ),
    max_size=12,
)


@settings(max_examples=200, deadline=None)
@given(LINES, st.booleans(), st.integers(min_value=1, max_value=400), st.integers(0, 100))
# A line over the bound that ends in the next chunk; one read past over four chunks; a
# repeated id inside one chunk.
@example(lines=[WRITTEN], ended=True, chunk=60, longer=0)
@example(lines=[WRITTEN], ended=True, chunk=30, longer=0)
@example(lines=[b"", WRITTEN, WRITTEN], ended=False, chunk=400, longer=0)
def test_where_the_chunks_split_the_file_changes_nothing(
    lines: list[bytes], ended: bool, chunk: int, longer: int
) -> None:
    """The reader indexes a chunk's lines at once; the result is the same as indexing the
    lines of the whole file one by one, wherever a chunk ends and however long a line is; and
    the same again when the index keeps where a line is instead of the line, and reads it
    back from there when it needs it."""
    data = b"\n".join(lines) + (b"\n" if ended else b"")
    bound = chunk + longer  # as in the reader, a chunk is never longer than the line bound
    by_line = EntryIndex()
    pieces = data.split(b"\n")
    head = max(1, bound // 2)  # as in the reader, what is kept of a long line is under the bound
    for line in pieces[:-1] if pieces[-1] == b"" else pieces:  # a last line without its \n too
        by_line.add_line(TooLong(line[:head]) if len(line) > bound else line)

    def line_at(position: int) -> bytes:  # as a file gives a line back: to its \n, or the end
        return data[position:].split(b"\n", 1)[0]

    held, placed = EntryIndex(), EntryIndex(line_at)
    saved = layer._READ_CHUNK, layer.MAX_ENTRY_BYTES, layer._HEAD_BYTES
    layer._READ_CHUNK, layer.MAX_ENTRY_BYTES = chunk, bound
    layer._HEAD_BYTES = head
    try:
        for batch in layer.line_batches(Path("x"), io.BytesIO(data)):
            whole = [
                (at, line) for at, line in zip(batch.at, batch, strict=True) if type(line) is bytes
            ]
            assert [line_at(at) for at, _ in whole] == [line for _, line in whole]
            held.add_lines(batch)
            placed.add_lines(batch)
    finally:
        layer._READ_CHUNK, layer.MAX_ENTRY_BYTES, layer._HEAD_BYTES = saved
    for by_chunk in (held, placed):  # before a line is parsed
        assert by_chunk.damaged == by_line.damaged
        assert by_chunk.ids() == by_line.ids()  # a long line's id is taken either way
        assert by_chunk.in_order() == by_line.in_order()
    expected, leaf, new = list(by_line.items()), by_line.last_usable(), by_line.new_id()
    for by_chunk in (held, placed):
        assert list(by_chunk.items()) == expected
        assert by_chunk.damaged == by_line.damaged
        assert (by_chunk.last_usable(), by_chunk.new_id()) == (leaf, new)


# << prod
