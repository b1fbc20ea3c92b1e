# >>file prod
"""`--model openai:NAME` against the fake Chat Completions endpoint of `fake_endpoint.py`,
which each test starts on 127.0.0.1; no other address is ever used.

The fake refuses, with the API's own 400, a history whose tool calls are not all answered. The
name after `openai:` picks what it does (`openai:fault-401`...), so each fault is one run
of main.py, and the run after it proves nothing was half-saved. Every run is given a key and
a URL password a search can recognise, and no byte the run writes may hold either.
"""

from __future__ import annotations

import contextlib
import io
import locale
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import traceback
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fake_endpoint import Server, start
from harness import STEP_DIR, run, running

# Recognisable, so a search of every byte a run wrote finds them if they leaked.
KEY = "sk-lab-the-key-a-file-must-never-hold-4242"
URL_PASSWORD = "url-password-a-file-must-never-hold-77"


@pytest.fixture
def endpoint() -> Iterator[Server]:
    server = start()
    yield server
    server.stop()


def environment(base_url: str | None, key: str | None = "test") -> dict[str, str]:
    """This process's environment, with the endpoint and key set, and no proxy: a request
    must go straight to 127.0.0.1 and nowhere else."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("OPENAI_") and "proxy" not in name.lower()
    }
    env["NO_PROXY"] = "*"
    if base_url is not None:
        env["OPENAI_BASE_URL"] = base_url
    if key is not None:
        env["OPENAI_API_KEY"] = key
    return env


def run_main(
    tmp_path: Path,
    stdin: str,
    *args: str,
    env: dict[str, str],
    timeout: float = 60,
    process: bool = False,
) -> subprocess.CompletedProcess[str]:
    """main.py --session-dir tmp_path/s ARGS, in tmp_path, `stdin` typed, in `env`.

    In this process unless `process` is asked for: a new Python imports the SDK again, 0.7 s
    of CPU a run. What a run of its own would see is given it (the argument list, the
    environment, the folder, real files as its standard streams, the default warnings and
    logging), and what it changes is put back (the signal handlers, the models it made,
    the locks it held). A test whose point is a process (a signal, a missing SDK) asks
    for one."""
    argv = ["--session-dir", str(tmp_path / "s"), *args]
    if process:
        return run(tmp_path, stdin, *argv, text=True, env=env, timeout=timeout)
    return run_main_here(tmp_path, stdin, argv, env=env, timeout=timeout)


def started(
    tmp_path: Path, endpoint: Server, *args: str
) -> contextlib.AbstractContextManager[subprocess.Popen[bytes]]:
    """main.py on the fake's `openai:good`, live, as a process of its own (`running`, in
    harness.py): for the tests whose point is a signal sent to it (Ctrl-C)."""
    arguments = ["--session-dir", str(tmp_path / "s"), "--model", "openai:good", *args]
    return running(tmp_path, *arguments, env=environment(endpoint.base_url))


class TimedOut(BaseException):
    """The watchdog's: the run took longer than a subprocess's timeout would have let it."""


def timed_out(signum: int, frame: object) -> None:
    raise TimedOut


class ThisThread:
    """A standard stream that is the run's for the thread running main, and this process's
    for every other: the fake endpoint serves in threads of this process, and what they print
    (socketserver's report of a connection the client dropped) is no output of the run."""

    def __init__(self, run: io.TextIOBase, others: Any) -> None:
        self._run, self._others, self._thread = run, others, threading.get_ident()

    def __getattr__(self, name: str) -> Any:
        mine = threading.get_ident() == self._thread
        return getattr(self._run if mine else self._others, name)


# Those main.py sets (its stop signals, a reply's deadline), and the watchdog's own.
SIGNALS_SET = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM, signal.SIGUSR1)


def run_main_here(
    folder: Path, stdin: str, argv: list[str], *, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """`main.main(argv)` as `python main.py ARGV` would run it, in this process."""
    import main
    import model_registry
    import session_lock

    encoding = locale.getpreferredencoding(False)
    environ, cwd, old_argv = dict(os.environ), os.getcwd(), sys.argv
    streams = sys.stdin, sys.stdout, sys.stderr
    handlers = {signum: signal.getsignal(signum) for signum in SIGNALS_SET}
    made, locks = dict(model_registry.MODELS._made), set(session_lock._HELD_LOCKS)
    root = logging.getLogger()
    root_handlers, root_level = root.handlers[:], root.level
    # Without a name, so nothing in `folder`; closed at the end, once read.
    files = [tempfile.TemporaryFile() for _ in range(3)]  # noqa: SIM115
    files[0].write(stdin.encode(encoding))
    files[0].seek(0)
    # A pipe's streams, as Python makes them for a process: stderr backslash-escapes.
    wrappers = [
        io.TextIOWrapper(files[0], encoding=encoding),
        io.TextIOWrapper(files[1], encoding=encoding),
        io.TextIOWrapper(files[2], encoding=encoding, errors="backslashreplace"),
    ]
    sys.stdin = wrappers[0]
    sys.stdout, sys.stderr = (
        ThisThread(wrappers[1], streams[1]),
        ThisThread(wrappers[2], streams[2]),
    )
    os.environ.clear()
    os.environ.update(env)
    os.chdir(folder)
    sys.argv = [str(STEP_DIR / "main.py"), *argv]
    root.handlers, root.level = [], logging.WARNING  # logging's last resort writes to stderr
    signal.signal(signal.SIGUSR1, timed_out)
    watched = threading.get_ident()
    watchdog = threading.Event()

    def watch() -> None:
        if not watchdog.wait(timeout):
            while not watchdog.wait(1):  # until the run has let go
                signal.pthread_kill(watched, signal.SIGUSR1)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    late = False
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.resetwarnings()  # Python's own defaults, not pytest's
            warnings.simplefilter("default")
            for ignored in (DeprecationWarning, PendingDeprecationWarning, ImportWarning):
                warnings.simplefilter("ignore", ignored)
            warnings.simplefilter("ignore", ResourceWarning)
            try:
                returncode = main.main(argv)
            except TimedOut:
                late = True
                returncode = -signal.SIGKILL
            except SystemExit as exit:  # --help
                returncode = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
            except KeyboardInterrupt:
                raise
            except BaseException:  # noqa: BLE001 - what Python does with one a program let out
                traceback.print_exc()
                returncode = 1
            for warning in caught:
                sys.stderr.write(
                    warnings.formatwarning(
                        warning.message, warning.category, warning.filename, warning.lineno
                    )
                )
    finally:
        watchdog.set()
        watcher.join()
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for name in set(model_registry.MODELS._made) - set(made):  # as the process's end would
            client = getattr(model_registry.MODELS._made[name], "client", None)
            if client is not None:
                client.close()
        model_registry.MODELS._made.clear()
        model_registry.MODELS._made.update(made)
        for fd in set(session_lock._HELD_LOCKS) - locks:
            session_lock.unlock(fd)
        root.handlers, root.level = root_handlers, root_level
        sys.argv = old_argv
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(environ)
        sys.stdin, sys.stdout, sys.stderr = streams
        for wrapper in wrappers:  # flushed, as at a process's end; the file kept open
            with contextlib.suppress(OSError, ValueError):
                wrapper.detach()
    output = []
    for file in files[1:]:
        file.seek(0)
        text = file.read().decode(encoding)
        output.append(text.replace("\r\n", "\n").replace("\r", "\n"))  # as text=True reads
        file.close()
    files[0].close()
    done = subprocess.CompletedProcess(["main.py", *argv], returncode, *output)
    if late:
        raise subprocess.TimeoutExpired(done.args, timeout, output[0], output[1])
    return done


def saved(tmp_path: Path) -> list[dict[str, Any]]:
    """Every entry of every session file, in order (headers left out)."""
    entries = []
    for path in sorted((tmp_path / "s").glob("*.jsonl")):
        entries += [orjson.loads(line) for line in path.read_bytes().splitlines()[1:]]
    return entries


def saved_messages(tmp_path: Path) -> list[dict[str, Any]]:
    return [entry["message"] for entry in saved(tmp_path) if entry["type"] == "message"]


def with_password(base_url: str) -> str:
    """The same endpoint, with a user and password in its URL. (The HTTP library then sends
    them as Basic authorization instead of the key: the fake does not check either.)"""
    return base_url.replace("http://", f"http://lab:{URL_PASSWORD}@")


def secrets_written(done: subprocess.CompletedProcess[str], folder: Path) -> list[str]:
    """Where the key or the URL's password shows in what a run wrote: its output, its errors,
    and every byte of every file under `folder` (the sessions, and anything else it made)."""
    places = {"stdout": done.stdout.encode(), "stderr": done.stderr.encode()}
    places |= {str(path): path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    return [
        f"{secret} in {place}"
        for place, data in places.items()
        for secret in (KEY, URL_PASSWORD)
        if secret.encode() in data
    ]


def test_a_turn_with_a_tool_call_streams_through_the_endpoint(
    tmp_path: Path, endpoint: Server
) -> None:
    env = environment(endpoint.base_url, KEY)
    done = run_main(tmp_path, "what is 12*8\n", "--model", "openai:good", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert secrets_written(done, tmp_path) == []  # the endpoint was given the key; no file was
    lines = done.stdout.splitlines()
    assert lines[0].endswith(" (model openai:good)") and "switched" not in done.stdout
    assert "assistant> Let me use calc." in lines
    assert '[tool call] calc {"expression":"12*8"}' in lines
    assert "[tool result] calc -> 96" in lines
    assert "assistant> The answer is 96." in lines

    user, call, result, answer = saved_messages(tmp_path)
    assert user == {"role": "user", "content": [{"type": "text", "text": "what is 12*8"}]}
    assert call == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me use calc."},
            {
                "type": "toolCall",
                "id": "call_f1",
                "name": "calc",
                "arguments": {"expression": "12*8"},
            },
        ],
        "stopReason": "toolUse",
        "usage": call["usage"],  # what the fake counted (test_usage_...)
    }
    assert result["toolCallId"] == "call_f1" and result["content"][0]["text"] == "96"
    assert answer["content"] == [{"type": "text", "text": "The answer is 96."}]
    assert answer["stopReason"] == "stop"

    # What the endpoint was sent: the model's name, the key, calc as a function, and on the
    # second call the tool call (arguments as a JSON string) and its answer, paired by id.
    first, second = endpoint.requests
    assert first["auth"] == f"Bearer {KEY}"
    assert first["body"]["model"] == "good" and first["body"]["stream"] is True
    tools = {tool["function"]["name"]: tool for tool in first["body"]["tools"]}
    tool = tools["calc"]  # among whatever tools a copy of this step has added
    assert tool["function"]["parameters"] == {
        "type": "object",
        "properties": {
            "expression": {"type": "string", "description": "the expression, e.g. (2+3)*4"}
        },
        "required": ["expression"],
    }
    assert second["body"]["messages"][2:] == [
        {
            "role": "assistant",
            "content": "Let me use calc.",
            "tool_calls": [
                {
                    "id": "call_f1",
                    "type": "function",
                    "function": {"name": "calc", "arguments": '{"expression":"12*8"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_f1", "content": "96"},
    ]


def test_without_a_key_one_error_line_before_any_file(tmp_path: Path, endpoint: Server) -> None:
    done = run_main(
        tmp_path, "hello\n", "--model", "openai:good", env=environment(endpoint.base_url, key=None)
    )
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: ") and "OPENAI_API_KEY" in line
    assert "session file" not in done.stdout
    assert not (tmp_path / "s").exists()
    assert endpoint.requests == []


@pytest.mark.parametrize(
    ("variable", "value"),
    [("OPENAI_BASE_URL", "http://[::1"), ("OPENAI_BASE_URL", "http://127.0.0.1:1/v1\x1b[2J"),
     ("OPENAI_API_KEY", "clé"), ("OPENAI_API_KEY", "sk-1\r\nX-Injected: 1")],
)  # fmt: skip
def test_a_broken_endpoint_or_key_is_one_error_line_before_any_file(
    tmp_path: Path, variable: str, value: str
) -> None:
    """The HTTP library refuses such a URL, and a header such a key, with its own exception:
    before, a traceback; a key a header cannot carry was called "a broken chunk"."""
    env = {**environment("http://127.0.0.1:1/v1"), variable: value}
    done = run_main(tmp_path, "hello\n", "--model", "openai:good", env=env)
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: openai:good: ") and variable in line, line
    assert "\x1b" not in line and not (tmp_path / "s").exists()


def test_an_unknown_model_name_is_one_error_line(tmp_path: Path) -> None:
    done = run_main(tmp_path, "hello\n", "--model", "gpt", env=environment(None))
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: ") and "openai:NAME" in line


def test_the_scripted_default_never_imports_the_sdk(tmp_path: Path) -> None:
    probe = (
        f"import sys; sys.path.insert(0, {str(STEP_DIR)!r}); import main, model_registry; "
        "model_registry.MODELS['scripted-v1']; print('openai' in sys.modules)"
    )
    done = run(tmp_path, None, command=[sys.executable, "-c", probe], text=True)
    assert done.stdout.strip() == "False", done.stderr


def test_the_fake_refuses_unanswered_tool_calls_as_the_api_does(endpoint: Server) -> None:
    """The fake's own check, proved: a model that sent this would get the API's 400."""
    import openai

    client = openai.OpenAI(base_url=endpoint.base_url, api_key="test", max_retries=0)
    call = {"id": "call_x", "type": "function", "function": {"name": "calc", "arguments": "{}"}}
    with pytest.raises(openai.BadRequestError, match="call_x"):
        client.chat.completions.create(
            model="good",
            messages=[
                {"role": "user", "content": "what is 1+1"},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "user", "content": "hello"},
            ],
            stream=True,
        )


def refused_port() -> int:
    """A port on 127.0.0.1 with nothing listening: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


FAULTS = {
    "fault-401": "HTTP 401",
    "fault-429": "HTTP 429",
    "fault-500": "HTTP 500",
    "fault-malformed": "broken chunk",
    "fault-cut-arguments": "was cut",
    "fault-empty-stream": "broke off",
    "fault-no-finish": "broke off",
    "fault-error-event": "The server had an error.",
    "refused": "no answer from",
    "fault-redirect": "HTTP 307: a redirect, not followed",
    "fault-endless-line": "an event over 16,777,216 bytes",
    "fault-huge-reply": "a reply over 4,194,304 characters",
    "fault-odd-chunk": "a chunk whose `content` is not a string",
    "fault-call-id-number": "a chunk whose `id` is not a string",
    "fault-json-array": "one JSON array (application/json), not a stream or a completion",
}


TRIED = sorted(FAULTS)  # each one run of main.py
# The next run is tried after one fault of each kind (a status, a stream cut, no connection):
# nothing of any fault was half-saved (checked above), so what follows is the same.
AFTER = ("fault-401", "fault-cut-arguments", "refused")


@pytest.mark.parametrize("fault", TRIED)
def test_a_fault_is_one_error_line_and_the_next_run_works(
    tmp_path: Path, endpoint: Server, fault: str
) -> None:
    base = f"http://127.0.0.1:{refused_port()}/v1" if fault == "refused" else endpoint.base_url
    env = environment(with_password(base), KEY)
    done = run_main(tmp_path, "hello\n", "--model", f"openai:{fault}", env=env)
    assert secrets_written(done, tmp_path) == []
    assert done.returncode == 0, done.stdout  # the turn failed, not the run
    assert "Traceback" not in done.stderr
    (error,) = done.stderr.splitlines()
    assert error.startswith(f"error: openai:{fault}: ") and FAULTS[fault] in error, error
    assert "\nyou> \n" in done.stdout, "a reply cut short leaves the next prompt glued to it"
    # Nothing half-saved: the user's line may stay, but no reply that broke off.
    assert [m["role"] for m in saved_messages(tmp_path)] in ([], ["user"])
    if fault in ("fault-429", "fault-500"):
        assert len(endpoint.requests) == 2  # the SDK retried once, then gave up
    if fault == "fault-redirect":
        assert len(endpoint.requests) == 1  # followed, it would send the conversation on

    if fault not in AFTER:
        return
    env = environment(endpoint.base_url)
    after = run_main(tmp_path, "hello\n", "--continue", "--model", "openai:good", env=env)
    assert after.returncode == 0, after.stderr
    assert "assistant> Hello from good." in after.stdout.splitlines()
    assert [m["role"] for m in saved_messages(tmp_path)][-2:] == ["user", "assistant"]


def test_a_switch_to_an_openai_model_is_recorded_and_restored(
    tmp_path: Path, endpoint: Server
) -> None:
    env = environment(endpoint.base_url)
    done = run_main(tmp_path, "/model openai:good\nhello\n", env=env)
    assert done.returncode == 0, done.stderr
    assert "switched to openai:good" in done.stdout.splitlines()
    switches = [entry["model"] for entry in saved(tmp_path) if entry["type"] == "model_change"]
    assert switches == ["openai:good"]

    again = run_main(tmp_path, "hello\n", "--continue", env=env)
    assert again.returncode == 0, again.stderr
    lines = again.stdout.splitlines()
    assert "model openai:good)" in lines[0]
    assert lines.count("assistant> Hello from good.") == 1
    assert [request["body"]["model"] for request in endpoint.requests] == ["good", "good"]


def test_without_a_key_a_switch_is_refused_and_a_recorded_model_fails_before_any_turn(
    tmp_path: Path, endpoint: Server
) -> None:
    """`/model openai:NAME` without a key used to be recorded, and the turn after it failed; a
    session recorded with one resumed, and failed at the first question typed."""
    keyless = environment(endpoint.base_url, key=None)
    done = run_main(tmp_path, "hello\n/model openai:good\n", env=keyless)
    assert done.returncode == 0, done.stderr
    assert any("needs OPENAI_API_KEY" in line for line in done.stdout.splitlines())
    assert [entry["type"] for entry in saved(tmp_path)] == ["message", "message"]  # no switch

    keyed = environment(endpoint.base_url)
    switched = run_main(tmp_path, "/model openai:good\n", "--continue", env=keyed)
    assert switched.returncode == 0, switched.stderr
    again = run_main(tmp_path, "what is 2+3\n", "--continue", env=keyless)
    assert again.returncode == 1
    (error,) = again.stderr.splitlines()
    assert "needs OPENAI_API_KEY" in error
    assert "assistant>" not in again.stdout and endpoint.requests == []  # before any turn


def test_a_tool_call_a_crash_left_unanswered_never_reaches_the_endpoint(
    tmp_path: Path, endpoint: Server
) -> None:
    """A crash between the line of a tool call and the line of its result (in step 05 during
    the tool call; in steps 02-04 between two lines of one turn's save) leaves the call without
    a result at the end of the file. Resumed with a real model, the history is answered first
    (steps 03 and 04 in memory, step 05 also in the file), so the endpoint never refuses it."""
    first = run_main(tmp_path, "what is 12*8\n", env=environment(None))
    assert first.returncode == 0, first.stderr
    (path,) = (tmp_path / "s").glob("*.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    assert [orjson.loads(line)["message"]["role"] for line in lines[1:]] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    os.truncate(path, len(b"".join(lines[:3])))  # what the crash left: header, user, the call

    resumed = run_main(
        tmp_path,
        "hello\n",
        "--continue",
        "--model",
        "openai:good",
        env=environment(endpoint.base_url),
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "assistant> Hello from good." in resumed.stdout.splitlines()
    (request,) = endpoint.requests
    sent = request["body"]["messages"]
    assert [message["role"] for message in sent] == ["system", "user", "assistant", "tool", "user"]
    assert sent[3]["tool_call_id"] == sent[2]["tool_calls"][0]["id"]


def test_the_system_prompt_is_the_programs_own_unless_set(tmp_path: Path, endpoint: Server) -> None:
    """The first message sent is the program's system message, never saved; LAB_SYSTEM_PROMPT
    replaces it with an agent's own, braces and all."""
    env = environment(endpoint.base_url)
    for prompt in (None, "You are {terse}. Answer in one line."):
        if prompt is not None:
            env["LAB_SYSTEM_PROMPT"] = prompt
        done = run_main(tmp_path, "hello\n", "--model", "openai:good", env=env)
        assert done.returncode == 0, done.stderr
        system = endpoint.requests[-1]["body"]["messages"][0]
        assert system["role"] == "system"
        if prompt is None:
            assert "calc" in system["content"]  # the lab's own, naming the tools
        else:
            assert system["content"] == prompt
    assert all(m["role"] != "system" for m in saved_messages(tmp_path))


def test_an_event_is_bounded_from_its_last_blank_line_wherever_the_pieces_split() -> None:
    """The bound counts the bytes since the last blank line, also one split across two pieces
    of the body: many small events pass however long the stream, one long event does not."""
    from openai_body import events_within
    from openai_stream import ChunkError

    def body(*pieces: bytes):  # noqa: ANN202 - what response.iter_bytes is
        return lambda: iter(pieces)

    small = [b"data: 1234567\n", b"\n"] * 50  # 50 events of 16 bytes, a blank line split off
    assert b"".join(events_within(body(*small), 20)()) == b"".join(small)
    crlf = [b"data: 1234567\r\n\r", b"\n"] * 50
    assert b"".join(events_within(body(*crlf), 20)()) == b"".join(crlf)
    with pytest.raises(ChunkError, match="an event over 20 bytes"):
        list(events_within(body(b"data: 1234567\n", b"data: 1234567\n"), 20)())


def test_an_error_line_never_shows_what_a_url_carries_beside_its_address() -> None:
    from endpoint_secrets import address_shown

    assert address_shown("http://me:secret@127.0.0.1:8/v1") == "http://127.0.0.1:8/v1"
    assert address_shown("http://127.0.0.1:8/v1/a@b") == "http://127.0.0.1:8/v1/a@b"
    assert address_shown("http://127.0.0.1:8/v1?key=abc#x") == "http://127.0.0.1:8/v1"
    assert address_shown("not a url") == "not a url"


QUERY_KEY = "query-key-a-line-must-never-show-31"


@pytest.mark.parametrize("fault", ["fault-401-echo", "fault-429-echo", "refused"])
def test_an_endpoint_that_quotes_the_key_back_has_it_shown_nowhere(
    tmp_path: Path, endpoint: Server, fault: str
) -> None:
    """A gateway that quotes the refused key in its error text, and a key in the URL's query
    string, once printed whole in the error line."""
    base = f"http://127.0.0.1:{refused_port()}/v1" if fault == "refused" else endpoint.base_url
    env = environment(f"{base}?key={QUERY_KEY}", KEY)
    done = run_main(tmp_path, "hello\n", "--model", f"openai:{fault}", env=env)
    (error,) = done.stderr.splitlines()
    assert error.startswith(f"error: openai:{fault}: "), error
    assert "[hidden]" in error or fault == "refused", error  # the gateway's text, blanked
    for secret in (KEY, QUERY_KEY, KEY[:20], QUERY_KEY[:20]):
        assert secret not in done.stdout + done.stderr
    assert secrets_written(done, tmp_path) == []
