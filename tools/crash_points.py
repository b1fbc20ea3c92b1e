"""Every point a crash could cut a session file, tried one by one.

    python tools/crash_points.py [--json]

Killing a process at random moments (the crash lab, notebook 07) rarely lands inside a write:
the notebook's 36 kills, and the 150 of `make check`, seldom tear a line, if ever.
Crash-consistency research does it the other way round (ALICE, Pillai et al., OSDI 2014): take
what a run wrote, and try every state a crash could have left it in. A session file is only
ever appended to, one whole line per write, so what a crash (or a full disk, or a kill) leaves
is a prefix of it: cut at any byte. (A power loss can do worse,
leaving a tail of zeros or lines out of order; that is what fsync is for, as the crash lab
shows.)

For every byte boundary of a scripted session of the production step, this writes the prefix
to a file and plays the next two runs: one resumes it and appends a message, the other reads
the file back.
It counts, at each cut:

- the finished messages the prefix holds (each line complete, up to its closing brace), and how
  many of them the resume kept: a crash may cost the line it cut, never a finished one;
- the cuts where the resume raised (a traceback), or refused the file (a cut inside the header,
  which is written with the first message: nothing finished is lost there);
- the cuts where the appended message is missing when the file is read back: glued onto the
  torn fragment before it, and lost with it.

The same cuts go through a naive reader (json.loads on every line) and a naive writer
(open(path, "a").write(line)), the way a first version is often written, side by side.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(LAB_ROOT / "tools"))
from make_steps import STEPS  # noqa: E402

PRODUCTION = LAB_ROOT / "labs" / STEPS[-1].folder
QUESTIONS = ["hello", "what is 12*8", "what was the result"]
AFTER = "after the crash"


@dataclass(frozen=True)
class Cut:
    """What one crash point did to the next runs."""

    at: int  # bytes of the file kept
    finished: int  # messages whose line is complete in the prefix
    kept: int  # of those, in the conversation the lab's resume rebuilt
    refused: bool  # the lab refused the file as a whole (the header was cut)
    raised: bool  # the lab's resume or append raised
    lost_after: bool  # the message appended after the crash was missing when read back
    naive_raised: bool  # json.loads on every line raised
    naive_lost_after: bool  # the naive writer glued the next message onto the torn line


@dataclass(frozen=True)
class Summary:
    cuts: int
    raised: int
    refused: int
    finished_lost: int  # cuts where the resume kept fewer finished messages than the prefix held
    lost_after: int
    naive_raised: int
    naive_lost_after: int


def written_session(folder: Path) -> bytes:
    """A session the production step wrote: three turns, one with a tool call, each message
    saved as it ended."""
    from loop import MessageEnd, run_turn
    from model import ScriptedModel
    from session import Session, persist_new_messages
    from tools import default_tools

    session = Session.create(folder, session_id="c", created_at="2026-01-01T00:00:00Z", cwd="/")
    messages: list = []
    saved = 0
    for question in QUESTIONS:
        for event in run_turn(ScriptedModel(), default_tools(), messages, _user(question)):
            if isinstance(event, MessageEnd):
                saved = persist_new_messages(session, messages, saved)
    data = session.path.read_bytes()
    session.path.unlink()
    return data


def _user(text: str) -> dict:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def finished_messages(prefix: bytes) -> int:
    """Lines after the header that are complete in `prefix`, with or without their \\n."""
    lines = prefix.split(b"\n")[1:]
    return sum(1 for line in lines if line.endswith(b"}") and _is_json(line))


def _is_json(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def lab_runs(path: Path) -> dict[str, object]:
    """The next run resumes and appends; the one after reads the file back."""
    from session import Session, UnusableSessionFile

    try:
        opened = Session.open(path)
    except UnusableSessionFile:
        return {"kept": 0, "refused": True, "raised": False, "lost_after": False}
    except Exception:
        return {"kept": 0, "refused": False, "raised": True, "lost_after": True}
    try:
        kept = len(opened.context.messages)
        opened.session.append_message(_user(AFTER))
        again = Session.open(path)
        lost = not again.context.messages or again.context.messages[-1] != _user(AFTER)
    except Exception:
        return {"kept": 0, "refused": False, "raised": True, "lost_after": True}
    return {"kept": kept, "refused": False, "raised": False, "lost_after": lost}


def naive_reader_raises(prefix: bytes) -> bool:
    try:
        for line in prefix.decode("utf-8").splitlines()[1:]:
            json.loads(line)
    except ValueError:  # a torn line (UnicodeDecodeError is one too)
        return True
    return False


def naive_writer_loses(path: Path, prefix: bytes) -> bool:
    """Append as a first version does, then read back with the lab's tolerant reader."""
    from session import Session, UnusableSessionFile

    path.write_bytes(prefix)
    entry = {"type": "message", "id": "e99", "parentId": None, "message": _user(AFTER)}
    with open(path, "a", encoding="utf-8") as file:
        file.write(json.dumps(entry, separators=(",", ":")) + "\n")
    try:
        entries = Session.open(path).session.entries
    except UnusableSessionFile:  # the header cut: glued onto it, the file is no session at all
        return True
    return "e99" not in entries


def every_cut(data: bytes, folder: Path) -> list[Cut]:
    path = folder / "cut.jsonl"
    header_end = data.index(b"\n") + 1
    cuts = []
    for at in range(len(data) + 1):
        prefix = data[:at]
        if at == 0:
            continue  # an empty file is no crash point: nothing was written yet
        path.write_bytes(prefix)
        lab = lab_runs(path)
        cuts.append(
            Cut(
                at=at,
                finished=finished_messages(prefix) if at >= header_end else 0,
                kept=int(lab["kept"]),  # type: ignore[call-overload]
                refused=bool(lab["refused"]),
                raised=bool(lab["raised"]),
                lost_after=bool(lab["lost_after"]) and not lab["refused"],
                naive_raised=naive_reader_raises(prefix),
                naive_lost_after=naive_writer_loses(path, prefix),
            )
        )
    return cuts


def summary(cuts: list[Cut]) -> Summary:
    return Summary(
        cuts=len(cuts),
        raised=sum(cut.raised for cut in cuts),
        refused=sum(cut.refused for cut in cuts),
        finished_lost=sum(cut.kept < cut.finished for cut in cuts),
        lost_after=sum(cut.lost_after for cut in cuts),
        naive_raised=sum(cut.naive_raised for cut in cuts),
        naive_lost_after=sum(cut.naive_lost_after for cut in cuts),
    )


def run(step: Path = PRODUCTION) -> tuple[bytes, list[Cut]]:
    """The session and every cut of it, with `step` on the import path (one step a process)."""
    sys.path.insert(0, str(step))
    with tempfile.TemporaryDirectory() as folder:
        data = written_session(Path(folder))
        return data, every_cut(data, Path(folder))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="every cut, as JSON")
    parser.add_argument("--step", type=Path, default=PRODUCTION, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    data, cuts = run(args.step)
    totals = summary(cuts)
    if args.json:
        print(json.dumps({"bytes": len(data), "summary": asdict(totals),
                          "cuts": [asdict(cut) for cut in cuts]}))  # fmt: skip
        return 0
    print(f"a session of {len(data):,} bytes, cut at each of its {totals.cuts:,} byte boundaries")
    print(f"  the lab:  {totals.raised} tracebacks, {totals.finished_lost} cuts losing a finished"
          f" message, {totals.lost_after} losing the next one"
          f" ({totals.refused} refused whole: the header cut, nothing finished)")  # fmt: skip
    print(f"  naive:    the reader raised at {totals.naive_raised} cuts; the writer glued and"
          f" lost the next message at {totals.naive_lost_after}")  # fmt: skip
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head`: end quietly, as Unix tools do
    sys.exit(main())
