"""What every check is made of, written once: the student's code beside the shipped solution,
on the same input, the first difference said in words. Subjects (`subjects`, `command`: the
step's own dispatcher), sessions (`say`, `play`, `same_plays`), audits (`Writes`, `ReadOnly`,
`Snapshot`), words (`fail`: the rule, the input, the difference), processes
(`in_a_new_process`, `killed_in_a_tool`), generated inputs (`for_all`, `trees`, `odd_values`).
Step modules are imported where they are used: step 01 has no session, and no commands."""

from __future__ import annotations

import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

LAB_ROOT = Path(__file__).resolve().parent.parent
CHILD_SECONDS = 30  # a fresh interpreter loading a step and a few small files: about 1 s


# --- Words ------------------------------------------------------------------------------------


def short(value: object, width: int = 40) -> str:
    """A value for a FAIL line: repr (so a control character is shown, never obeyed), cut."""
    return cut(repr(value), width)


def brief(value: object, width: int = 30) -> str:
    """A value for a FAIL line, a message said by its role and text (a tool call by its name)."""
    if isinstance(value, dict) and "role" in value and isinstance(value.get("content"), list):
        parts = [str(b.get("text") or b.get("name")) for b in value["content"] if b]
        return repr(cut(f"{value['role']}: {' '.join(parts)}", width - 2))
    return short(value, width)


def cut(text: str, width: int) -> str:
    """`text`, ended with "…" where it is longer than `width`."""
    return text if len(text) <= width else text[: width - 1] + "…"


def fail(rule: str, case: str, said: str, blame: object = None) -> None:
    """Raise the FAIL: the rule first, then the input it was tried on, then what differed."""
    raise AssertionError(f"{rule}; {case}: {said}", blame)


def difference(
    got: object, want: object, name: Callable[[int], str] | None = None, items: str = "items"
) -> str | None:
    """The first way `got` differs from `want`, in words; None when they are equal. Items of
    a list are named by `name` (their index given), and counted as `items`."""
    if got == want:
        return None
    if isinstance(got, list) and isinstance(want, list):
        called = name or (lambda at: f"item {at + 1}")
        for at, (mine, theirs) in enumerate(zip(got, want, strict=False)):
            if mine != theirs:
                inner = difference(mine, theirs) if _plain_dict(theirs) else None
                return f"{called(at)} {inner or f'is {brief(mine)}, expected {brief(theirs)}'}"
        if len(got) < len(want):
            return f"{len(got)} {items}, expected {len(want)}: {called(len(got))} is missing"
        return f"{len(got)} {items}, expected {len(want)}: an extra {brief(got[len(want)])}"
    if isinstance(got, dict) and isinstance(want, dict):
        for key in want:
            if key not in got:
                return f"has no {key}, expected {short(want[key])}"
            if got[key] != want[key]:
                return f"has {key} {short(got[key])}, expected {short(want[key])}"
        extra = next(key for key in got if key not in want)
        return f"has {extra} {short(got[extra])}, which it should not"
    return f"gave {short(got)}, expected {short(want)}"


def _plain_dict(value: object) -> bool:
    """A dict compared field by field (a message is compared, and said, whole)."""
    return isinstance(value, dict) and "role" not in value


def covers(got: Mapping[str, Any], want: Mapping[str, Any]) -> bool:
    """`got` holds every field of `want`, with its value: a field more is the student's own."""
    return all(key in got and got[key] == value for key, value in want.items())


def uncovered(got: Mapping[str, Any], want: Mapping[str, Any]) -> str:
    """The first field of `want` that `got` lacks or holds otherwise, in words."""
    key = next(key for key, value in want.items() if key not in got or got[key] != value)
    if key not in got:
        return f"has no {key}, expected {short(want[key])}"
    if key == "parentId":
        return f"hangs under {got[key]}, expected {want[key]}"
    return f"has {key} {short(got[key])}, expected {short(want[key])}"


# --- Subjects: the student's code and the solution, side by side ----------------------------


@dataclass
class Outcome:
    """What a call came to: its value or its exception, and the line of the subject's file
    it returned from (None when it never returned through that file)."""

    value: Any
    error: Exception | None
    line: int | None

    def said(self) -> str:
        return f"raised {type(self.error).__name__}" if self.error else f"gave {short(self.value)}"


@dataclass
class Subject:
    """One implementation of the exercise: the student's file, or the shipped solution."""

    module: ModuleType
    path: Path
    table: dict[str, Any]  # the step's commands with this subject's own (none in step 01)

    def call(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Outcome:
        """Run one function of this subject, recording the line an outermost function of its
        file last returned from; NotImplementedError (the starter's) goes on."""
        returned: list[int | None] = [None]
        mine, previous = str(self.path), sys.getprofile()

        def profiler(frame: FrameType, event: str, arg: object) -> None:
            outer = frame.f_back is None or frame.f_back.f_code.co_filename != mine
            if event == "return" and frame.f_code.co_filename == mine and outer:
                returned[0] = frame.f_lineno

        sys.setprofile(profiler)
        try:
            return Outcome(function(*args, **kwargs), None, returned[0])
        except NotImplementedError:
            raise
        except Exception as error:
            return Outcome(None, error, returned[0])
        finally:
            sys.setprofile(previous)


def subjects(module: ModuleType) -> tuple[Subject, Subject]:
    """The student's module and the shipped solution, each with its own commands."""
    check = Path(sys.modules[f"{module.__name__}_check"].__file__ or "")
    path = LAB_ROOT / "solutions" / check.parent.name / f"{module.__name__}.py"
    found = importlib.util.find_spec("commands")
    table = importlib.import_module("commands").COMMANDS if found else {}
    mine = dict(table)
    spec = importlib.util.spec_from_file_location(f"{module.__name__}_solution", path)
    assert spec is not None and spec.loader is not None, f"no solution at {path}"
    solution = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = solution  # a dataclass looks its module up there
    spec.loader.exec_module(solution)
    theirs = dict(table)
    table.clear()
    table.update(mine)  # the student's module's table stays the one in force
    student = Subject(module, Path(module.__file__ or "").resolve(), mine)
    return student, Subject(solution, path.resolve(), theirs)


def command(subject: Subject, chat: Any, line: str) -> Outcome:
    """`line` typed into the step's own dispatcher, with this subject's commands in it."""
    import commands

    in_force = dict(commands.COMMANDS)
    commands.COMMANDS.clear()
    commands.COMMANDS.update(subject.table)
    try:
        return subject.call(commands.run_command, chat, line)
    finally:
        commands.COMMANDS.clear()
        commands.COMMANDS.update(in_force)


# --- Sessions ---------------------------------------------------------------------------------


def session_in(folder: Path, name: str = "s", cwd: str = "/") -> Any:
    """A new session, the same header whoever makes it: two plays' files compare whole."""
    session = importlib.import_module("session").Session
    return session.create(folder, session_id=name, created_at="2026-01-01T00:00:00.000Z", cwd=cwd)


def entries_in(path: Path, header: bool = False) -> list[Any]:
    """What the file holds after its header (with it, if asked): each line as JSON (None for
    one that is not)."""
    import orjson

    def parsed(line: bytes) -> Any:
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            return None

    lines = path.read_bytes().split(b"\n")[0 if header else 1 :] if path.exists() else []
    return [parsed(line) for line in lines if line]


def tear(path: Path, number: int) -> None:
    """Cut line `number` of the file (0 is the header) short, as a crash in the middle of a
    write leaves it, if the file has that line and more after it."""
    lines = path.read_bytes().split(b"\n") if path.exists() else []
    if 0 < number < len(lines) - 1:
        path.write_bytes(b"\n".join([*lines[:number], lines[number][:30], *lines[number + 1 :]]))


def say(chat: Any, text: str) -> None:
    """One real turn, as main.py runs it: the step's loop, its scripted model, then a save."""
    from loop import run_turn
    from messages import user_text
    from tools import default_tools

    try:  # the production step keeps its models in a registry of their own
        from model_registry import MODELS
    except ModuleNotFoundError:  # the earlier steps, in model.py
        from model import MODELS

    model = MODELS[getattr(chat, "model", next(iter(MODELS)))]
    for _ in run_turn(model, default_tools(), chat.messages, user_text(text)):
        pass
    chat.save_new()


class Writes:
    """Every entry written through Session.append_entry, with the stack that wrote it (put in
    place by a check's before_load, so any way of reaching the write path is seen)."""

    def __init__(self) -> None:
        session_class = importlib.import_module("session").Session
        self.made: list[tuple[dict[str, Any], list[tuple[str, int]]]] = []
        real = session_class.append_entry

        def recording(session: Any, kind: str, fields: Any) -> Any:
            stack, frame = [], sys._getframe(1)
            while frame is not None:
                stack.append((frame.f_code.co_filename, frame.f_lineno))
                frame = frame.f_back  # type: ignore[assignment]
            entry = real(session, kind, fields)
            self.made.append((dict(entry), stack))
            return entry

        session_class.append_entry = recording

    def line_in(self, subject: Subject, start: int) -> int | None:
        """The line of the subject's file that made the first write since `start`."""
        for _, stack in self.made[start:]:
            for filename, line in stack:
                if filename == str(subject.path):
                    return line
        return None


@dataclass(frozen=True)
class Seen:
    """What one line of a script left behind: its answer (None for a turn), what the file
    holds, the chat's state, and where the subject's code wrote or returned."""

    answer: list[str] | None
    entries: list[Any]
    state: dict[str, Any]
    line: int | None


def play(
    subject: Subject,
    script: Sequence[str],
    new_chat: Callable[[Subject, Any], Any],
    state: Callable[[Any], dict[str, Any]],
    writes: Writes | None = None,
    folder: Path | None = None,
    seen_as: Callable[[list[Any]], list[Any]] = list,
) -> list[Seen]:
    """Run the script in a fresh session (in `folder`, kept, or a temporary one): a line
    starting with "/" is a command, through the step's dispatcher; any other is a turn.
    What the file holds is compared as `seen_as` shows it (a free wording, by what it holds)."""
    seen = []
    with tempfile.TemporaryDirectory() as temporary:
        chat = new_chat(subject, session_in(folder or Path(temporary)))
        for line in script:
            start = len(writes.made) if writes else 0
            if line.startswith("/"):
                outcome = command(subject, chat, line)
                if outcome.error is not None:
                    raise AssertionError(
                        f"a command answers in lines and never raises; `{line}`: "
                        f"{type(outcome.error).__name__}: {short(str(outcome.error), 60)}"
                    ) from outcome.error
                answer = list(outcome.value.lines)
                at = (writes.line_in(subject, start) if writes else None) or outcome.line
            else:
                say(chat, line)
                answer, at = None, None
            seen.append(Seen(answer, seen_as(entries_in(chat.session.path, True)), state(chat), at))
    return seen


def same_plays(
    script: Sequence[str],
    mine: list[Seen],
    theirs: list[Seen],
    rules: Mapping[str, str],
    answer_key: Callable[[list[str]], Any] = len,
    width: int = 50,
) -> None:
    """FAIL at the first line of the script after which the two plays differ: in the file
    (each entry must hold every field the solution's holds), the chat, or the answer. The
    rule said is rules[what] ("file", "chat", "answer", or a state key), or rules[f"{what}
    {command}"] for what one command must do."""
    for at, (got, want) in enumerate(zip(mine, theirs, strict=True)):
        case, word = lines(script[: at + 1], width), (script[at].split() or [""])[0]
        rule = lambda what, fallback, word=word: (  # noqa: E731
            rules.get(f"{what} {word}") or rules.get(what) or rules[fallback]
        )
        pairs = zip(got.entries, want.entries, strict=True)  # compared once the lengths agree
        if len(got.entries) != len(want.entries) or not all(covers(g, w) for g, w in pairs):
            fail(rule("file", "file"), case, file_difference(got.entries, want.entries), got.line)
        for key, value in want.state.items():
            if (held := got.state.get(key)) != value:
                said = f"{key} is {short(held, 30)}, expected {short(value, 30)}"
                if isinstance(held, list) and isinstance(value, list):
                    said = f"{key} holds {len(held)}, expected {len(value)}"
                    if len(held) == len(value):
                        said = str(difference(held, value, lambda at, k=key: f"{k}[{at}]"))
                fail(rule(key, "chat"), case, said, got.line)
        if want.answer is not None and answer_key(got.answer or []) != answer_key(want.answer):
            fail(rule("answer", "answer"), case, f"it answered {short(got.answer, 50)}", got.line)


def file_difference(got: list[Any], want: list[Any]) -> str:
    """How the file's entries differ from the solution's, in words."""
    if got and want and (not isinstance(got[0], dict) or got[0].get("type") != "header"):
        return "the file has no header"
    for at, (mine, theirs) in enumerate(zip(got, want, strict=False)):
        if not isinstance(mine, dict) or not covers(mine, theirs):
            said = uncovered(mine, theirs) if isinstance(mine, dict) else "is no entry"
            return f"entry {at} {said}" if at else f"the header {said}"
    kind = lambda line: line.get("type") if isinstance(line, dict) else "line"  # noqa: E731
    if len(got) > len(want):
        return f"it wrote a {kind(got[-1])} too many"  # the last: a header goes first
    return f"it wrote no {kind(want[-1])}"


def lines(script: Sequence[str], width: int = 50) -> str:
    """`hello, /thinking high`: the lines typed so far, their end kept when they are long. A
    character a terminal would obey is escaped, and so is a backslash: a typed `\\x1b` and a
    real ESC never look alike."""
    text = "".join(c if c.isprintable() and c != "\\" else repr(c)[1:-1] for c in ", ".join(script))
    return text if len(text) <= width else "…" + text[-(width - 1) :]


class ReadOnly:
    """Files a call may only read: mode 444, and every open for writing refused (EACCES) and
    recorded, since chmod alone stops nothing for root. Put in place by a check's before_load,
    so every os.open (the step's writer's too), open() and Path.open() is seen."""

    def __init__(self) -> None:
        import builtins
        import io

        self.protected: dict[tuple[int, int], str] = {}
        self.opened: list[str] = []  # "parent.jsonl (open(..., 'wb'))", in order
        real_os_open, real_open = os.open, builtins.open
        writing = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_TRUNC

        def os_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: Any = None) -> int:
            if flags & writing and not (flags & os.O_CREAT and flags & os.O_EXCL):
                self._refuse(path, dir_fd, "os.open for writing")
            return real_os_open(path, flags, mode, dir_fd=dir_fd)

        def open_(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            if isinstance(mode, str) and set(mode) & set("wa+"):
                self._refuse(file, None, f"open(..., {mode!r})")
            return real_open(file, mode, *args, **kwargs)

        os.open = os_open  # type: ignore[assignment]
        builtins.open = io.open = open_  # type: ignore[assignment]

    def _refuse(self, file: Any, dir_fd: Any, how: str) -> None:
        if not self.protected or isinstance(file, int):
            return
        try:
            found = os.stat(file, dir_fd=dir_fd)
        except (OSError, TypeError, ValueError):
            return  # no such file: nothing to protect
        if (name := self.protected.get((found.st_dev, found.st_ino))) is not None:
            self.opened.append(f"{name} ({how})")
            raise PermissionError(13, "Permission denied", os.fsdecode(file))

    @contextmanager
    def only_read(self, path: Path) -> Iterator[list[str]]:
        """`path` protected for the block; after it, the list says how it was written to."""
        said: list[str] = []
        before, opened, found = Snapshot(path), len(self.opened), path.stat()
        self.protected[(found.st_dev, found.st_ino)] = path.name
        path.chmod(0o444)
        try:
            yield said
        finally:
            self.protected.clear()
            path.chmod(found.st_mode)
        if len(self.opened) > opened:
            said.append(f"it opened {self.opened[opened]}")
        elif changed := before.change():
            said.append(changed)


class Snapshot:
    """A file's bytes and identity: how it changed since, in a few words, or None."""

    def __init__(self, path: Path) -> None:
        self.path, self.data, self.inode = path, path.read_bytes(), path.stat().st_ino

    def change(self, appending: bool = False) -> str | None:
        if not self.path.exists():
            return "it was deleted"
        now = self.path.read_bytes()
        if self.path.stat().st_ino != self.inode:
            return "it was replaced by a new file"
        if now == self.data or (appending and now.startswith(self.data)):
            return None
        return "its bytes changed" if not now.startswith(self.data) else "it was appended to"


# --- Processes ----------------------------------------------------------------------------------

_PRELUDE = """
import importlib.util, json, sys
target, name, step_dir, *args = sys.argv[1:]
sys.path.insert(0, step_dir)
spec = importlib.util.spec_from_file_location(name, target)
module = importlib.util.module_from_spec(spec)
sys.modules[name] = module
spec.loader.exec_module(module)
"""


def _child(subject: Subject, code: str, args: Sequence[str]) -> list[str]:
    import loop  # any module of the step: where the step folder is

    step = Path(loop.__file__ or "").resolve().parent
    name = subject.module.__name__.removesuffix("_solution")
    return [sys.executable, "-c", _PRELUDE + code, str(subject.path), name, str(step), *args]


def in_a_new_process(subject: Subject, code: str, *args: str) -> Any:
    """Run `code` in a fresh interpreter with the subject's module loaded as `module`: only
    the files survive into it. The code prints one JSON value last, which is returned."""
    arguments = _child(subject, code, args)
    try:
        done = subprocess.run(arguments, capture_output=True, timeout=CHILD_SECONDS)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"a new process took over {CHILD_SECONDS} s") from None
    if done.returncode != 0:
        errors = done.stderr.decode(errors="replace").strip().splitlines() or ["no error"]
        raise AssertionError(f"a new process, given only the files, failed: {errors[-1]}")
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


_IN_A_TOOL = """
import dataclasses, os
from loop import run_turn
from messages import user_text
from model import ScriptedModel
from session import Session
from tools import default_tools

def stalled(arguments):
    sys.stdout.buffer.write(b"<<in the tool>>\\n")
    sys.stdout.buffer.flush()
    sys.stdin.buffer.read()  # killed here
    os._exit(3)

tools = {name: dataclasses.replace(tool, run=stalled) for name, tool in default_tools().items()}
session = Session.create(args[0], session_id="killed", created_at="2026", cwd="/")
turn = run_turn(ScriptedModel(), tools, [], user_text(args[1]))
"""


def killed_in_a_tool(subject: Subject, folder: Path, text: str, code: str) -> str | None:
    """`code` runs a turn (`turn`, the loop's events for `text`, and `session`, a new session
    in `folder`) in a child process, SIGKILLed the moment the turn's tool starts: no
    `finally:`, no exit handler runs after that. None once killed there; else why not."""
    try:
        with running(subject, _IN_A_TOOL + code, str(folder), text, marker=b"<<in the tool>>"):
            return None  # killed on leaving the block
    except AssertionError as error:
        return str(error)


@contextmanager
def running(
    subject: Subject, code: str, *args: str, marker: bytes = b"<<ready>>"
) -> Iterator[subprocess.Popen[bytes]]:
    """`code` in a child process with the subject's module loaded, until it prints `marker`;
    the block runs while the child lives (it may kill it), and the child is SIGKILLed after.
    AssertionError (why, in a few words) if the child fails or ends before the marker."""
    with tempfile.TemporaryFile() as errors:  # a file, not a pipe: it never fills and blocks
        child = subprocess.Popen(_child(subject, code, args), stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=errors)  # fmt: skip
        assert child.stdout is not None
        output, deadline = b"", time.monotonic() + CHILD_SECONDS
        try:
            while marker not in output and time.monotonic() < deadline:
                if select.select([child.stdout], [], [], 0.1)[0]:
                    if not (chunk := os.read(child.stdout.fileno(), 65536)):
                        break  # it ended
                    output += chunk
            if marker not in output:
                child.kill()
                child.wait()
                errors.seek(0)
                last = errors.read().decode(errors="replace").strip().splitlines()
                if child.returncode == -signal.SIGKILL and not last:
                    raise AssertionError(f"it did not get there within {CHILD_SECONDS} s")
                raise AssertionError(f"it failed first: {last[-1]}" if last else "it ended first")
            yield child
        finally:
            child.kill()
            child.wait()
            for pipe in (child.stdin, child.stdout):
                pipe.close()  # type: ignore[union-attr]


# --- Generated inputs ---------------------------------------------------------------------


def for_all(
    strategy: Any, test: Callable[[Any], None], examples: int = 100, named: Sequence[Any] = ()
) -> int:
    """Run `test` on the `named` values, then on `examples` values of `strategy`, the same ones
    every run; a failing generated one is shrunk to a smallest failing input before its FAIL
    is raised. Returns how many values were tried at most."""
    from hypothesis import HealthCheck, Phase, Verbosity, example, given, settings

    @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
              phases=[Phase.explicit, Phase.generate, Phase.shrink], verbosity=Verbosity.quiet,
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)  # fmt: skip
    def property_(value: Any) -> None:
        test(value)

    for value in reversed(named):  # the innermost decorator's example is tried first
        property_ = example(value)(property_)
    given(strategy)(property_)()
    return examples + len(named)


@dataclass
class Tree:
    """Entries by id, in file order, and a leaf: what a reader of a session file hands on."""

    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    leaf: str | None = None
    name: str = ""  # said instead of the entries, for a named case

    def __str__(self) -> str:
        if self.name:
            return self.name
        shown, previous = [], None
        for entry_id, entry in self.entries.items():  # e1 msg u:q1, e2^root level 'high'
            parent = entry.get("parentId")
            under = "" if parent == previous else f"^{parent}" if parent else "^root"
            values = [short(v, 12) for k, v in entry.items() if k not in _FRAME]
            if entry["type"] == "message":  # its role's initial, its text: u:q1, a:a1, t:96
                message = entry["message"]
                said = " ".join(str(b.get("text", "")) for b in message["content"]).strip()
                said = "".join(c if c.isprintable() else repr(c)[1:-1] for c in said)  # ESC too
                values = [f"{message['role'][0]}:{cut(said, 10)}"]
            kind = _KIND.get(entry["type"], entry["type"])
            shown.append(" ".join([f"{entry_id}{under} {kind}", *values]))
            previous = entry_id
        return f"[{', '.join(shown)}] at {self.leaf}"


_FRAME = ("type", "id", "parentId", "message")
_KIND = {"message": "msg", "model_change": "model", "thinking_level_change": "level",
         "session_info": "name", "branch_summary": "summary", "x_later_kind": "x"}  # fmt: skip


def trees(kinds: Mapping[str, Any], size: int = 8) -> Any:
    """A strategy of Trees: entries of the given kinds (kind -> strategy of its fields), each
    under an earlier one, the one before, none, or a missing one; the leaf any of them."""
    from hypothesis import strategies as st

    from messages import assistant_message, user_text

    messages = st.sampled_from([user_text("q1"), assistant_message("a1"), user_text("q2")])
    kinds = {"message": st.fixed_dictionaries({"message": messages}), **kinds}

    @st.composite
    def build(draw: Any) -> Tree:
        tree = Tree()
        for number in range(1, draw(st.integers(0, size)) + 1):
            ids = list(tree.entries)
            parent = draw(st.sampled_from([ids[-1] if ids else None, None, "e0", *ids]))
            kind = draw(st.sampled_from(sorted(kinds)))
            fields = draw(kinds[kind])
            entry_id = f"e{number}"
            tree.entries[entry_id] = {"type": kind, "id": entry_id, "parentId": parent, **fields}
        tree.leaf = draw(st.sampled_from([*reversed(tree.entries), None]))  # the last, first
        return tree

    return build()


def odd_values(*good: Any) -> Any:
    """A field's value as a file may hold it: one of the good ones, or anything JSON holds."""
    from hypothesis import strategies as st

    return st.sampled_from([*good, *good, 7, None, ["x"], {"k": "v"}, True, ""])
