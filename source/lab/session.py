# >>file 02
# >> 02 until 03
# """A session: a header, then one entry per line, each appended as a child of the leaf.
#
# This is the idea; the bytes are session_file.py's, the only module that touches the disk.
# `Session.append_entry` is the one way to write an entry; `persist_new_messages`, the bridge from
# the loop's list to the file, writes what is new since a cursor. The file is a ledger, only ever
# appended to, and created by the first write: a run that says nothing leaves nothing.
# """
# << 02 until 03
# >> 03 until prod
# """A session: a header, then a tree of entries, each appended as a child of the leaf.
#
# This is the idea; the bytes are session_file.py's, the only module that touches the disk.
# `Session.append_entry` is the one way to write an entry; `persist_new_messages`, the bridge from
# the loop's list to the file, writes what is new since a cursor. The file is a ledger, only ever
# appended to, and created by the first write: a run that says nothing leaves nothing.
#
# Reading is tolerant: a crash can tear the last line, an editor can add a blank one, a newer
# program can add entry kinds. A line that is not an entry is skipped and counted; an unknown
# kind is kept, its parentId still linking the tree (entry_index.py). `Session.open` rebuilds the
# conversation by walking from the leaf; the folder of sessions is session_folder.py's.
# """
# << 03 until prod
# >> prod
"""A session: a header, then a tree of entries, each appended as a child of the leaf.

This is the idea; the bytes are a store's, reached only through the seam of storage.py (the
JSONL file, session_file.py, is the store a run uses unless told otherwise).
`Session.append_entry` is the one way to write an entry; `persist_new_messages`, the bridge from
the loop's list to the file, writes what is new since a cursor. The file is a ledger, only ever
appended to, and created by the first write: a run that says nothing leaves nothing.

Reading is tolerant: a crash can tear the last line, an editor can add a blank one, a newer
program can add entry kinds. A line that is not an entry is skipped and counted; an unknown
kind is kept, its parentId still linking the tree (entry_index.py). `Session.open` rebuilds the
conversation by walking from the leaf; the folder of sessions is session_folder.py's.
"""
# << prod

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from entries import Entry, MessageEntry

# >> 02 until 03
# from entries import NotAnEntry, entry_id, parse_entry
# << 02 until 03
# >> 03
from entries import Context, build_context

# << 03
# >> 04
from entries import ModelChangeEntry

# << 04
# >> 05
from entries import (
    # >> prod
    DAMAGED,
    # << prod
    BranchEntry,
    # >> 06
    CompactionEntry,
    # << 06
)

# << 05
# >> 03
from entry_index import EntryIndex

# << 03
# >> prod
from entries import NotAnEntry, parse_entry

# << prod
# >> 06 until prod
# from file_order import ids_in_order
# << 06 until prod
from messages import Message
from session_file import (  # the names marked F401 are here for callers: errors, the format
    SESSION_VERSION,  # noqa: F401
    SessionError,  # noqa: F401
    SessionFile,
    SessionHeader,
    # >> prod
    SessionInUse,  # noqa: F401
    # << prod
    # >> 02 until 03
    # UnusableSessionFile,
    # << 02 until 03
    # >> 03
    UnusableSessionFile,  # noqa: F401
    # << 03
    encode,
    new_header,
    # >> 03
    read_header,  # noqa: F401
    # << 03
    # >> 02 until prod
    # read_lines,
    # << 02 until prod
    # >> 06 until prod
    # read_lines_from_the_end,
    # << 06 until prod
)

# >> 03
# >> 03 until prod
# from session_folder import find_latest_session, list_session_files  # noqa: F401
# << 03 until prod
# >> prod
from session_folder import find_latest_session, holds_a_message, list_session_files  # noqa: F401
from storage import SessionStorage, Store, read_back
from stores import stored_lines

# << prod
# << 03


@dataclass(frozen=True)
class SessionReading:
    """What a read found in a session file."""

    header: SessionHeader
    by_id: dict[str, Entry]  # every usable entry, of every kind, by id, in file order
    leaf_id: str | None  # where the conversation ends: the file's last usable entry
    # >> 03
    skipped: int  # lines that were blank, not UTF-8, not JSON, too long or not an entry
    # << 03

    @property
    def entries(self) -> list[Entry]:
        """The usable entries in file order (which need not be the conversation's order)."""
        return list(self.by_id.values())


# >> 03


@dataclass(frozen=True)
class Resumed:
    """What `Session.open` gives back. Fields by name, so a later step can add one."""

    session: Session
    context: Context  # the conversation on the path from the leaf
    skipped: int  # damaged lines passed over


# << 03


class Session:
    """A session file that entries are appended to, and the entries it holds."""

    # >> 02 until prod
    # def __init__(self, file: SessionFile, header: SessionHeader) -> None:
    # << 02 until prod
    # >> prod
    def __init__(self, file: SessionStorage, header: SessionHeader) -> None:
        # << prod
        self.file = file
        self.header = header
        # >> 02 until 03
        # self.entries: dict[str, Entry] = {}  # by id: what this run wrote
        # << 02 until 03
        # >> 03 until prod
        # self.entries = EntryIndex()  # by id: what the file held, and what this run wrote
        # << 03 until prod
        # >> prod
        self.entries = EntryIndex()  # by id, each parsed the first time it is used
        # << prod
        self.leaf_id: str | None = None  # the entry the next one hangs under
        self.written = 0  # entries this run appended, of every kind
        # >> 06
        self.read_whole = True  # False while a resume has left the start of the file unread
        # << 06

    @classmethod
    def create(
        cls,
        directory: Path | str,
        *,
        session_id: str,
        created_at: str,
        cwd: str,
        # >> prod
        lock: bool = False,
        fsync: bool = False,
        store: Store = SessionFile,
        # << prod
    ) -> Session:
        """A new session in `directory/<session_id>.jsonl`, written by its first entry: a run that
        saves nothing leaves no empty session behind."""
        header = new_header(session_id, created_at, cwd)
        # >> 02 until prod
        # path = Path(directory) / f"{session_id}.jsonl"
        # return cls(SessionFile(path, header, exists=False), header)
        # << 02 until prod
        # >> prod
        path = Path(directory) / f"{session_id}{store.suffix}"
        return cls(store.new(path, header, lock=lock, fsync=fsync), header)
        # << prod

    # >> 03

    @classmethod
    # >> 03 until prod
    # def open(cls, path: Path | str) -> Resumed:
    # << 03 until prod
    # >> prod
    def open(
        cls,
        path: Path | str,
        *,
        lock: bool = False,
        fsync: bool = False,
        store: Store = SessionFile,
    ) -> Resumed:
        # << prod
        # >> 03 until 06
        # """Open an existing session to append to it, and rebuild its conversation: the path
        # from the leaf (the last usable entry), whatever the lines around it say. Nothing is
        # re-run: tool results are messages in the file, so the history comes back as it was.
        # """
        # << 03 until 06
        # >> 06 until prod
        # """Open an existing session to append to it, and rebuild its conversation: the path
        # from the leaf (the last usable entry), whatever the lines around it say. Nothing is
        # re-run: tool results are messages in the file, so the history comes back as it was.
        #
        # The file is read from its end, and only as far back as the walk from the leaf goes: a
        # parent is always written before its child. With a compaction on the path, the walk
        # ends at its first kept entry, and the lines before are never read. New ids stay
        # unique all the same: each id the lab writes is one past the largest in the file, so
        # ids grow along the file, and the largest is in the part read.
        # """
        # << 06 until prod
        # >> prod
        """Open an existing session to append to it, and rebuild its conversation: the path
        from the leaf (the last usable entry), whatever the lines around it say. Nothing is
        re-run: tool results are messages in the file, so the history comes back as it was.

        The file is read from its end, and only as far back as the walk from the leaf goes: a
        parent is always written before its child. With a compaction on the path, the walk
        ends at its first kept entry, and the lines before are never read. New ids stay
        unique all the same: each id the lab writes is one past the largest in the file, so
        ids grow along the file, and the largest is in the part read.

        Stop here: with `lock`, the file is locked before it is read, until `close`
        (SessionInUse if another run holds it). The lock is what keeps the leaf and the next
        id read here true; without it, a second run reads the same leaf, writes the same id.
        """
        # << prod
        # >> 03 until 06
        # lines = read_lines(Path(path))
        # session = cls(SessionFile(Path(path), None, exists=True), lines.header)
        # for line in lines.lines:
        #     session.entries.add_line(line)
        # session.leaf_id = session.entries.last_usable()  # where the conversation ends
        # context = build_context(session.entries, session.leaf_id)
        # return Resumed(session, context, session.entries.damaged)
        # << 03 until 06
        # >> 06 until prod
        # tail = read_lines_from_the_end(Path(path))
        # session = cls(SessionFile(Path(path), None, exists=True), tail.header)
        # session.read_whole = False  # an index read from the end is not in file order
        # context = build_context(session.entries, None)
        # stopped = False  # before the start of the file
        # for block in tail.blocks:  # the end of the file first
        #     for line in reversed(block):
        #         session.entries.add_line(line)
        #     session.leaf_id = next(iter(session.entries), None)  # the last usable line
        #     context = build_context(session.entries, session.leaf_id)
        #     if session.leaf_id is not None and context.chain_break is None:  # Stop here:
        #         # the walk from the leaf is whole: no earlier line is on it.
        #         tail.blocks.close()  # and the file with it
        #         stopped = True
        #         break
        # # Of two lines with one id, the first counts: the leaf may be a repeat of a line not
        # # read, and only the whole file in order tells (ids_in_order: the lines not read too).
        # if session.entries.repeats or (stopped and not ids_in_order(Path(path))):
        #     session.read_all()
        #     session.leaf_id = session.entries.last_usable()
        #     context = build_context(session.entries, session.leaf_id)
        # return Resumed(session, context, session.entries.damaged)
        # << 06 until prod
        # >> prod
        file = store.existing(Path(path), lock=lock, fsync=fsync)
        try:
            with file.reading(resume=True) as lines:  # only what the last compaction keeps
                session = cls(file, lines.header)
                session.entries = EntryIndex(read_back(lines))  # keeps a line's place, if it can
                session.read_whole = lines.whole
                first = None  # the part's first line: the kept message, or the compaction
                for batch in lines.batches:
                    if first is None and batch:
                        first = batch[0]
                    session.entries.add_lines(batch)
                session.leaf_id = session.entries.last_usable()  # where the conversation ends
                context = build_context(session.entries, session.leaf_id)
            # The kept part alone will do if the walk is whole in it, its lines are in order (a
            # line appended later that repeats an id from before it would not be), and it
            # begins with an entry: begun at a damaged line, it vouches for nothing before it.
            untrusted = not session.read_whole and (
                not session.entries.in_order() or not _an_entry(first)
            )
            if session.leaf_id is None or context.chain_break is not None or untrusted:
                session.read_all()  # the walk needs more than the kept part: read it all
                session.leaf_id = session.entries.last_usable()
                context = build_context(session.entries, session.leaf_id)
        except BaseException:
            file.close()
            raise
        return Resumed(session, context, session.entries.damaged)
        # << prod

    # << 03

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def exists(self) -> bool:
        """False until the first write creates the file."""
        return self.file.exists

    # >> prod

    @property
    def locked(self) -> bool:
        return self.file.locked

    def close(self) -> None:
        """Let go of the lock, if held."""
        self.file.close()

    def _index_lines_added(self) -> None:
        """Another program may have appended (a script, a tool: a lock keeps out only the runs
        that take it). Its lines are indexed before a write, so that their ids are taken."""
        for batch in self.file.lines_added():
            self.entries.add_lines(batch)

    # << prod

    def append_entry(self, kind: str, fields: Mapping[str, Any]) -> Entry:
        """Append an entry of `kind` as a child of the leaf, then advance the leaf: the one way
        to write. It picks the next unique id, hangs the entry under the leaf, writes it as one
        whole line in one write, and only then moves the leaf."""
        # >> prod
        self._index_lines_added()
        # << prod
        if clash := {"type", "id", "parentId"} & fields.keys():  # those are this method's job
            raise ValueError(f"append_entry sets {sorted(clash)} itself")
        # >> 02 until 03
        # new_id = entry_id(len(self.entries) + 1)  # this run wrote every entry of the file
        # << 02 until 03
        # >> prod
        if kind == DAMAGED:  # the reader's stand-in for a line it could not use, never written
            raise ValueError(f"append_entry never writes a {DAMAGED!r} entry: it holds nothing")
        # << prod
        # >> 03
        new_id = self.entries.new_id()  # one no line of the file has
        # << 03
        entry: Entry = {"type": kind, "id": new_id, "parentId": self.leaf_id, **fields}
        # >> 02 until prod
        # # Stop here: orjson escapes newlines inside strings, so an entry is always one line.
        # << 02 until prod
        # >> prod
        # Stop here: orjson escapes newlines inside strings, so an entry is always one line. Its
        # key order (type, id first) lets `EntryIndex` index the line without parsing it.
        # << prod
        self.file.append(encode(self.path, entry))
        self.written += 1
        self.entries[entry["id"]] = entry
        self.leaf_id = entry["id"]
        return entry

    def append_message(self, message: Message) -> MessageEntry:
        """Append `message` as a child of the leaf, then advance the leaf."""
        return cast(MessageEntry, self.append_entry("message", {"message": message}))

    # >> 04

    def append_model_change(self, model: str) -> ModelChangeEntry:
        """Record a switch to `model` as a child of the leaf, then advance the leaf."""
        return cast(ModelChangeEntry, self.append_entry("model_change", {"model": model}))

    # << 04
    # >> 05

    def append_branch(self, target_id: str) -> BranchEntry:
        """Move the leaf to `target_id`: a branch entry as a child of the target, which then
        becomes the leaf. Constant time: nothing is read, copied or rewritten.

        Stop here: the old branch stays in the file, untouched. Moving the leaf is both undo
        (go back to an earlier entry) and fork (the next message starts a new branch there).
        """
        if target_id not in self.entries:
            raise SessionError(f"no entry {target_id} in {self.path}")
        moved_from, self.leaf_id = self.leaf_id, target_id
        try:
            return cast(BranchEntry, self.append_entry("branch", {"fromId": moved_from}))
        except BaseException:  # a failed write, or a stop signal: not written, so not moved
            if self.leaf_id == target_id:
                self.leaf_id = moved_from
            raise

    # << 05
    # >> 06

    def append_compaction(self, summary: str, first_kept_id: str | None) -> CompactionEntry:
        """Record that `summary` stands in for the path before `first_kept_id`: one line, and
        not a byte of what it summarises is rewritten."""
        fields = {"summary": summary, "firstKeptId": first_kept_id}
        # >> prod
        # Stop here: where the line will begin, if every line before it is in order. A resume
        # that finds this compaction at the end of the file skips all before it only if the
        # compaction is at that place: a copy of it appended later (a backup glued on) is not.
        self._index_lines_added()
        if self.entries.in_order() and (at := self.file.position()) is not None:
            fields["at"] = at
        # << prod
        return cast(CompactionEntry, self.append_entry("compaction", fields))

    def read_all(self) -> None:
        """Index the whole file, if a resume left its start unread: /tree and /branch need
        every entry. Damage found there is counted in `entries.damaged`, for main.py to name."""
        if self.read_whole:
            return
        # >> 06 until prod
        # entries = EntryIndex()
        # for line in read_lines(self.path).lines:
        #     entries.add_line(line)
        # << 06 until prod
        # >> prod
        with self.file.reading() as lines:  # from the start, and up to whatever is there now
            entries = EntryIndex(read_back(lines))
            for batch in lines.batches:
                entries.add_lines(batch)
        # << prod
        self.entries, self.read_whole = entries, True

    # << 06


def persist_new_messages(session: Session, messages: Sequence[Message], persisted: int) -> int:
    """Append `messages[persisted:]` to the session and return the new cursor: how many
    messages of the list are in the file. Give it back next time; twice writes nothing twice."""
    if not 0 <= persisted <= len(messages):
        raise ValueError(f"cursor {persisted} is outside the {len(messages)} messages")
    for message in messages[persisted:]:
        session.append_message(message)
    return len(messages)


def read_session(path: Path | str) -> SessionReading:
    # >> 02 until 03
    # """Read a whole session file strictly: a line that is not an entry refuses the file,
    # naming the line and the reason (step 03 makes reading tolerant). Never writes."""
    # by_id: dict[str, Entry] = {}
    # lines = read_lines(Path(path))
    # for number, line in enumerate(lines.lines, start=2):  # line 1 is the header
    #     try:
    #         entry = parse_entry(line)
    #     except NotAnEntry as damage:
    #         raise UnusableSessionFile(Path(path), f"line {number}: {damage}") from None
    #     if entry["id"] in by_id:
    #         raise UnusableSessionFile(
    #             Path(path), f"line {number}: the id {entry['id']} is already taken"
    #         )
    #     by_id[entry["id"]] = entry
    # return SessionReading(lines.header, by_id, next(reversed(by_id), None))
    # << 02 until 03
    # >> 03
    """Read a whole session file, skipping and counting what is not an entry. Refuses only a
    file that cannot be a session (UnusableSessionFile). Never writes."""
    entries = EntryIndex()
    # >> 03 until prod
    # lines = read_lines(Path(path))
    # for line in lines.lines:
    #     entries.add_line(line)
    # by_id = dict(entries)
    # << 03 until prod
    # >> prod
    with stored_lines(Path(path)) as lines:  # through its own store: a file, a database
        for batch in lines.batches:
            entries.add_lines(batch)
        by_id = dict(entries.items())  # parses and checks every entry
    # << prod
    return SessionReading(lines.header, by_id, entries.last_usable(), entries.damaged)
    # << 03


# >> prod
def _an_entry(line: object) -> bool:
    """Whether a line read is a whole entry (not a blank, torn or too long line)."""
    if type(line) is not bytes:  # None (nothing read), or TooLong
        return False
    try:
        parse_entry(line)
    except NotAnEntry:
        return False
    return True


# << prod
