"""Check 01.3: a correction is appended through the store (the file's old bytes, and the file
itself, untouched), only a message entry can be corrected, old readers skip corrections, and
the current view shows each corrected message with its latest correction.

Every correction carries a text that differs from the original and from the other
corrections, so a view that ignores corrections, or lets the first one win, shows a
different text than the one expected; and every refused target (no such entry, an id like
e0, the header, a correction) is tried, because a check that only tries "e99" accepts a
solution that only refuses "e99".
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from ledger_store import LedgerStore, read_ledger
from messages import make_history, make_message, message_text, text_message


def check(module: ModuleType) -> str:
    correct, view_of = module.append_correction, module.current_view
    history = make_history(6)  # e1..e6: user, assistant, user, ...
    with tempfile.TemporaryDirectory() as temporary:
        path = Path(temporary) / "session.jsonl"
        store = LedgerStore.create(path)
        for message in history:
            store.append(message)
        written = spy_on_write_entry(store)

        # One correction: one more line, through the store, nothing else touched.
        identity, before = file_identity(path), path.read_bytes()
        new_id = correct(store, "e2", "1 * 7 = 7, checked twice.")
        after = path.read_bytes()
        assert file_identity(path) == identity, (
            "the session file was replaced by a new file (a rewrite, like the atomic "
            "snapshot): append to the store's own file instead, with store.write_entry",
            correct,
        )
        assert after.startswith(before), (
            "the old bytes changed: a ledger is never rewritten; append a correction entry "
            "and leave the message it corrects as it was",
            correct,
        )
        added = after.count(b"\n") - before.count(b"\n")
        assert len(written) == 1 and added == 1, (
            f"append_correction must write exactly one entry through store.write_entry (it "
            f"called it {len(written)} times and added {added} lines), so the store's ids and "
            "parents move on with the file",
            correct,
        )
        assert new_id == "e7", (
            f"the correction should get the next id, e7, and return it, not {new_id!r}",
            correct,
        )
        reading = read_ledger(path)
        assert reading.messages == history, "the step's reader must still see the original"
        expected_entry = {
            "type": "correction",
            "id": "e7",
            "parentId": "e6",
            "corrects": "e2",
            "text": "1 * 7 = 7, checked twice.",
        }
        assert reading.other_entries == [expected_entry], (
            f"the correction entry should be {expected_entry}, got {reading.other_entries}",
            correct,
        )

        # Only a message entry already in the file can be corrected; a refusal writes nothing.
        for target, what in [
            ("e99", "no entry has that id"),
            ("e0", "ids start at e1"),
            ("e8", "the id the NEXT entry will get"),
            ("session", "the header's id: the header is no message"),
            ("e7", "a correction, not a message: correct the message itself"),
            ("E2", "ids are compared exactly"),
        ]:
            size = path.stat().st_size
            try:
                correct(store, target, "should be refused")
            except ValueError:
                pass
            else:
                raise AssertionError(
                    f"correcting {target!r} ({what}) must raise ValueError: only a message "
                    "entry already in the file can be corrected",
                    correct,
                )
            assert path.stat().st_size == size and len(written) == 1, (
                f"refusing {target!r} must not write anything",
                correct,
            )

        # More corrections, between more messages: each message shows its latest correction.
        correct(store, "e1", "question 1: what is 1 * 8?")  # e8, of a user message
        store.append(make_message(6))  # e9
        correct(store, "e2", "1 * 8 = 8.")  # e10: e2's second correction, the one that counts
        correct(store, "e9", "question 4: what is 4 * 8?")  # e11: of a message after corrections
        store.append(make_message(7))  # e12
        store.close()
        ids_and_parents = [(e["id"], e["parentId"]) for e in all_entries(path)]
        expected_chain = [(f"e{n}", f"e{n - 1}" if n > 1 else None) for n in range(1, 13)]
        assert ids_and_parents == expected_chain, (
            f"ids and parents must keep going through corrections (e1 <- e2 <- ...), got "
            f"{ids_and_parents}: write through store.write_entry",
            correct,
        )

        before = path.read_bytes()
        view = view_of(path)
        assert path.read_bytes() == before, ("current_view must only read the file", view_of)
    expected = history + [make_message(6), make_message(7)]
    expected[0] = text_message("user", "question 1: what is 1 * 8?")
    expected[1] = text_message("assistant", "1 * 8 = 8.")
    expected[6] = text_message("user", "question 4: what is 4 * 8?")
    assert isinstance(view, list) and len(view) == len(expected), (
        f"current_view should return the {len(expected)} messages (one per message entry; a "
        f"correction is not a message of its own), got {describe(view)}",
        view_of,
    )
    for number, (want, got) in enumerate(zip(expected, view, strict=True), start=1):
        original = make_message(number - 1)
        if got == want:
            continue
        if got == original:
            problem = "its original text: apply the corrections"
        elif message_text(got) == "1 * 7 = 7, checked twice.":
            problem = "an earlier correction: the LATEST correction wins"
        elif message_text(got) == message_text(want):
            problem = f"the right text in another shape, {got!r}: keep the message's role"
        else:
            problem = f"{message_text(got)!r}"
        raise AssertionError(
            f"current_view shows e{number} as {problem}; expected {message_text(want)!r}",
            view_of,
        )
    return (
        "each correction was appended as one entry through the store, the file's old bytes "
        "untouched; 6 targets that are no message entry were refused without writing; this "
        "step's reader skips corrections; the view shows the latest correction of each of 3 "
        "messages, roles kept"
    )


def spy_on_write_entry(store: LedgerStore) -> list[dict[str, Any]]:
    """Record every entry written through this store, and still write it."""
    written: list[dict[str, Any]] = []
    real = store.write_entry

    def recording(entry: dict[str, Any]) -> int:
        written.append(entry)
        return real(entry)

    store.write_entry = recording  # type: ignore[method-assign]
    return written


def file_identity(path: Path) -> tuple[int, int]:
    """(device, inode): which file the name means. A rename over it gives a new one."""
    status = path.stat()
    return status.st_dev, status.st_ino


def all_entries(path: Path) -> list[dict[str, Any]]:
    """Every entry after the header, of any kind, in file order."""
    return [orjson.loads(line) for line in path.read_bytes().splitlines()[1:]]


def describe(view: object) -> str:
    if isinstance(view, list):
        return f"{len(view)}: {[message_text(m) for m in view]}"
    return f"a {type(view).__name__}"
