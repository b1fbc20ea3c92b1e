"""Files cross step boundaries: an older step's main.py resumes a newer step's session (it
skips the kinds it does not know, follows their parentId, and answers from the history), and
a newer step resumes an older one's. Each program runs as its own process, as a user's would:
never imported, so no step's modules meet another's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
from conftest import LAB_ROOT, STEPS

STEP03 = LAB_ROOT / "labs" / "step03_continue"
STEP04 = LAB_ROOT / "labs" / "step04_model_change"


def run(step: Path, cwd: Path, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, str(step / "main.py"), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def only_session(cwd: Path) -> Path:
    [path] = (cwd / ".sessions").glob("*.jsonl")
    return path


def test_step03_resumes_a_file_step04_wrote(tmp_path: Path) -> None:
    written = run(STEP04, tmp_path, "what is 12*8\n/model scripted-v2\nwhat is 2+3\n")
    assert written.returncode == 0, written.stderr
    path = only_session(tmp_path)
    before = path.read_bytes()
    assert b'"type":"model_change"' in before

    resumed = run(STEP03, tmp_path, "what was the result\n", "--continue")
    assert resumed.returncode == 0 and resumed.stderr == ""  # an unknown kind is no damage
    out = resumed.stdout.splitlines()
    assert out[0].endswith("(resumed: 8 messages restored)")
    assert "assistant> The last result was 5 (2+3)." in out  # step 03's one model, same facts
    assert path.read_bytes().startswith(before)

    again = run(STEP04, tmp_path, "what was the result\n", "--continue")
    assert again.returncode == 0 and again.stderr == ""
    # Step 03's entries hang under step 04's model_change: the switch is still on the path.
    assert again.stdout.splitlines()[0].endswith(
        "(resumed: 10 messages restored, model scripted-v2)"
    )
    assert "assistant> Earlier result: 5 (from 2+3)." in again.stdout


def test_step04_resumes_a_file_step03_wrote(tmp_path: Path) -> None:
    assert run(STEP03, tmp_path, "what is 12*8\n").returncode == 0
    resumed = run(STEP04, tmp_path, "what was the result\n", "--continue")
    assert resumed.returncode == 0 and resumed.stderr == ""
    assert resumed.stdout.splitlines()[0].endswith(
        "(resumed: 4 messages restored, model scripted-v1)"
    )
    assert "assistant> The last result was 96 (12*8)." in resumed.stdout


STEP05 = LAB_ROOT / "labs" / "step05_branching"
PRODUCTION = STEPS[-1]


def test_steps_03_and_04_follow_step05s_leaf_moves(tmp_path: Path) -> None:
    """A branch entry hangs under the entry moved to, and it is the last line: an older reader
    that walks parentId from the last entry, passing through kinds it does not know, lands on
    the active branch. The abandoned answer (96) must not be the one recalled."""
    script = "hello\nwhat is 12*8\n/branch e2\n/model scripted-v2\nwhat is 2+3\n/branch e11\n"
    written = run(STEP05, tmp_path, script)
    assert written.returncode == 0, written.stderr
    assert "moved to e11: 5 messages on the path, model scripted-v2" in written.stdout
    path = only_session(tmp_path)

    for step, recalled in [
        (STEP03, "assistant> The last result was 5 (2+3)."),
        (STEP04, "assistant> Earlier result: 5 (from 2+3)."),
        (STEP05, "assistant> Earlier result: 5 (from 2+3)."),
    ]:
        before = path.read_bytes()
        resumed = run(step, tmp_path, "what was the result\n", "--continue")
        assert resumed.returncode == 0 and resumed.stderr == "", (step.name, resumed.stderr)
        assert recalled in resumed.stdout.splitlines(), (step.name, resumed.stdout)
        assert path.read_bytes().startswith(before)


def test_a_run_of_a_step_that_takes_no_lock_costs_the_production_run_no_line(
    tmp_path: Path,
) -> None:
    """The production step locks the session it writes; the idea steps do not, and step 04
    appends a turn while a production run is open on the file. The production run indexes what
    was appended before its next entry, so no id repeats, and the next resume loses neither's
    message (step 04's turn is a branch of its own)."""
    assert run(PRODUCTION, tmp_path, "hello\nwhat is 12*8\n").returncode == 0
    path = only_session(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, str(PRODUCTION / "main.py"), "--continue"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert holder.stdout is not None
    seen = b""
    while b"you> " not in seen:  # resumed: it has read the file
        chunk = holder.stdout.read1(4096)
        assert chunk, holder.stderr.read() if holder.stderr else b""
        seen += chunk
    older = run(STEP04, tmp_path, "hello\n", "--continue")  # takes no lock: gets through
    assert older.returncode == 0, older.stderr
    _, err = holder.communicate(b"what was the result\n", timeout=60)
    assert holder.returncode == 0, err

    records = [orjson.loads(line) for line in path.read_bytes().splitlines()[1:]]
    ids = [record["id"] for record in records]
    assert len(ids) == len(set(ids)), ids
    texts = [r["message"]["content"][0]["text"] for r in records if r["type"] == "message"]
    assert texts.count("hello") == 2 and texts.count("what was the result") == 1
    resumed = run(PRODUCTION, tmp_path, "", "--continue")
    assert "(resumed: 8 messages restored" in resumed.stdout  # 6, then its own turn


STEP06 = LAB_ROOT / "labs" / "step06_compaction"


def test_step05_reads_a_compacted_file_as_the_whole_path(tmp_path: Path) -> None:
    """A compaction is a kind step 05 does not know: it passes through it and gives the model
    the whole path, the summarised messages included. Nothing is lost to an older reader; it
    only reads more. And step 06 still reads what step 05 appended after the compaction."""
    script = "what is 12*8\nwhat is 2+3\n/compact\nwhat is 7*6\n"
    written = run(STEP06, tmp_path, script)
    assert written.returncode == 0, written.stderr
    assert "compacted: a summary stands in for 4 messages; 4 kept" in written.stdout
    path = only_session(tmp_path)

    older = run(STEP05, tmp_path, "/branch e4\nwhat was the result\n", "--continue")
    assert older.returncode == 0 and older.stderr == ""
    assert older.stdout.splitlines()[0].endswith(
        "(resumed: 12 messages restored, model scripted-v1)"
    )
    assert "assistant> The last result was 96 (12*8)." in older.stdout  # before the compaction

    newer = run(STEP06, tmp_path, "/branch e13\nwhat was the result\n", "--continue")
    assert newer.returncode == 0 and newer.stderr == ""
    assert "moved to e13: 9 messages on the path, model scripted-v1" in newer.stdout
    assert "assistant> The last result was 42 (7*6)." in newer.stdout  # from the kept turn
    kinds = [orjson.loads(line)["type"] for line in path.read_bytes().splitlines()[1:]]
    assert kinds.count("compaction") == 1
