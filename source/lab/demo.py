# >>file prod
"""A scripted run of the production step: a run killed inside a tool call, and the run that
takes over from it.

The first run is a real process, killed with SIGKILL while `calc` runs (LAB_TOOL_DELAY holds
the call open): no handler, no `finally`, nothing of Python runs after the kill. The second is
`main.py --continue`, as a user would start it. Deterministic: the kill waits for the line that
says the call started, and the session's name (a clock and a random suffix) is shown as
SESSION, so the output is compared byte for byte with expected-output.txt.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

from entries import summarize  # noqa: E402
from session import read_session  # noqa: E402

MAIN = Path(__file__).resolve().parent / "main.py"
SESSION_NAME = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{6}")


def shown(text: str) -> str:
    return SESSION_NAME.sub("SESSION", text)


def killed_in_a_tool_call(folder: Path, typed: str) -> None:
    """Run main.py on `typed` and SIGKILL it the moment its first tool call starts."""
    process = subprocess.Popen(
        [sys.executable, str(MAIN)],
        cwd=folder,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "LAB_TOOL_DELAY": "30"},
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(typed)
    process.stdin.close()
    for line in process.stdout:
        print(shown(line), end="")
        if line.startswith("[tool call]"):
            while b'"toolCall"' not in session_bytes(folder):
                time.sleep(0.01)  # shown as it streamed; saved a moment later, then calc runs
            process.kill()  # SIGKILL: the process gets no chance to do anything more
            break
    process.wait()
    process.stdout.close()
    print(f"-- killed with SIGKILL while calc ran (exit status {process.returncode})")


def session_bytes(folder: Path) -> bytes:
    return b"".join(path.read_bytes() for path in (folder / ".sessions").glob("*.jsonl"))


def run(folder: Path, typed: str, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, str(MAIN), *args],
        cwd=folder,
        input=typed,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    print(shown(done.stdout), end="")


def entries_from(folder: Path, first: int, what: str) -> int:
    """The file's entries from the `first`-th on, as /tree labels them: read from the file, not
    from a run's memory. Returns how many the file holds."""
    [path] = (folder / ".sessions").glob("*.jsonl")
    entries = read_session(path).entries
    print(f"[the file: a header and {len(entries)} entries; {what}:]")
    for entry in entries[first:]:
        summary = summarize(entry, 70)
        print(f"  {entry['id']} {summary.kind}: {summary.text}")
    return len(entries)


def main() -> None:
    print("Production step demo: a run killed inside a tool call, and the run that takes over.")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("\n=== run 1: python main.py, killed while calc runs ===")
        killed_in_a_tool_call(folder, "hello\nwhat is 12*8\n")
        saved = entries_from(folder, 2, "the last two")
        print("\n=== run 2: python main.py --continue ===")
        run(folder, "what is 12*8\nwhat was the result\n", "--continue")
        entries_from(folder, saved, "what run 2 added")


if __name__ == "__main__":
    main()
