# >>file 02
# >> 02 until 03
# """Put the step folder first on sys.path, so tests import its modules by bare name."""
# << 02 until 03
# >> 03
"""Put the step folder first on sys.path, so tests import its modules by bare name.

Also the fixtures several test files share: a saved two-turn conversation, and main.py run as a
real process.
"""
# << 03

from __future__ import annotations

# >> 05
import os
import shutil

# << 05
import signal

# >> 03
import subprocess

# << 03
import sys

# >> 03
from collections.abc import Callable
from dataclasses import dataclass

# << 03
from pathlib import Path

# >> 03
import pytest

# << 03

STEP_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(STEP_DIR))
# >> 03

from loop import run_turn  # noqa: E402
from messages import Message, user_text  # noqa: E402
from model import ScriptedModel  # noqa: E402
from session import Session, persist_new_messages  # noqa: E402
from tools import default_tools  # noqa: E402

RunMain = Callable[..., subprocess.CompletedProcess[bytes]]


@dataclass(frozen=True)
class Saved:
    path: Path
    messages: list[Message]


def save_conversation(directory: Path, name: str, inputs: list[str]) -> Saved:
    """What a first run of main.py leaves behind: a session file holding these turns."""
    session = Session.create(
        directory, session_id=name, created_at="2026-01-01T00:00:00Z", cwd=str(directory)
    )
    messages: list[Message] = []
    persisted = 0
    for text in inputs:
        for _ in run_turn(ScriptedModel(), default_tools(), messages, user_text(text)):
            pass
        persisted = persist_new_messages(session, messages, persisted)
    return Saved(session.path, messages)


@pytest.fixture
def saved(tmp_path: Path) -> Saved:
    """.sessions/first.jsonl after `hello` and `what is 12*8`: a header and 6 messages."""
    return save_conversation(tmp_path / ".sessions", "first", ["hello", "what is 12*8"])


@pytest.fixture
def run_main(tmp_path: Path) -> RunMain:
    """Run main.py in tmp_path with `stdin` piped in; bytes in, bytes out."""

    def run(stdin: str | bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, str(STEP_DIR / "main.py"), *args],
            cwd=tmp_path,
            input=stdin.encode() if isinstance(stdin, str) else stdin,
            capture_output=True,
            timeout=60,
        )

    return run


# << 03


# >> 05
@pytest.fixture
def without_root_override() -> list[str]:
    """A command prefix that takes away root's power to write anywhere (none for other users).

    A test of an unwritable folder passes vacuously as root, which CI machines often are:
    setpriv drops the capabilities that override file permissions, for that one process.
    """
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv")
    dropped = "-dac_override,-dac_read_search"
    return [setpriv, f"--bounding-set={dropped}", f"--inh-caps={dropped}"]


# << 05


def stop_signals_at_default() -> None:
    """preexec_fn of a child a test sends a stop signal to. Ignored dispositions are inherited
    through exec: under `make check &` or `nohup` the child would start with SIGINT or SIGHUP
    ignored, and (rightly) keep running. At a terminal each starts at its default."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


# >> 05


# Messages for the tool-call pairing tests: an assistant asking for calls, and one result.
def call_message(*ids: str) -> Message:
    calls = [{"type": "toolCall", "id": i, "name": "calc", "arguments": {}} for i in ids]
    return {"role": "assistant", "content": calls, "stopReason": "toolUse"}  # type: ignore[typeddict-item]


def result(call_id: str) -> Message:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": "calc",
        "content": [{"type": "text", "text": "1"}],
        "isError": False,
    }


ANSWER: Message = {"role": "assistant", "content": [], "stopReason": "stop"}
# << 05
# >> 02 until prod
#
#
# # main.py with calc slowed down: a turn still running when a test stops it. (From step 03 the
# # program has LAB_TOOL_DELAY for this; step 02 is slowed from outside.)
# SLOW_CALC = """
# import runpy, sys, time
# from dataclasses import replace
# sys.argv = sys.argv[1:]
# sys.path.insert(0, {step!r})
# import tools
# def slowly(arguments):
#     time.sleep({seconds})
#     return tools.calc(arguments)
# tools.default_tools = lambda: {{"calc": replace(tools.CALC, run=slowly)}}
# runpy.run_path(sys.argv[0], run_name="__main__")
# """
#
#
# def main_with_slow_calc(seconds: float) -> list[str]:
#     """The command line of main.py whose every calc sleeps `seconds` first."""
#     script = SLOW_CALC.format(step=str(STEP_DIR), seconds=seconds)
#     return [sys.executable, "-c", script, str(STEP_DIR / "main.py")]
# << 02 until prod
