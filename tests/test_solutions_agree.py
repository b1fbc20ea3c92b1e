"""The shipped solutions of step 05 agree with each other: a fork (05.1) of a session holding
labels (05.2) and branch summaries (05.3) is read by those exercises' own code as the parent
is. A fork renumbers what it copies, so a label copied as it was would send `/branch NAME` in
the fork to another entry, or to "no entry e7".

The solutions import the step's modules by bare name, so they run in a child process with the
step folder first on sys.path, as `python -m exercises check` runs them. Each puts its commands
in the step's one table (two of them a `/branch`), so their command functions are called here
directly.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEP = ROOT / "labs" / "step05_branching"
SOLUTIONS = ROOT / "solutions" / "step05"

CHILD = """
import importlib.util, json, sys
from pathlib import Path
step, solutions, folder = sys.argv[1:]
sys.path.insert(0, step)

def load(name):
    spec = importlib.util.spec_from_file_location(name, Path(solutions) / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

fork, labels, summaries = (load(n) for n in
                           ("ex1_fork_session", "ex2_labels", "ex3_branch_summary"))
from commands import Chat
from loop import run_turn
from messages import text_of, user_text
from model import MODELS
from session import Session
from tools import default_tools

def say(chat, text):
    for _ in run_turn(MODELS[chat.model], default_tools(), chat.messages, user_text(text)):
        pass
    chat.save_new()

session = Session.create(folder, session_id="parent", created_at="2026-01-01", cwd="/")
chat = Chat(session, [], cursor=0)
say(chat, "hello")
hello = session.leaf_id
say(chat, "what is 2**10000")
too_large = session.leaf_id
summaries.branch_command(chat, hello)  # a branch entry and a summary: ids shift
say(chat, "what is 12*8")
labels.label_command(chat, "good")
say(chat, "what was the result")
labels.label_command(chat, f"gone {too_large}")  # on the branch the fork leaves out
copy = fork.fork_session(session.path, folder, session_id="fork", created_at="2026-01-02")

found = {}
for name, path in (("parent", session.path), ("fork", copy)):
    resumed = summaries.open_chat(path)  # before the moves below write to the file
    moved = labels.open_chat(path)
    lines = labels.branch_command(moved, "good").lines
    gone = labels.branch_command(labels.open_chat(path), "gone").lines
    found[name] = {
        "moved": [line.startswith("moved to") for line in lines],
        "at_good": [text_of(m) for m in moved.messages],
        "gone": gone[0].startswith("moved to"),
        "with_notes": [text_of(m) for m in resumed.messages],
    }
print(json.dumps(found))
"""


def test_a_fork_is_read_by_labels_and_summaries_as_its_parent(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(STEP), str(SOLUTIONS), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    parent, fork = found["parent"], found["fork"]
    assert parent["moved"] == [True] and parent["gone"], parent  # the parent has both labels
    assert fork["moved"] == [True] and fork["at_good"] == parent["at_good"], fork  # same place
    assert not fork["gone"], fork  # the fork has no copy of what "gone" names: no move
    assert fork["with_notes"] == parent["with_notes"]  # the summary's note, where it was
    assert any("2**10000" in text for text in fork["with_notes"])
