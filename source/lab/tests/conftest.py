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

from harness import new_session, run  # noqa: E402

from loop import run_turn  # noqa: E402
from messages import Message, user_text  # noqa: E402
from model import ScriptedModel  # noqa: E402
from session import persist_new_messages  # noqa: E402
from tools import default_tools  # noqa: E402

RunMain = Callable[..., subprocess.CompletedProcess[bytes]]


@dataclass(frozen=True)
class Saved:
    path: Path
    messages: list[Message]


def save_conversation(directory: Path, name: str, inputs: list[str]) -> Saved:
    """What a first run of main.py leaves behind: a session file holding these turns."""
    session = new_session(directory, name, cwd=str(directory))
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

    def run_in_tmp_path(stdin: str | bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
        return run(tmp_path, stdin.encode() if isinstance(stdin, str) else stdin, *args)

    return run_in_tmp_path


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
