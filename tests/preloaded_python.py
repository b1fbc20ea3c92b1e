"""`python -c CODE ARGUMENTS...`, forked from an interpreter that has already imported
matplotlib: what the tests that draw run their drivers with (the `preloaded_python` fixture in
conftest.py).

Each driver imports one step's modules, so each runs in a process of its own; a fresh one
spent 0.6 s of CPU importing matplotlib before it drew anything, eleven times in a run of the
course-wide tests. Here one server imports it once and forks a child for each driver: a
process that has loaded matplotlib and nothing of any step, that runs the code as `python -c`
would (`__main__`, sys.argv, '' first on sys.path, standard input empty), and whose output,
errors and exit status come back as a subprocess.run's do.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVER = r"""
import json, os, sys, traceback

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot

for request in sys.stdin:  # one run a line: [code, arguments, output file, errors file]
    code, arguments, out, err = json.loads(request)
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            sys.stdin = open(os.devnull)
            os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 1)
            os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
            sys.argv = ["-c", *arguments]
            try:
                exec(compile(code, "<string>", "exec"), {"__name__": "__main__"})
                status = 0
            except SystemExit as exit:
                if exit.code is None or isinstance(exit.code, int):
                    status = exit.code or 0
                else:
                    print(exit.code, file=sys.stderr)
            except BaseException:
                traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    print(pid, flush=True)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
"""


class PreloadedPython:
    """The server, started once; `run` asks it for one child at a time."""

    def __init__(self) -> None:
        self._server = subprocess.Popen(
            [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self._said = b""

    def run(self, code: str, *arguments: str, timeout: float) -> subprocess.CompletedProcess[bytes]:
        """Run `code` as `python -c code *arguments` would, in the current folder."""
        assert self._server.stdin is not None
        with tempfile.TemporaryDirectory() as folder:
            out, err = Path(folder, "out"), Path(folder, "err")
            request = [code, list(arguments), str(out), str(err)]
            self._server.stdin.write(json.dumps(request).encode() + b"\n")
            self._server.stdin.flush()
            deadline = time.monotonic() + timeout
            pid = int(self._line(deadline) or b"")
            status = self._line(deadline)
            if status is None:
                os.kill(pid, signal.SIGKILL)
                self._line(time.monotonic() + 10)
                raise subprocess.TimeoutExpired(["-c", code, *arguments], timeout)
            return subprocess.CompletedProcess(
                ["-c", code, *arguments], int(status), out.read_bytes(), err.read_bytes()
            )

    def _line(self, deadline: float) -> bytes | None:
        """The server's next line, waited for until `deadline` (None after that)."""
        assert self._server.stdout is not None
        while b"\n" not in self._said:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._server.stdout], [], [], left)[0]:
                return None
            more = os.read(self._server.stdout.fileno(), 4096)
            if not more:
                raise RuntimeError(f"the preloaded python ended ({self._server.wait()})")
            self._said += more
        line, self._said = self._said.split(b"\n", 1)
        return line

    def close(self) -> None:
        assert self._server.stdin is not None
        self._server.stdin.close()  # the server reads the end, and exits
        self._server.wait(timeout=30)
