"""A seeded fuzz of damaged branched sessions: no traceback in steps 03 to 05.

One session, written by step 05's own main.py: two branches, a model switch, a tool call on
each branch. Each seed damages a copy of it the ways files get damaged (a byte changed, a line
lost, doubled or cut short, two lines swapped, a key misspelt, the last line's end lost), and
every step that can read it must then do with it what a user would: resume it, answer a turn,
show it (`/tree`, the graph, the picture) and move to every id in it (`/branch`, in step 05;
an unknown command before). Nothing may raise but what the program turns into one `error:`
line: a file refused whole, a history steps 03 and 04 cannot answer (a call cut at the very
end, which only step 05 repairs). Seeds, not chance: a failure names its seed, and a rerun
fails the same way. A few seeds also go through the real main.py, as a user would run it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import LAB_ROOT
from conftest import STEPS as ALL_STEPS
from preloaded_python import PreloadedPython

STEPS = [step.name for step in ALL_STEPS if step.name >= "step03"]  # the tolerant readers
SEEDS = 100
TALK = b"hello\nwhat is 12*8\n/model scripted-v2\nwhat is 2+3\n/branch e2\nwhat is 7*6\n"

DAMAGE = r'''
import random

KEYS = [b'"parentId"', b'"id"', b'"type"', b'"fromId"', b'"model"', b'"message"', b'"role"',
        b'"toolCallId"', b'"content"', b'"stopReason"']


def damaged(data, rng):
    """`data` with one to three damages, the header kept (a damaged header refuses the file
    whole, which the damaged-file tests check one by one)."""
    header, *body = data.split(b"\n")
    body = body[:-1]  # the empty piece after the last \n
    for _ in range(rng.randint(1, 3)):
        if not body:
            break
        kind = rng.choice(["byte", "lose", "double", "key", "cut", "swap"])
        i = rng.randrange(len(body))
        line = body[i]
        if kind == "byte" and line:
            j = rng.randrange(len(line))
            new = rng.randrange(256)
            body[i] = line[:j] + bytes([32 if new == 10 else new]) + line[j + 1:]
        elif kind == "lose":
            del body[i]
        elif kind == "double":
            body.insert(i, body[rng.randrange(len(body))])
        elif kind == "key":
            present = [key for key in KEYS if key in line]
            if present:
                key = rng.choice(present)
                j = rng.randrange(1, len(key) - 1)
                body[i] = line.replace(key, key[:j] + b"*" + key[j + 1:], 1)
        elif kind == "cut" and line:
            body[i] = line[: rng.randrange(len(line))]
        elif kind == "swap":
            j = rng.randrange(len(body))
            body[i], body[j] = body[j], body[i]
    ending = b"" if rng.random() < 0.2 else b"\n"  # the last line's end lost, as a crash does
    return header + b"\n" + b"\n".join(body) + (ending if body else b"")
'''

DRIVER = (
    DAMAGE
    + r"""
import json, sys, tempfile, traceback
from pathlib import Path

step, base, seeds = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, step)
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import model as models
from commands import Chat, run_command
from entry_graph import entry_graph, network_text
sys.path.insert(1, str(Path(step).parent.parent / "notebooks"))  # the notebooks draw it
from entry_pictures import draw
from loop import run_turn
from messages import user_text
from session import Session, SessionError, read_session
from tools import default_tools

try:  # the production step keeps its models in a registry of their own
    from model_registry import MODELS
except ModuleNotFoundError:  # the earlier steps, in model.py
    MODELS = models.MODELS

problems, outcomes = [], {"answered": 0, "refused history": 0, "file refused": 0}
for seed in range(seeds):
    data = damaged(base.read_bytes(), random.Random(seed))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        path.write_bytes(data)
        try:
            try:
                chat = Chat.resume(Session.open(path)).chat
            except SessionError:  # main.py: one error line
                outcomes["file refused"] += 1
                continue
            model = MODELS[chat.model] if hasattr(chat, "model") else models.ScriptedModel()
            try:
                question = user_text("what was the result")
                for _ in run_turn(model, default_tools(), chat.messages, question):
                    pass
                chat.save_new()
                outcomes["answered"] += 1
            except models.HistoryRefused:  # main.py: one error line
                outcomes["refused history"] += 1
            entries = chat.session.entries  # the production step's index knows damaged ids too
            for entry_id in list(entries.ids() if hasattr(entries, "ids") else entries):
                run_command(chat, f"/branch {entry_id}")
                run_command(chat, "/tree")
            read_session(path)
            graph = entry_graph(path)
            network_text(graph)
            if seed % 15 == 0:  # drawing is slow: a sample of the seeds
                figure, axes = plt.subplots()
                draw(graph, axes)
                plt.close(figure)
        except Exception:
            problems.append(f"seed {seed}:\n{traceback.format_exc()}")
print(json.dumps({"problems": problems[:3], "failed": len(problems), "outcomes": outcomes}))
"""
)

WRITE_DAMAGED = (
    DAMAGE
    + r"""
import sys
from pathlib import Path
base, seed, target = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
target.write_bytes(damaged(base.read_bytes(), random.Random(seed)))
"""
)


@pytest.fixture(scope="module")
def branched_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz")
    done = subprocess.run(
        [sys.executable, str(LAB_ROOT / "labs" / "step05_branching" / "main.py")],
        cwd=folder, input=TALK, capture_output=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [path] = (folder / ".sessions").glob("*.jsonl")
    kinds = {entry.split(b'"')[3] for entry in path.read_bytes().splitlines()[1:]}
    assert kinds == {b"message", b"model_change", b"branch"}, kinds
    return path


@pytest.mark.parametrize("step", STEPS)
def test_no_damage_raises_in_any_step_that_reads_the_file(
    step: str, branched_session: Path, preloaded_python: PreloadedPython
) -> None:
    done = preloaded_python.run(
        DRIVER, str(LAB_ROOT / "labs" / step), str(branched_session), str(SEEDS), timeout=300
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    report = json.loads(done.stdout)
    assert report["failed"] == 0, "\n".join(report["problems"])
    outcomes = report["outcomes"]
    assert outcomes["answered"] > SEEDS // 2, outcomes  # the fuzz reaches the turn, mostly


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("step", STEPS)
def test_main_py_resumes_a_damaged_file_without_a_traceback(
    step: str, seed: int, branched_session: Path, tmp_path: Path
) -> None:
    (tmp_path / ".sessions").mkdir()
    target = tmp_path / ".sessions" / "s.jsonl"
    subprocess.run(
        [sys.executable, "-c", WRITE_DAMAGED, str(branched_session), str(seed), str(target)],
        check=True, timeout=60,
    )  # fmt: skip
    done = subprocess.run(
        [sys.executable, str(LAB_ROOT / "labs" / step / "main.py"), "--continue"],
        cwd=tmp_path, input=b"what was the result\n/tree\n/branch e2\n", capture_output=True,
        timeout=60,
    )  # fmt: skip
    err = done.stderr.decode()
    assert "Traceback" not in err, err
    assert done.returncode in (0, 1), err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == (done.returncode == 1), err  # a failed run says why, in one line
    assert all(line.startswith(("warning:", "error:")) for line in err.splitlines()), err
