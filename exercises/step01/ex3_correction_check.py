"""Check 01.3: a correction is appended (old bytes untouched), old readers skip it, and the
current view shows the latest correction."""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import ModuleType

from ledger_store import LedgerStore, read_ledger
from messages import make_history, message_text


def check(module: ModuleType) -> str:
    history = make_history(4)
    with tempfile.TemporaryDirectory() as temporary:
        path = Path(temporary) / "session.jsonl"
        store = LedgerStore.create(path)
        for message in history:
            store.append(message)
        before = path.read_bytes()

        new_id = module.append_correction(store, "e2", "1 * 7 = 7 (checked twice)")
        after = path.read_bytes()
        assert after.startswith(before), "the old bytes changed: a ledger is never rewritten"
        assert after.count(b"\n") == before.count(b"\n") + 1, "append exactly one line"
        assert new_id == "e5", f"the correction should get the next id, e5, not {new_id!r}"

        reading = read_ledger(path)
        assert reading.messages == history, "the step's reader must still see the original"
        [correction] = reading.other_entries
        assert correction == {
            "type": "correction",
            "id": "e5",
            "parentId": "e4",
            "corrects": "e2",
            "text": "1 * 7 = 7 (checked twice)",
        }, f"the correction entry is not in the described shape: {correction}"

        size = path.stat().st_size
        try:
            module.append_correction(store, "e99", "no such entry")
        except ValueError:
            pass
        else:
            raise AssertionError("correcting an entry that does not exist must raise ValueError")
        assert path.stat().st_size == size, "a refused correction must not write anything"

        module.append_correction(store, "e2", "1 * 7 = 7.")
        store.append(history[0])  # ids and parents keep going after corrections
        store.close()
        assert read_ledger(path).entries[-1]["parentId"] == "e6", (
            "after a correction, the next entry must hang under it (use store.write_entry)"
        )
        view = module.current_view(path)
        expected = [message_text(m) for m in history + history[:1]]
        expected[1] = "1 * 7 = 7."  # the latest of the two corrections of e2
        got = [message_text(m) for m in view]
        assert got == expected, f"current_view should show {expected}, got {got}"
        assert view[1]["role"] == "assistant", "a correction keeps the message's role"
    return "corrections are appended, old readers skip them, the latest one wins in the view"
