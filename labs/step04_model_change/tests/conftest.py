"""Put the step folder first on sys.path, so tests import its modules by bare name.

Also the fixtures several test files share: a saved two-turn conversation, and main.py run as a
real process.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

STEP_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(STEP_DIR))

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
