"""A resume keeps, of a line it has not used, where it is (entry_places.py), not the line: memory
in proportion to the conversation, not to the session. What it reads again is checked again,
and comes from the file it read.

Figures (time, peak memory at scale) are `make bench`'s; these hold the behaviour. A read of a
few MiB is held as it is (entry_index.HOLD_BYTES): each test here sets that to nothing but
the one about it, so that its small session is kept as places, as a large one is.
"""

from __future__ import annotations

import os
import random
import tempfile
import tracemalloc
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_store_conformance import STORES, create, stored_lines

import entry_index
import session_reader as layer
import sqlite_rows
from entries import DAMAGED, build_context, entry_id
from entry_index import EntryIndex
from entry_places import GONE, HELD, LinePlaces
from messages import assistant_message, user_text
from session import Session
from session_file import SessionFile
from session_format import SessionError
from session_reader import TooLong
from storage import Store

HOLD_BYTES = entry_index.HOLD_BYTES


@pytest.fixture(autouse=True)
def places_for_every_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(entry_index, "HOLD_BYTES", 0)


def short_session(store: Store, folder: Path, entries: int) -> Path:
    """One-line messages, then a move back to the first: a path of 3 entries, the rest off it."""
    session = create(store, folder, f"s{entries}")
    for number in range(entries):
        message = user_text(f"{number} next?") if number % 2 == 0 else assistant_message("ok.")
        session.append_message(message)
    session.append_branch("e1")
    session.append_message(user_text("again"))
    session.close()
    return session.path


def held_by_a_resume(path: Path, store: Store) -> int:
    """The bytes a resume of `path` holds once it is done (allocated, not yet freed)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        resumed = Session.open(path, store=store)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(resumed.context.messages) == 2  # e1 and "again": the rest is off the path
    resumed.session.close()
    return held


@pytest.mark.parametrize("store", STORES, ids=lambda store: store.__name__)
def test_a_line_off_the_path_costs_a_resume_a_few_bytes(store: Store, tmp_path: Path) -> None:
    """Each line of the session held as bytes until used, under its id in a dict, took more
    than the line (a 100-byte line, about 250 bytes). A place takes 16, wherever it is."""
    small = held_by_a_resume(short_session(store, tmp_path, 10_000), store)
    large = held_by_a_resume(short_session(store, tmp_path, 30_000), store)
    per_line = (large - small) / 20_000  # what a block read again holds is the same in both
    assert per_line < 40, f"{per_line:.0f} bytes held for each line off the path"


@pytest.mark.parametrize("store", STORES, ids=lambda store: store.__name__)
def test_a_resume_gives_what_a_read_that_holds_every_line_gives(
    store: Store, tmp_path: Path
) -> None:
    """A path that goes back through the whole file, many blocks of it read again."""
    session = create(store, tmp_path)
    for number in range(3_000):
        if number and number % 100 == 0:
            session.append_branch(entry_id(number - 80))  # a path of a fifth of the entries
        session.append_message(user_text(f"{number} " + "x" * (number % 300)))
    session.close()
    held = EntryIndex()  # no store to read from: every line held, as a student's store has it
    held.add_lines(stored_lines(store, session.path))
    resumed = Session.open(session.path, store=store)
    assert resumed.context == build_context(held, held.last_usable())
    assert resumed.session.entries.ids() == held.ids()
    assert dict(resumed.session.entries.items()) == dict(held.items())  # every line, read again
    resumed.session.close()


@pytest.mark.parametrize("store", STORES, ids=lambda store: store.__name__)
def test_a_short_read_is_held_and_a_long_one_is_read_again(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read of a few hundred kB (a compaction's kept part, say) is walked without a line read
    twice: the store is not asked for one. Past HOLD_BYTES, lines are places, read again."""
    session = create(store, tmp_path)
    for number in range(2_000):
        session.append_message(user_text(f"{number} " + "x" * 200))
    session.close()
    asked: list[int] = []
    for reader in (layer.LineReader, sqlite_rows.RowReader):
        read = reader.line_at
        monkeypatch.setattr(
            reader, "line_at", lambda self, at, read=read: [asked.append(at), read(self, at)][1]
        )
    for budget, read_again in [(HOLD_BYTES, False), (100_000, True)]:
        monkeypatch.setattr(entry_index, "HOLD_BYTES", budget)
        asked.clear()
        resumed = Session.open(session.path, store=store)
        resumed.session.close()
        assert bool(asked) is read_again, f"{len(asked)} lines read again, HOLD_BYTES {budget:,}"
        assert len(resumed.context.messages) == 2_000


def test_a_line_read_again_is_checked_again(tmp_path: Path) -> None:
    """Rewritten in place after the resume (an editor that writes over the file), a line is
    read again as it is now, and checked: nothing the model or /tree is given goes unchecked."""
    path = short_session(SessionFile, tmp_path, 30_000)  # 4 MiB: its middle is read by no walk
    resumed = Session.open(path)
    data = path.read_bytes()
    middle = data.index(b'{"type":"message","id":"e15001"')
    with open(path, "r+b") as file:  # its id and parent still readable, its message not
        file.seek(middle + data[middle:].index(b'"message":{'))
        file.write(b'"messag!"')
    entries = resumed.session.entries
    assert entries.damaged == 0
    assert entries["e15001"]["type"] == DAMAGED  # a stand-in, counted: not the message it was
    assert entries.damaged == 1
    assert entries["e15002"]["message"]["content"][0]["text"] == "ok."
    resumed.session.close()


@pytest.mark.parametrize("closed", [False, True], ids=["open", "closed"])
@pytest.mark.parametrize("store", STORES, ids=lambda store: store.__name__)
def test_a_line_is_read_again_from_the_session_read_or_not_at_all(
    store: Store, closed: bool, tmp_path: Path
) -> None:
    """A session put in its place during the run is not the one read: a line the resume did not
    need yet comes from the one read (the file, still open), or is refused (a database, whose
    rows are read by seq), and an append refuses the new one. Never the other's entry, even
    once the session was closed (its lock let go, its database connection too)."""
    path = short_session(store, tmp_path, 600)
    resumed = Session.open(path, store=store)
    if closed:
        resumed.session.close()
    other = create(store, tmp_path, "other")
    for number in range(600):
        other.append_message(user_text(f"not this {number}"))
    other.close()
    os.replace(other.path, path)
    try:
        text = resumed.session.entries["e301"]["message"]["content"][0]["text"]
    except SessionError as refused:
        assert "was replaced" in str(refused)
    else:
        assert text == "300 next?"
    if not closed:
        with pytest.raises(SessionError, match="replaced"):
            resumed.session.append_message(user_text("three"))
    resumed.session.close()


# --- A line read again is the line read -----------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 300), min_size=1, max_size=30),
    ended=st.booleans(),
    order=st.sampled_from(["walk back", "read forward", "any"]),
    seed=st.integers(0, 2**16),
)
def test_a_line_read_again_is_the_line_the_reader_gave(
    lengths: list[int], ended: bool, order: str, seed: int
) -> None:
    """A file's reader gives a line back by its place a block at a time (session_reader's
    LineReader): however long the line against the block, and in whatever order the lines are
    asked for, it gives the bytes the first read gave; of a line too long to read, as many as
    say so. Sizes shrunk here, so that a few hundred bytes cross every border."""
    data = b"".join(b"%d:" % n + b"x" * n + b"\n" for n in lengths)
    data = data if ended else data[:-1]
    saved = layer._BLOCK, layer._HEAD_BYTES, layer._READ_CHUNK, layer.MAX_ENTRY_BYTES
    layer._BLOCK, layer._HEAD_BYTES, layer._READ_CHUNK, layer.MAX_ENTRY_BYTES = 64, 8, 128, 200
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "lines.jsonl"
            path.write_bytes(data)
            with path.open("rb") as file:
                read = [
                    (at, line)
                    for batch in layer.line_batches(path, file)
                    for at, line in zip(batch.at, batch, strict=True)
                ]
            if order == "walk back":
                read.reverse()
            elif order == "any":
                random.Random(seed).shuffle(read)
            again = layer.LineReader(path, os.open(path, os.O_RDONLY))
            for at, line in read:
                if isinstance(line, TooLong):  # read past: its start, and more than the bound
                    given_back = again.line_at(at)
                    assert given_back.startswith(line.head)
                    assert len(given_back) == layer.MAX_ENTRY_BYTES + 1
                else:
                    assert again.line_at(at) == line
    finally:
        layer._BLOCK, layer._HEAD_BYTES, layer._READ_CHUNK, layer.MAX_ENTRY_BYTES = saved


def test_a_walk_back_over_long_lines_reads_the_file_about_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines of 10 kB (a tool's long output), read again from the last to the first, as a walk
    from the leaf asks for them: about the file's bytes are read, not a chunk (4 MiB) for each
    line that begins near the start of a block and goes on past it."""
    data = b"".join(b"%d:" % n + b"x" * 10_000 + b"\n" for n in range(600))  # 6 MB
    path = tmp_path / "long-lines.jsonl"
    path.write_bytes(data)
    with path.open("rb") as file:
        places = [at for batch in layer.line_batches(path, file) for at in batch.at]
    read = []
    pread = os.pread

    def counted(fd: int, size: int, offset: int) -> bytes:
        read.append(len(got := pread(fd, size, offset)))
        return got

    monkeypatch.setattr(os, "pread", counted)
    again = layer.LineReader(path, os.open(path, os.O_RDONLY))
    assert [again.line_at(at) for at in reversed(places)] == data.split(b"\n")[-2::-1]
    assert sum(read) < 1.5 * len(data)  # each block, and the rest of a line it cuts (it was 2.8)


# --- LinePlaces against a list of (id, place) -------------------------------------------------

IDS = st.one_of(
    st.integers(1, 60).map(entry_id),  # as the lab writes them, in order or not
    st.sampled_from(["x1", "e01", "e" + "9" * 19, "é"]),  # ids of another shape
)
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), IDS, st.integers(-1, 10**6)),
        st.tuples(st.just("grow"), st.integers(1, 20), st.integers(1, 3)),
        st.tuples(st.just("remove"), IDS),
    ),
    max_size=40,
)


def as_number(key: str) -> int:  # e7 -> 7, as the lab writes ids; 0 for any other shape
    digits = key[1:]
    lab_id = key[:1] == "e" and digits.isdigit() and digits[0] != "0" and len(digits) < 19
    return int(digits) if lab_id else 0


@settings(max_examples=300, deadline=None)
@given(STEPS)
def test_line_places_say_what_a_list_of_lines_says(steps: list[tuple]) -> None:
    """Whatever the order of the ids, a dict taking over from the arrays when they stop
    growing: every id is found where it was put, removed ones are not, file order stays."""
    places, model = LinePlaces(), []  # model: [id, place] a line, None once removed
    for step in steps:
        live = {entry[0]: n for n, entry in enumerate(model) if entry is not None}
        if step[0] == "add" and step[1] not in live:
            places.add(step[1], max(step[2], HELD))
            model.append([step[1], max(step[2], HELD)])
        elif step[0] == "grow":  # a batch of ids e<N> past the largest, as a reader's
            top = max((as_number(key) for key in live), default=0)
            numbers = [top + step[1] + n * step[2] for n in range(5)]
            if not places.extend(array("q", numbers), range(5)):  # refused: one by one, then
                for at, number in enumerate(numbers):
                    places.add(entry_id(number), at)
            model += [[entry_id(n), at] for at, n in enumerate(numbers)]
        elif step[0] == "remove" and step[1] in live:
            places.remove(places.line_of(step[1]))  # type: ignore[arg-type]
            model[live[step[1]]] = None
    live = {entry[0]: entry[1] for entry in model if entry is not None}
    assert [places.key(line) for line in places.lines()] == list(live)
    assert [places.key(line) for line in places.lines(backwards=True)] == list(live)[::-1]
    for key, at in live.items():
        assert places.where[places.line_of(key)] == at  # type: ignore[index]
        assert places.place_of(key) == (at if at >= 0 else None)
    for key in {step[1] for step in steps if step[0] != "grow"} - set(live):
        assert places.line_of(key) is None
    numbers = [as_number(key) for key in live]
    assert places.largest() == max(numbers, default=0)
    in_order = all(numbers) and all(a < b for a, b in zip(numbers, numbers[1:], strict=False))
    assert places.in_order() == in_order
    assert all(places.where[line] != GONE for line in places.lines())
