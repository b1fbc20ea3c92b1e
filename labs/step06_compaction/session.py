"""A session: a header, then a tree of entries, each appended as a child of the leaf.

This is the idea; the bytes are session_file.py's, the only module that touches the disk.
`Session.append_entry` is the one way to write an entry; `persist_new_messages`, the bridge from
the loop's list to the file, writes what is new since a cursor. The file is a ledger, only ever
appended to, and created by the first write: a run that says nothing leaves nothing.

Reading is tolerant: a crash can tear the last line, an editor can add a blank one, a newer
program can add entry kinds. A line that is not an entry is skipped and counted; an unknown
kind is kept, its parentId still linking the tree (entry_index.py). `Session.open` rebuilds the
conversation by walking from the leaf; the folder of sessions is session_folder.py's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from entries import (
    BranchEntry,
    CompactionEntry,
    Context,
    Entry,
    MessageEntry,
    ModelChangeEntry,
    build_context,
)
from entry_index import EntryIndex
from file_order import ids_in_order
from messages import Message
from session_file import (  # the names marked F401 are here for callers: errors, the format
    SESSION_VERSION,  # noqa: F401
    SessionError,  # noqa: F401
    SessionFile,
    SessionHeader,
    UnusableSessionFile,  # noqa: F401
    encode,
    new_header,
    read_header,  # noqa: F401
    read_lines,
    read_lines_from_the_end,
)
from session_folder import find_latest_session, list_session_files  # noqa: F401


@dataclass(frozen=True)
class SessionReading:
    """What a read found in a session file."""

    header: SessionHeader
    by_id: dict[str, Entry]  # every usable entry, of every kind, by id, in file order
    leaf_id: str | None  # where the conversation ends: the file's last usable entry
    skipped: int  # lines that were blank, not UTF-8, not JSON, too long or not an entry

    @property
    def entries(self) -> list[Entry]:
        """The usable entries in file order (which need not be the conversation's order)."""
        return list(self.by_id.values())


@dataclass(frozen=True)
class Resumed:
    """What `Session.open` gives back. Fields by name, so a later step can add one."""

    session: Session
    context: Context  # the conversation on the path from the leaf
    skipped: int  # damaged lines passed over


class Session:
    """A session file that entries are appended to, and the entries it holds."""

    def __init__(self, file: SessionFile, header: SessionHeader) -> None:
        self.file = file
        self.header = header
        self.entries = EntryIndex()  # by id: what the file held, and what this run wrote
        self.leaf_id: str | None = None  # the entry the next one hangs under
        self.written = 0  # entries this run appended, of every kind
        self.read_whole = True  # False while a resume has left the start of the file unread

    @classmethod
    def create(
        cls,
        directory: Path | str,
        *,
        session_id: str,
        created_at: str,
        cwd: str,
    ) -> Session:
        """A new session in `directory/<session_id>.jsonl`, written by its first entry: a run that
        saves nothing leaves no empty session behind."""
        header = new_header(session_id, created_at, cwd)
        path = Path(directory) / f"{session_id}.jsonl"
        return cls(SessionFile(path, header, exists=False), header)

    @classmethod
    def open(cls, path: Path | str) -> Resumed:
        """Open an existing session to append to it, and rebuild its conversation: the path
        from the leaf (the last usable entry), whatever the lines around it say. Nothing is
        re-run: tool results are messages in the file, so the history comes back as it was.

        The file is read from its end, and only as far back as the walk from the leaf goes: a
        parent is always written before its child. With a compaction on the path, the walk
        ends at its first kept entry, and the lines before are never read. New ids stay
        unique all the same: each id the lab writes is one past the largest in the file, so
        ids grow along the file, and the largest is in the part read.
        """
        tail = read_lines_from_the_end(Path(path))
        session = cls(SessionFile(Path(path), None, exists=True), tail.header)
        session.read_whole = False  # an index read from the end is not in file order
        context = build_context(session.entries, None)
        stopped = False  # before the start of the file
        for block in tail.blocks:  # the end of the file first
            for line in reversed(block):
                session.entries.add_line(line)
            session.leaf_id = next(iter(session.entries), None)  # the last usable line
            context = build_context(session.entries, session.leaf_id)
            if session.leaf_id is not None and context.chain_break is None:  # Stop here:
                # the walk from the leaf is whole: no earlier line is on it.
                tail.blocks.close()  # and the file with it
                stopped = True
                break
        # Of two lines with one id, the first counts: the leaf may be a repeat of a line not
        # read, and only the whole file in order tells (ids_in_order: the lines not read too).
        if session.entries.repeats or (stopped and not ids_in_order(Path(path))):
            session.read_all()
            session.leaf_id = session.entries.last_usable()
            context = build_context(session.entries, session.leaf_id)
        return Resumed(session, context, session.entries.damaged)

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def exists(self) -> bool:
        """False until the first write creates the file."""
        return self.file.exists

    def append_entry(self, kind: str, fields: Mapping[str, Any]) -> Entry:
        """Append an entry of `kind` as a child of the leaf, then advance the leaf: the one way
        to write. It picks the next unique id, hangs the entry under the leaf, writes it as one
        whole line in one write, and only then moves the leaf."""
        if clash := {"type", "id", "parentId"} & fields.keys():  # those are this method's job
            raise ValueError(f"append_entry sets {sorted(clash)} itself")
        new_id = self.entries.new_id()  # one no line of the file has
        entry: Entry = {"type": kind, "id": new_id, "parentId": self.leaf_id, **fields}
        # Stop here: orjson escapes newlines inside strings, so an entry is always one line.
        self.file.append(encode(self.path, entry))
        self.written += 1
        self.entries[entry["id"]] = entry
        self.leaf_id = entry["id"]
        return entry

    def append_message(self, message: Message) -> MessageEntry:
        """Append `message` as a child of the leaf, then advance the leaf."""
        return cast(MessageEntry, self.append_entry("message", {"message": message}))

    def append_model_change(self, model: str) -> ModelChangeEntry:
        """Record a switch to `model` as a child of the leaf, then advance the leaf."""
        return cast(ModelChangeEntry, self.append_entry("model_change", {"model": model}))

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

    def append_compaction(self, summary: str, first_kept_id: str | None) -> CompactionEntry:
        """Record that `summary` stands in for the path before `first_kept_id`: one line, and
        not a byte of what it summarises is rewritten."""
        fields = {"summary": summary, "firstKeptId": first_kept_id}
        return cast(CompactionEntry, self.append_entry("compaction", fields))

    def read_all(self) -> None:
        """Index the whole file, if a resume left its start unread: /tree and /branch need
        every entry. Damage found there is counted in `entries.damaged`, for main.py to name."""
        if self.read_whole:
            return
        entries = EntryIndex()
        for line in read_lines(self.path).lines:
            entries.add_line(line)
        self.entries, self.read_whole = entries, True


def persist_new_messages(session: Session, messages: Sequence[Message], persisted: int) -> int:
    """Append `messages[persisted:]` to the session and return the new cursor: how many
    messages of the list are in the file. Give it back next time; twice writes nothing twice."""
    if not 0 <= persisted <= len(messages):
        raise ValueError(f"cursor {persisted} is outside the {len(messages)} messages")
    for message in messages[persisted:]:
        session.append_message(message)
    return len(messages)


def read_session(path: Path | str) -> SessionReading:
    """Read a whole session file, skipping and counting what is not an entry. Refuses only a
    file that cannot be a session (UnusableSessionFile). Never writes."""
    entries = EntryIndex()
    lines = read_lines(Path(path))
    for line in lines.lines:
        entries.add_line(line)
    by_id = dict(entries)
    return SessionReading(lines.header, by_id, entries.last_usable(), entries.damaged)
