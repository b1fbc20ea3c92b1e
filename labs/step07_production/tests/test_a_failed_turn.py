"""A fault ends a turn, not the run: the endpoint's faults, too many rounds, Ctrl-C while a
reply streams; and what a reader meets in the first minutes on a real model: an explicit
`--model` over the recorded one, one line naming the model, lines of bounded length wherever
a model's text ends up, a missing SDK, the fake endpoint's own command line.

Each through main.py, against the fake endpoint of fake_endpoint.py on 127.0.0.1.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import orjson
import pytest
from fake_endpoint import Server
from harness import STEP_DIR, read_until, run, running, type_lines
from test_openai_model import (
    endpoint,
    environment,
    run_main,
    saved,
    saved_messages,
    started,
)

__all__ = ["endpoint"]  # the fixture, shared with test_openai_model.py


def texts(tmp_path: Path) -> list[str]:
    return [
        block["text"]
        for message in saved_messages(tmp_path)
        for block in message["content"]
        if block["type"] == "text"
    ]


# --- A failed turn: one line, nothing of the reply saved, the next line a new turn ----------


def test_a_429_a_500_and_a_cut_stream_each_end_a_turn_and_the_run_goes_on(
    tmp_path: Path, endpoint: Server
) -> None:
    """Any endpoint fault used to end the whole run (exit 1), the rest of the input unread."""
    typed = "fault-429\nfault-500\nfault-cut-arguments\nhello\n"
    done = run_main(tmp_path, typed, "--model", "openai:good", env=environment(endpoint.base_url))
    assert done.returncode == 0, done.stderr
    errors = done.stderr.splitlines()
    assert [line.split(": ")[2][:15] for line in errors] == [
        "HTTP 429",
        "HTTP 500",
        "the stream from",
    ]
    assert errors[2].endswith(" was cut (Connection error.); nothing was kept")
    assert all(line.startswith("error: openai:good: ") for line in errors)
    lines = done.stdout.splitlines()
    assert lines[lines.index("you> hello") + 1] == "assistant> Hello from good."
    assert "you> fault-cut-arguments" in lines  # the prompt came back after each fault
    # Each typed line is saved; of the replies that failed, nothing ("Let me use calc." was
    # shown before the cut, and is not in the file).
    assert texts(tmp_path) == [
        "fault-429",
        "fault-500",
        "fault-cut-arguments",
        "hello",
        "Hello from good.",
    ]
    assert len(endpoint.requests) == 2 + 2 + 1 + 1  # the SDK tried a 429 and a 500 twice

    again = run_main(tmp_path, "what was typed\n", "--continue", env=environment(endpoint.base_url))
    assert again.returncode == 0, again.stderr
    sent = endpoint.requests[-1]["body"]["messages"]
    assert [m["role"] for m in sent] == [
        "system",
        "user",
        "user",
        "user",
        "user",
        "assistant",
        "user",
    ]


def test_too_many_rounds_ends_the_turn_and_keeps_every_round_it_finished(
    tmp_path: Path, endpoint: Server
) -> None:
    done = run_main(
        tmp_path,
        "fault-endless-calls\nhello\n",
        "--model",
        "openai:good",
        env=environment(endpoint.base_url),
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "error: no final answer after 10 model calls\n"
    assert "assistant> Hello from good." in done.stdout.splitlines()
    roles = [m["role"] for m in saved_messages(tmp_path)]
    assert roles == ["user"] + ["assistant", "toolResult"] * 10 + ["user", "assistant"]


def test_ctrl_c_while_a_reply_streams_abandons_the_turn_and_the_run_goes_on(
    tmp_path: Path, endpoint: Server
) -> None:
    """The reply stops where it is, nothing of it is saved, and the prompt comes back."""
    with started(tmp_path, endpoint) as process:
        type_lines(process, "slow-pings")
        read_until(process, b"Let me think.")  # the reply has begun, and will never end
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(b"hello\n", timeout=30)
    assert process.returncode == 0, err
    assert err.decode() == (
        "warning: interrupted: the turn was abandoned (Ctrl-C at the prompt ends the run)\n"
    )
    assert b"assistant> Hello from good." in out
    assert texts(tmp_path) == ["slow-pings", "hello", "Hello from good."]


def test_a_second_ctrl_c_while_a_turn_is_wound_up_ends_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first Ctrl-C in a turn abandons it; from then on Ctrl-C ends the run again, so a
    second one while the turn is being wound up (its save, its repair) is not lost.

    In this process, not through main.py: two SIGINTs sent to a child before it runs its
    handler are one signal, so a test through a process could not tell them apart."""
    import stop_signals
    from stop_signals import Stopped, TurnInterrupted, ctrl_c_abandons_the_turn

    # As a run started at a terminal: under `make check &` this process began with Ctrl-C
    # ignored, and the program would (rightly) keep ignoring it.
    monkeypatch.setattr(stop_signals, "HANDLED", stop_signals.STOP_SIGNALS)
    stop_signals_end_the_run = stop_signals.stop_signals_end_the_run
    before = {signum: signal.getsignal(signum) for signum in stop_signals.STOP_SIGNALS}
    stop_signals_end_the_run()
    try:
        with pytest.raises(Stopped) as stopped, ctrl_c_abandons_the_turn():
            try:
                signal.raise_signal(signal.SIGINT)  # the first: TurnInterrupted
            finally:  # the turn's own clean-up (the stream closed, the deadline's alarm undone)
                signal.raise_signal(signal.SIGINT)
        assert stopped.value.signum == signal.SIGINT
        assert isinstance(stopped.value.__context__, TurnInterrupted)
        with pytest.raises(Stopped):  # and after the turn, at the prompt, as always
            stop_signals_end_the_run()
            signal.raise_signal(signal.SIGINT)
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


# --- Lines of bounded length wherever a model's text ends up --------------------------------


def test_an_unknown_tool_named_by_3_mi_characters_gets_a_short_result(
    tmp_path: Path, endpoint: Server
) -> None:
    """Its "unknown tool: NAME" result, the name escaped as JSON, made a line of 36 MiB, over
    the 32 MiB a session line may be: the run ended."""
    done = run_main(
        tmp_path, "fault-huge-name\n", "--model", "openai:good", env=environment(endpoint.base_url)
    )
    assert done.returncode == 0, done.stderr[:300]
    assert done.stderr == ""
    [path] = (tmp_path / "s").glob("*.jsonl")
    assert max(len(line) for line in path.read_bytes().splitlines()) < 32 * 1024 * 1024
    user, call, result, answer = saved_messages(tmp_path)
    assert len(tool_name := result["toolName"]) == 3 * 1024 * 1024  # the call's own name
    assert result["isError"] and len(result["content"][0]["text"]) <= 100
    assert result["content"][0]["text"].startswith("unknown tool: " + tool_name[:10])


@pytest.mark.parametrize("prefix", ["", "openai:"], ids=["missing", "openai-too-long"])
def test_a_model_name_of_20_mb_in_a_file_is_one_short_warning(
    tmp_path: Path, endpoint: Server, prefix: str
) -> None:
    """A `model_change` naming a model this program lacks: a 20 MB `warning:` line; named
    openai:, a 20 MB error line (the model was made, and wanted its key)."""
    folder = tmp_path / "s"
    folder.mkdir()
    name = prefix + "m" * 20_000_000
    header = {"type": "header", "version": 1, "id": "x", "createdAt": "", "cwd": "/"}
    hello = {"role": "user", "content": [{"type": "text", "text": "hello"}]}
    entries = [
        header,
        {"type": "message", "id": "e1", "parentId": None, "message": hello},
        {"type": "model_change", "id": "e2", "parentId": "e1", "model": name},
    ]
    (folder / "x.jsonl").write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in entries))
    done = run_main(tmp_path, "", "--continue", env=environment(endpoint.base_url, key=None))
    assert done.returncode == 0, done.stderr[:300]
    (warning,) = done.stderr.splitlines()
    assert warning.startswith("warning: the session's model ") and len(warning) < 200, warning
    assert warning.endswith("… is not here; using scripted-v1")
    assert max(len(line) for line in done.stdout.splitlines()) < 200


# --- --model: one line naming the model; an explicit one wins over the file's ---------------


def test_a_new_session_started_with_a_model_names_it_once(tmp_path: Path) -> None:
    """It used to say `(model scripted-v1)`, then `switched to scripted-v2`."""
    done = run_main(tmp_path, "hello\n", "--model", "scripted-v2", env=environment(None))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    [path] = (tmp_path / "s").glob("*.jsonl")
    assert lines[0] == f"session file: {tmp_path / 's' / path.name} (model scripted-v2)"
    assert "switched" not in done.stdout and "scripted-v1" not in done.stdout
    assert lines[-1].startswith("2 new messages and 1 other entry saved to ")
    assert [entry["type"] for entry in saved(tmp_path)] == ["model_change", "message", "message"]


def test_an_explicit_model_overrides_the_recorded_one_and_says_so(
    tmp_path: Path, endpoint: Server
) -> None:
    """A session recorded with `openai:good`, resumed with no key: `--model scripted-v1` used
    to be refused ("needs OPENAI_API_KEY"), so the user could not take the session back."""
    keyed = run_main(
        tmp_path, "hello\n", "--model", "openai:good", env=environment(endpoint.base_url)
    )
    assert keyed.returncode == 0, keyed.stderr
    keyless = environment(endpoint.base_url, key=None)
    done = run_main(tmp_path, "what is 2*3\n", "--continue", "--model", "scripted-v1", env=keyless)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    first = done.stdout.splitlines()[0]
    over = "model scripted-v1, by --model, over the session's openai:good"
    assert first.endswith(f"(resumed: 2 messages restored, {over})")
    assert "[tool result] calc -> 6" in done.stdout
    switches = [entry["model"] for entry in saved(tmp_path) if entry["type"] == "model_change"]
    assert switches == ["openai:good", "scripted-v1"]

    again = run_main(tmp_path, "", "--continue", env=keyless)  # the override was recorded
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0].endswith("model scripted-v1)")


def test_an_explicit_model_over_one_this_program_lacks_replaces_the_warning(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    header = {"type": "header", "version": 1, "id": "x", "createdAt": "", "cwd": "/"}
    hello = {"role": "user", "content": [{"type": "text", "text": "hello"}]}
    entries = [
        header,
        {"type": "message", "id": "e1", "parentId": None, "message": hello},
        {"type": "model_change", "id": "e2", "parentId": "e1", "model": "gpt-9"},
    ]
    (folder / "x.jsonl").write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in entries))
    done = run_main(tmp_path, "", "--continue", "--model", "scripted-v2", env=environment(None))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # not "the session's model gpt-9 is not here; using scripted-v1"
    assert done.stdout.splitlines()[0].endswith(
        "model scripted-v2, by --model, over the session's gpt-9)"
    )


# --- The SDK: missing, it is one line; the fake's command line works from anywhere -----------


def test_a_missing_sdk_is_one_error_line_naming_what_to_install(tmp_path: Path) -> None:
    """A Python without the SDK (here: one whose `import openai` fails as a missing one
    does) used to end in a ModuleNotFoundError traceback."""
    stub = tmp_path / "no-sdk" / "openai"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text(
        'raise ModuleNotFoundError("No module named \'openai\'", name="openai")\n', encoding="utf-8"
    )
    env = environment("http://127.0.0.1:1/v1") | {"PYTHONPATH": str(stub.parent)}
    # A Python of its own: this one has imported the SDK already.
    done = run_main(tmp_path, "hello\n", "--model", "openai:good", env=env, process=True)
    assert done.returncode == 1
    (error,) = done.stderr.splitlines()
    assert "Traceback" not in done.stderr
    # The child's own sys.executable: the same path, as its interpreter normalises it.
    python = os.path.normpath(sys.executable)
    install = f"{python} -m pip install -r {STEP_DIR / 'requirements.txt'}"
    assert (
        error == f"error: openai:good needs the openai SDK, and this Python lacks openai: {install}"
    )
    assert not (tmp_path / "s").exists()


def test_the_fake_endpoint_prints_a_command_that_works_from_any_folder(tmp_path: Path) -> None:
    """It printed `... python main.py ...`: from another folder there is no main.py, and the
    `python` a shell finds may be one without the SDK."""
    fake = [sys.executable, str(STEP_DIR / "tests" / "fake_endpoint.py")]
    with running(tmp_path, command=fake, env=environment(None), stdin=None, stderr=None) as server:
        printed = read_until(server, b"\n", timeout=10)  # its first line: the command
        command = printed.decode().splitlines()[0]
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        env = environment(None) | {"PATH": "/usr/bin:/bin"}  # no `python` of the lab's here
        shell = ["sh", "-c", f"{command} --session-dir s"]
        done = run(elsewhere, "hello\n", command=shell, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "assistant> Hello from good." in done.stdout.splitlines()
    assert len(list((elsewhere / "s").glob("*.jsonl"))) == 1
