"""Check 07.3: the production step's own conformance suite (tests/test_store_conformance.py),
its functions called one by one with OwnStore as the store, each failure named by the promise
it breaks; then real kills: a child appending a compaction through OwnStore is SIGKILLed
before each SQL statement it runs in turn, and every time a resume must give what a whole
read gives (the entry whole or absent, the state a resume needs in the same transaction)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from exercises import harness as h

TESTS = h.LAB_ROOT / "labs" / "step07_production" / "tests"
PROMISES = [  # (the promise, the student's method blamed, the suite's test)
    ("new creates nothing: the first append does", "new", "a_run_that_saves_nothing"),
    ("an entry is kept as given, read back the same", "reading", "an_entry_is_kept"),
    ("private under umask 022, companion files too", "append", "a_new_session_is_private"),
    ("ids never restart after a resume", "reading", "ids_stay_unique"),
    ("one writer, whatever else closes the file", "existing", "one_writer_whatever"),
    ("a resume goes on from the leaf", "reading", "the_conversation_is_the_path"),
    ("a resume gives what a whole read gives", "reading", "a_resume_after_a_compaction"),
    ("an unknown kind is kept in the tree", "reading", "an_unknown_kind"),
    ("lines another writer added are seen", "lines_added", "what_another_writer_added"),
    ("a file that is no session is named", "existing", "a_file_that_is_no_session"),
]
NO_SESSION = [b"", b"not a session at all\n", b"SQLite format 3\x00" + bytes(100)]
KILLED = """
import os, signal, sqlite3
from messages import user_text
from session import Session
armed, count, real = [False], [0], sqlite3.connect
def traced(statement):
    count[0] += armed[0]
    if armed[0] and count[0] == int(args[1]):
        os.kill(os.getpid(), signal.SIGKILL)
def connect(*a, **k):
    db = real(*a, **k)
    db.set_trace_callback(traced)
    return db
sqlite3.connect = connect
session = Session.open(args[0], store=module.OwnStore, lock=True).session
kept = session.entries.ids()[-2]
armed[0] = True
session.append_compaction("old messages", kept)
session.append_message(user_text("after"))
"""
WHOLE = "an append is whole or absent"
STATE = "the state a resume needs is kept with the entry"
MOST = 40  # statements an append may take before the check gives up killing it


def check(module: ModuleType) -> str:
    if str(TESTS) not in sys.path:
        sys.path.insert(1, str(TESTS))
    import test_store_conformance as suite

    store, subject = module.OwnStore, h.subjects(module)[0]
    with tempfile.TemporaryDirectory() as importable:  # the suite's children import it by name
        Path(importable, f"{module.__name__}.py").symlink_to(subject.path)
        was = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = importable
        try:
            for promise, method, name in PROMISES:
                test = next(getattr(suite, n) for n in dir(suite) if n.startswith(f"test_{name}"))
                for content in NO_SESSION if "no_session" in name else [None]:
                    with tempfile.TemporaryDirectory() as folder:
                        args = (store, Path(folder)) + ((content,) if content is not None else ())
                        run(test, args, promise, method, name)
        finally:
            os.environ.pop("PYTHONPATH") if was is None else os.environ.update(PYTHONPATH=was)
    private(store)
    kills = killed(module, subject, suite)
    return (
        f"OwnStore kept all {len(PROMISES)} promises of the conformance suite, and a compaction's "
        f"append SIGKILLed before each of its {kills} statements lost nothing a resume needs"
    )


def run(test: object, args: tuple[object, ...], promise: str, method: str, name: str) -> None:
    """One test of the suite; its failure said as the promise, blaming OwnStore.method."""
    try:
        test(*args)  # type: ignore[operator]
    except (NotImplementedError, KeyboardInterrupt):
        raise
    except BaseException as error:  # noqa: BLE001  (pytest.raises's Failed is no Exception)
        said = h.short(str(error).splitlines()[0], 40) if str(error) else "an assert failed"
        h.fail(promise, f"test_{name}", f"OwnStore.{method}: {said}")


def killed(module: ModuleType, subject: h.Subject, suite: ModuleType) -> int:
    """SIGKILL the child before its 1st, 2nd, ... SQL statement of the compaction's append."""
    import orjson

    from entries import build_context
    from messages import user_text
    from session import Session

    store = module.OwnStore
    for number in range(1, MOST + 1):
        with tempfile.TemporaryDirectory() as folder:
            session = suite.create(store, Path(folder))
            for text in ("old one", "old two", "kept", "kept too"):
                session.append_message(user_text(text))
            session.close()
            code = [*h._child(subject, KILLED, [str(session.path), str(number)])]
            done = subprocess.run(code, capture_output=True, timeout=h.CHILD_SECONDS)
            if done.returncode not in (0, -9):
                last = (done.stderr.decode(errors="replace").strip().splitlines() or ["?"])[-1]
                h.fail(WHOLE, "a compaction's append", last)
            case = f"a compaction's append killed before SQL statement {number}"
            whole = suite.stored_lines(store, session.path)
            resumed = Session.open(session.path, store=store)
            index = __import__("entry_index").EntryIndex()
            index.add_lines(whole)
            if resumed.context != build_context(index, index.last_usable()):
                h.fail(WHOLE, case, "OwnStore.append: a resume differs from a whole read")
            resumed.session.close()
            kept = [
                orjson.loads(line).get("firstKeptId") for line in whole if b"compaction" in line
            ]
            want = next(
                (line for line in whole if kept and orjson.loads(line)["id"] == kept[-1]), 0
            )
            storage = store.existing(session.path)
            with storage.reading(resume=True) as lines:
                first = next((line for batch in lines.batches for line in batch), None)
                if not lines.whole and first != want:
                    said = f"a resume starts at {h.short(first, 24)}, not at {kept[-1:] or 'e1'}"
                    h.fail(STATE, case, f"OwnStore.reading: {said}")
            storage.close()
            if done.returncode == 0:
                return number - 1
    return MOST


def private(store: type) -> None:
    """Under umask 022, every file the first append makes is 0600 while the session is open
    (the suite looks again after a second run, whose files may hide the first run's)."""
    from messages import user_text
    from session import Session

    was = os.umask(0o022)
    try:
        with tempfile.TemporaryDirectory() as folder:
            session = Session.create(folder, session_id="s", created_at="2026", cwd="/",
                                     store=store, lock=True)  # fmt: skip
            session.append_message(user_text("a secret"))
            modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in Path(folder).iterdir()}
            session.close()
    finally:
        os.umask(was)
    if shown := [f"{name} {mode:o}" for name, mode in modes.items() if mode != 0o600]:
        h.fail(PROMISES[2][0], "the first append, umask 022", f"OwnStore.append: {shown[0]}")
