"""Check 07.4: every crash point of tools/crash_points.py (the session it writes, cut at each
of its byte boundaries; its lab_runs, the next run resuming and appending and the one after
reading back, here through OwnFile) must lose nothing finished nor the next entry, raise
nothing, and change no old byte. Then real processes: one SIGKILLed after ten appends must
have them all in the file; one whose write a file size limit cuts short must get SessionError
and lose nothing at its next append; and a new file is private, never over another."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from contextlib import suppress
from pathlib import Path
from types import ModuleType

from exercises import harness as h
from messages import user_text
from session import Session
from session_file import SessionError

CUTS = "no crash point costs a finished entry, or the next"
OLD = "old bytes never change"
KILLED = "a line is in the file when append_line returns"
SHORT = "a write cut short raises SessionError, loses nothing"
NEW = "a new file: its header first, 0600, never over another"
GONE = "a file gone is not made again"
TEN = """
from messages import user_text
from session import Session
session = Session.create(args[0], session_id="k", created_at="2026", cwd="/", store=module.OwnFile)
for number in range(5):
    session.append_message(user_text(f"said {number}"))
session = Session.open(session.path, store=module.OwnFile).session  # the next run, resumed
for number in range(5, 10):
    session.append_message(user_text(f"said {number}"))
print("<<ready>>", flush=True)
sys.stdin.read()  # SIGKILLed here
"""
LIMITED = """
import resource, signal
from messages import user_text
from session import Session
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write over the limit fails, as on a full disk
session = Session.create(args[0], session_id="k", created_at="2026", cwd="/", store=module.OwnFile)
for number in range(3):
    session.append_message(user_text(f"said {number}"))
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (session.path.stat().st_size + 30, hard))
try:
    session.append_message(user_text("cut short " * 9))
    raised = "nothing"
except Exception as error:
    raised = type(error).__name__
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))  # the disk takes it again
session.append_message(user_text("after"))
print(json.dumps(raised))
"""


def check(module: ModuleType) -> str:
    subject, blame = h.subjects(module)[0], module.append_line
    cuts = crash_points(module.OwnFile, blame)
    with tempfile.TemporaryDirectory() as folder:
        with h.running(subject, TEN, folder) as child:
            child.kill()
        texts = told(Path(folder, "k.jsonl"), module.OwnFile)
        if texts != [f"said {n}" for n in range(10)]:
            h.fail(KILLED, "ten appends, then SIGKILL", f"the file holds {len(texts)}", blame)
    with tempfile.TemporaryDirectory() as folder:
        raised = h.in_a_new_process(subject, LIMITED, folder)
        texts = told(Path(folder, "k.jsonl"), module.OwnFile)
        if raised != "SessionError" or texts != ["said 0", "said 1", "said 2", "after"]:
            said = f"it raised {raised}" if raised != "SessionError" else f"then it held {texts}"
            h.fail(SHORT, "a file size limit 30 bytes into a line", h.cut(said, 60), blame)
    created(module.OwnFile, blame)
    return (
        f"at all {cuts} crash points the next run, appending through your writer, lost nothing "
        "finished nor its own entry, no old byte changed; a process SIGKILLed after ten appends "
        "had all ten; a write cut short raised SessionError, and the next lost nothing; new "
        "files were 0600, never over another, and a file gone was not made again"
    )


def crash_points(store: type, blame: object) -> int:
    """tools/crash_points.py's cuts of its session, the next runs through `store`."""
    sys.path.insert(0, str(h.LAB_ROOT / "tools"))
    import crash_points as tool

    opened = Session.open.__func__  # type: ignore[attr-defined]
    Session.open = classmethod(lambda cls, path, **kw: opened(cls, path, **{"store": store, **kw}))  # type: ignore[method-assign,assignment]
    try:
        with tempfile.TemporaryDirectory() as folder:
            data, path = tool.written_session(Path(folder)), Path(folder, "cut.jsonl")
            for at in range(1, len(data) + 1):
                path.write_bytes(data[:at])
                run, finished = tool.lab_runs(path), tool.finished_messages(data[:at])
                case = f"the session cut at byte {at} of {len(data)}"
                if run["raised"]:
                    try:  # again, to name what raised, and where
                        Session.open(path).session.append_message(user_text(tool.AFTER))
                    except NotImplementedError:
                        raise
                    except Exception as error:
                        raise AssertionError(f"{CUTS}; {case}: {h.short(error, 50)}") from error
                if not run["refused"] and (run["kept"] < finished or run["lost_after"]):
                    said = "the entry appended after it is lost" if run["lost_after"] else (
                        f"{finished - run['kept']} finished entries lost")  # fmt: skip
                    h.fail(CUTS, case, said, blame)
                if not path.read_bytes().startswith(data[:at]):
                    h.fail(OLD, case, "the next run changed an old byte", blame)
    finally:
        Session.open = classmethod(opened)  # type: ignore[method-assign,assignment]
    return len(data)


def told(path: Path, store: type) -> list[str]:
    """The texts of the conversation a run resumes from `path`."""
    messages = Session.open(path, store=store).context.messages
    return [block["text"] for m in messages for block in m["content"] if block["type"] == "text"]


def created(store: type, blame: object) -> None:
    """A new session under umask 022; one over a file that is there; one whose file is gone."""
    was = os.umask(0o022)
    try:
        with tempfile.TemporaryDirectory() as folder:
            session = Session.create(
                folder, session_id="n", created_at="2026", cwd="/", store=store
            )
            session.append_message(user_text("a secret"))
            mode, first = stat.S_IMODE(session.path.stat().st_mode), session.path.read_bytes()
            if mode != 0o600 or not first.startswith(b'{"type":"header"'):
                said = f"mode {mode:o}" if mode != 0o600 else "it does not start with the header"
                h.fail(NEW, "a new session, umask 022", said, blame)
            again = Session.create(folder, session_id="n", created_at="2027", cwd="/", store=store)
            try:
                again.append_message(user_text("over it"))
                said = "it wrote"
            except SessionError:
                said = "" if session.path.read_bytes() == first else "its bytes changed"
            except Exception as error:  # noqa: BLE001  (said, as the rule wants SessionError)
                said = f"it raised {type(error).__name__}, not SessionError"
            if said:
                h.fail(NEW, "a new session named as one that exists", said, blame)
            session.path.unlink()
            gone = Session.create(folder, session_id="g", created_at="2026", cwd="/", store=store)
            gone.append_message(user_text("hello"))
            gone.path.unlink()
            with suppress(SessionError):
                gone.append_message(user_text("after it was deleted"))
            if gone.path.exists():
                h.fail(GONE, "the file deleted during the run", "it was made again", blame)
    finally:
        os.umask(was)
