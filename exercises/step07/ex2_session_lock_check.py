"""Check 07.2: locking and unlocking leave the file's bytes and its folder as they were, and
the lock can be taken again; a missing session is not "in use". Then real processes: a holder
(open_locked, then a line written through the step's writer) is SIGKILLed, and the session
must lock again at once, with nothing left in the folder; a live holder that has written must
keep it (lock_session refused with SessionInUse, at once) with no file beside the session,
and another session of the folder stays free; locks and refusals leave no descriptor open."""

from __future__ import annotations

import gc
import os
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import commands
from exercises import harness as h
from session_file import SessionInUse

KILLED = "a SIGKILLed holder leaves no lock"
QUIET = "the lock changes nothing on disk"
AGAIN = "unlock_session lets go of it"
HELD = "a live holder keeps it: SessionInUse, at once"
OWN = "the lock is the session file's own"
ONLY = "SessionInUse only for a session another run holds"
SHUT = "a refusal leaves nothing open"
WAIT = 2.0  # seconds a refusal may take: it never waits for the holder
TIMES = 50  # locks and unlocks, and refusals: a descriptor leaked by each is 50 more open
FDS = next((fds for fds in ("/proc/self/fd", "/dev/fd") if os.path.isdir(fds)), None)
HOLDER = """
from messages import user_text
held, opened = module.open_locked(args[0])
opened.session.append_message(user_text("said while locked"))  # the writer opens, closes
print("<<ready>>", flush=True)
sys.stdin.read()
"""


def check(module: ModuleType) -> str:
    subject, blame = h.subjects(module)[0], module.lock_session
    with tempfile.TemporaryDirectory() as folder:
        chat = commands.Chat(h.session_in(Path(folder)), [], cursor=0)
        h.say(chat, "what is 12*8")
        path, files = chat.session.path, sorted(Path(folder).iterdir())
        before, got = h.Snapshot(path), attempt(subject, path)
        unlocked = subject.call(module.unlock_session, got.value) if not got.error else got
        again = attempt(subject, path)
        if got.error is not None or unlocked.error is not None or again.error is not None:
            said_ = said(got) if got.error else said(unlocked) if unlocked.error else said(again)
            h.fail(AGAIN, "lock, unlock, lock a session no one holds", said_, blame)
        module.unlock_session(again.value)
        fds = open_fds()
        for _ in range(TIMES):
            module.unlock_session(module.lock_session(path))
        if (left := open_fds() - fds) > 0:
            h.fail(AGAIN, f"{TIMES} locks and unlocks", f"{left} descriptors left open",
                   module.unlock_session)  # fmt: skip
        if (changed := before.change()) or (made := sorted(Path(folder).iterdir())) != files:
            said_ = changed or f"it made {', '.join(p.name for p in made if p not in files)}"
            h.fail(QUIET, "lock, unlock, lock, unlock", f"the session: {said_}", blame)
        with holder(subject, path, KILLED, "a holder SIGKILLed after a write") as child:
            child.kill()
            child.wait()
        if (got := attempt(subject, path)).error is not None:
            h.fail(KILLED, "the holder SIGKILLed after a write", f"then {said(got)}", got.line)
        module.unlock_session(got.value)
        unchanged(sorted(Path(folder).iterdir()), files, "a holder SIGKILLed after a write", blame)
        other = commands.Chat(h.session_in(Path(folder), "other"), [], cursor=0)
        h.say(other, "hello")
        with holder(subject, path, HELD, "a holder alive, after a write"):
            got, free = attempt(subject, path), attempt(subject, other.session.path)
            held, fds = sorted(Path(folder).iterdir()), open_fds()
            for _ in range(TIMES if isinstance(got.error, SessionInUse) else 0):
                attempt(subject, path)
            left = open_fds() - fds
        if not isinstance(got.error, SessionInUse):
            h.fail(HELD, "the holder alive after a write", said(got), blame)
        if free.error is not None:
            h.fail(OWN, "another session of the folder, s.jsonl held", said(free), blame)
        module.unlock_session(free.value)
        files.append(other.session.path)
        unchanged(held, files, "a holder alive, after a write", blame)
        missing = Path(folder) / "missing.jsonl"
        if isinstance((got := attempt(subject, missing)).error, SessionInUse):
            h.fail(ONLY, "lock_session of a file that does not exist", said(got), blame)
        if got.error is None:
            module.unlock_session(got.value)
        made = sorted(Path(folder).iterdir())
        unchanged(made, files, "lock_session of a file that does not exist", blame)
        if left > 0:
            h.fail(SHUT, f"{TIMES} refused locks", f"{left} descriptors left open", blame)
    return (
        "a holder SIGKILLed after a write left no lock; a live one kept it through the "
        f"writer's opens and closes (SessionInUse within {WAIT:.0f} s), and held that session "
        f"alone; nothing on disk changed; {TIMES} locks, unlocks and refusals left "
        + ("no descriptor open" if FDS else "descriptors uncounted (no /proc/self/fd)")
    )


@contextmanager
def holder(subject: h.Subject, path: Path, rule: str, case: str) -> Iterator[Any]:
    """A child process holding the lock (open_locked, and a line written), while the block
    runs; a holder that fails first is a FAIL of `rule` (or of QUIET, if the file changed)."""
    before = h.Snapshot(path)
    try:
        with h.running(subject, HOLDER, str(path)) as child:
            yield child
    except AssertionError as error:
        changed = before.change(appending=True)
        rule, why = (QUIET, f"the session: {changed}") if changed else (rule, str(error))
        h.fail(rule, case, why, subject.module.lock_session)


def unchanged(listed: list[Path], files: list[Path], case: str, blame: object) -> None:
    """FAIL QUIET if the folder's listing holds a file it did not: a lock file, say, which
    SIGKILL leaves behind."""
    if made := [p.name for p in listed if p not in files]:
        h.fail(QUIET, case, f"the folder: it made {', '.join(made)}", blame)


def open_fds() -> int:  # this process's descriptors, once a file no one holds is closed
    gc.collect()
    return len(os.listdir(FDS)) if FDS else 0


def attempt(subject: h.Subject, path: Path) -> h.Outcome:
    """lock_session in this process, stopped after WAIT seconds (TimeoutError) if it waits."""

    def waited(number: int, frame: Any) -> None:
        raise TimeoutError(f"it waited {WAIT:.0f} s")

    previous = signal.signal(signal.SIGALRM, waited)
    signal.setitimer(signal.ITIMER_REAL, WAIT)
    try:
        return subject.call(subject.module.lock_session, path)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def said(got: h.Outcome) -> str:
    if isinstance(got.error, TimeoutError):
        return str(got.error)
    if isinstance(got.error, SessionInUse):
        return "raised SessionInUse"  # its words name a temporary folder
    if got.error is not None:
        return f"raised {type(got.error).__name__}: {h.short(str(got.error), 20)}"
    return "it took the lock"
