"""Check 01.3: scripts of corrections run on the student's ledger and the solution's; after
each, both return (or refuse) alike, the files hold the same entries, the student's only grew
(same file, old bytes kept) through one store.write_entry; then both views agree. The named
scripts try each target that is no message entry (a missing id, e0, the next id, the header's,
a correction, a wrong case) and one message corrected twice, every text unlike the others."""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import ModuleType

from hypothesis import strategies as st

from exercises import harness as h
from ledger_store import LedgerStore
from messages import make_message

APPEND = "append_correction appends one entry via store.write_entry"
REFUSE = "only a message entry in the file can be corrected"
VIEW = "the view shows each message's last correction"
ROLES = ("user", "assistant")  # make_message's, in turn
NAMED = [["e2"], ["e99"], ["e0"], ["e7"], ["session"], ["E2"], ["e2", "e7"], ["e2", "e2"]]
NAMED += [["e1", "+", "e8"]]  # "+": one more message; any other: a correction of it
TARGETS = st.sampled_from(["e1", "e2", "e3", "e5", "e0", "e7", "e9", "session", "+", "+"])


def check(module: ModuleType) -> str:
    subjects = h.subjects(module)
    for targets in NAMED:
        script(subjects, targets)
    h.for_all(st.lists(TARGETS, max_size=8), lambda targets: script(subjects, targets), 150)
    return (
        "on 9 named scripts and 150 generated ones, corrections were appended as the "
        "solution's, through store.write_entry, the file only growing; every target that is "
        "no message entry was refused with ValueError; the views agreed with the solution's"
    )


def script(subjects: tuple[h.Subject, h.Subject], targets: list[str]) -> None:
    """Six messages, then each target corrected (or one more message), on both ledgers."""
    with tempfile.TemporaryDirectory() as folder:
        stores = [ledger(Path(folder) / name) for name in ("mine.jsonl", "theirs.jsonl")]
        for number, target in enumerate(targets, start=1):
            case = told(targets[:number])
            if target == "+":
                for store in stores:
                    store.append(make_message(store.entry_count))
                continue
            snapshot, calls = h.Snapshot(stores[0].path), counted(stores[0])
            text = f"fix {number} of {target}"  # unlike every other text
            got, want = (s.call(s.module.append_correction, st, target, text) for s, st in
                         zip(subjects, stores, strict=True))  # fmt: skip
            if (got.error is None) != (want.error is None) or not isinstance(
                got.error or ValueError(), ValueError
            ):
                wanted = "ValueError" if want.error else repr(want.value)
                h.fail(REFUSE, case, f"it {got.said()}, expected {wanted}", got.line)
            if (changed := snapshot.change(appending=True)) is not None:
                h.fail(APPEND, case, changed, got.line)
            if calls != [1 if want.error is None else 0]:
                h.fail(APPEND, case, f"it called write_entry {calls[0]} times", got.line)
            said = h.difference(h.entries_in(stores[0].path), h.entries_in(stores[1].path))
            if got.value != want.value or said is not None:
                said = said or f"it returned {got.value!r}, expected {want.value!r}"
                h.fail(APPEND, case, f"the file {said}", got.line)
        for store in stores:
            store.close()
        before = h.Snapshot(stores[0].path)
        views = [s.call(s.module.current_view, x.path) for s, x in zip(subjects, stores, strict=1)]
        said = views[0].error and f"it {views[0].said()}"
        said = said or before.change() or h.difference(*(shown(v.value) for v in views), named)
        if said is not None:
            h.fail(VIEW, told(targets), said, views[0].line)


def told(targets: list[str]) -> str:
    told = ["6 messages", *(f"fix {t}" if t != "+" else "1 more" for t in targets)]
    return "after " + h.lines(told, 60)


def shown(view: object) -> object:
    """A view as each message's texts, `|` between blocks (another role's message as itself)."""
    if not isinstance(view, list):
        return view
    texts = lambda m: "|".join(str(b.get("text")) for b in m.get("content", []))  # noqa: E731
    return [texts(m) if m.get("role") == ROLES[at % 2] else m for at, m in enumerate(view)]


def named(at: int) -> str:
    return f"message {at + 1}"  # its place in the view, not its id: a correction takes an id


def ledger(path: Path) -> LedgerStore:
    store = LedgerStore.create(path, session_id="s", created_at="2026", cwd="/")
    for index in range(6):
        store.append(make_message(index))
    return store


def counted(store: LedgerStore) -> list[int]:
    """A counter of the store's write_entry calls, from now on."""
    calls, real = [0], store.write_entry

    def counting(entry: dict[str, object]) -> int:
        calls[0] += 1
        return real(entry)

    store.write_entry = counting  # type: ignore[method-assign]
    return calls
