"""session_bench.py refuses an argument it cannot use in one line, never with a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

BENCH = Path(__file__).resolve().parent.parent / "tools" / "session_bench.py"


@pytest.mark.parametrize(
    "arguments",
    [
        ["--entries", "0"],
        ["--entries", "-3"],
        ["--entries", "1"],
        ["--entries", "ten"],
        ["--entries", "99999999"],  # 120 GB of session: refused before a byte is written
        ["--fsync-cost", "--appends", "0"],
        ["--fsync-cost", "--dir", "/nonexistent/folder"],
        ["--fsync-cost", "--dir", str(BENCH)],
        ["--fsync-cost", "--dir", "/proc"],
        ["--short", "--sqlite"],  # the short case measures the file's resume alone
        ["--short", "--back", "0"],
    ],
)
def test_odd_arguments_are_one_error_line(arguments: list[str], tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), *arguments], cwd=tmp_path, capture_output=True, timeout=60
    )
    assert done.returncode != 0
    assert b"Traceback" not in done.stderr
    assert done.stderr.decode().splitlines()[-1].startswith("session_bench.py: error:")
    assert done.stdout == b""


def test_a_folder_this_user_may_not_write_in(
    tmp_path: Path, without_root_override: list[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    done = subprocess.run(
        [*without_root_override, sys.executable, str(BENCH), "--fsync-cost", "--dir", str(locked)],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.decode().startswith("session_bench.py: error: cannot time appends in ")


def test_bench_prints_the_cost_of_fsync(tmp_path: Path) -> None:
    """Figures only: a timing is never asserted, it depends on the disk."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--fsync-cost", "--appends", "5", "--json"],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    figures = orjson.loads(done.stdout)
    assert set(figures) == {"appends", "plain_seconds", "fsync_seconds", "ratio"}
    assert figures["plain_seconds"] > 0 and figures["fsync_seconds"] > 0
    assert list(tmp_path.iterdir()) == []  # its sessions were temporary


TOOLS = BENCH.parent


def file_size_limit() -> None:  # in the child: no file it writes may pass 100 kB
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))


def test_a_full_temporary_folder_is_one_error_line(tmp_path: Path) -> None:
    """A file size limit fails the generator's writes as a full disk would."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--entries", "2000"], cwd=tmp_path, capture_output=True,
        timeout=120, preexec_fn=file_size_limit,
    )  # fmt: skip
    assert done.returncode == 1 and b"Traceback" not in done.stderr
    [line] = done.stderr.decode().splitlines()
    assert line.startswith("session_bench.py: error: cannot write ") and "File too large" in line


def test_make_bench_says_why_a_measurement_failed(tmp_path: Path) -> None:
    """Before, `make bench` showed a CalledProcessError, and the reason stayed in the child."""
    done = subprocess.run(
        [sys.executable, str(TOOLS / "bench.py")], cwd=tmp_path, capture_output=True,
        timeout=120, preexec_fn=file_size_limit,
    )  # fmt: skip
    assert done.returncode == 1 and b"Traceback" not in done.stderr
    [line] = done.stderr.decode().splitlines()
    assert line.startswith("error: the production step's benchmark: ") and "File too large" in line


def test_bench_help_is_help_not_a_run(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(TOOLS / "bench.py"), "--help"], cwd=tmp_path, capture_output=True,
        timeout=20,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith(b"usage: bench.py")
    assert b"generating" not in done.stdout


def test_bench_prints_the_cost_of_fsync_in_both_stores(tmp_path: Path) -> None:
    """--sqlite: the same appends in the SQLite store too, in the same folder. Figures only."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--fsync-cost", "--sqlite", "--appends", "5", "--json"],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    figures = orjson.loads(done.stdout)
    assert set(figures) == {"appends", "plain_seconds", "fsync_seconds", "ratio", "sqlite"}
    assert set(figures["sqlite"]) == {
        "plain_seconds", "fsync_seconds", "ratio", "plain_over_jsonl", "fsync_over_jsonl"
    }  # fmt: skip
    assert list(tmp_path.iterdir()) == []


def test_the_sqlite_session_resumes_to_the_same_conversation(tmp_path: Path) -> None:
    """--sqlite measures a database holding the file's entries: the same messages come back."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--entries", "300", "--sqlite", "--json"],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    figures = orjson.loads(done.stdout)
    sqlite = figures["sqlite"]
    assert sqlite["resume"]["messages"] == figures["messages_on_path"]
    assert sqlite["compacted"]["messages"] == figures["compacted"]["production"]["messages"]
    assert sqlite["file_mib"] > 0 and sqlite["compacted_over_jsonl_resume"] > 0
    assert list(tmp_path.iterdir()) == []


def test_make_bench_prints_both_stores_beside_the_targets(tmp_path: Path) -> None:
    """The shape of the side-by-side table, not its figures: met or not is the run's."""
    done = subprocess.run(
        [sys.executable, str(TOOLS / "bench.py"), "--entries", "300"], cwd=tmp_path,
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    table = lines[lines.index("the two stores side by side: the same entries, byte for byte") :]
    for start in ("append, without fsync ", "append, with fsync "):
        [line] = [line for line in table if line.strip().startswith(start)]
        assert line.endswith(("target at most 2x: met", "target at most 2x: not met")), line
    [line] = [line for line in table if "compacted resume / JSONL's full resume" in line]
    assert line.endswith(("(target at most 0.02x: met)", "(target at most 0.02x: not met)"))
    assert any(line.strip().startswith("resume, 300 entries") for line in table)
    assert any(line.strip().startswith("size on disk") for line in table)
    assert list(tmp_path.iterdir()) == []


def test_the_short_entries_are_resumed_against_their_floor(tmp_path: Path) -> None:
    """--short: one-line messages, the leaf moved far back now and then; the resume alone."""
    done = subprocess.run(
        [sys.executable, str(BENCH), "--short", "--entries", "3000", "--json"],
        cwd=tmp_path, capture_output=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    figures = orjson.loads(done.stdout)
    assert figures["entries"] == 3000 and "compacted" not in figures
    # Two moves back, 950 entries each: 3000 - 1900 entries on the path, moves among them.
    assert 1000 < figures["messages_on_path"] < 1200
    assert figures["resume_peak_over_file"] > 0 and figures["resume_over_floor"] > 0
    assert list(tmp_path.iterdir()) == []


def test_make_bench_prints_both_resumes_beside_the_targets(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(TOOLS / "bench.py"), "--entries", "300", "--short-entries", "2000"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    table = lines[
        lines.index(next(line for line in lines if line.startswith("resume, the file"))) :
    ]
    assert any(line.strip().startswith("300 entries: ") for line in table)
    assert any(line.strip().startswith("2,000 short entries: ") for line in table)
    [targets] = [line for line in table if line.strip().startswith("resume / floor, target")]
    assert "at most 1x: " in targets and "at most 2x: " in targets


def test_make_bench_refuses_a_session_too_small_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(TOOLS / "bench.py"), "--entries", "1"], cwd=tmp_path,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("error: the production step's benchmark: ") and "--entries" in line
