"""Check 03.1: sessions from two working directories, with controlled modification times."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from types import ModuleType

from messages import user_text
from session import Session


def saved(folder: Path, name: str, cwd: Path, seconds_ago: int) -> Path:
    session = Session.create(
        folder, session_id=name, created_at="2026-01-01T00:00:00Z", cwd=str(cwd)
    )
    session.append(user_text(f"hello from {name}"))
    when = 1_800_000_000 - seconds_ago
    os.utime(session.path, (when, when))
    return session.path


def check(module: ModuleType) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        folder = root / "sessions"
        project_a, project_b, project_c = root / "a", root / "b", root / "c"
        for project in (project_a, project_b, project_c):
            project.mkdir()
        old_a = saved(folder, "old-a", project_a, 300)
        new_a = saved(folder, "new-a", project_a, 200)
        only_b = saved(folder, "only-b", project_b, 100)  # the newest session of all
        future = folder / "future.jsonl"  # newer still, but unusable: passed over
        future.write_bytes(f'{{"type":"header","version":2,"cwd":"{project_a}"}}\n'.encode())
        no_cwd = folder / "no-cwd.jsonl"
        no_cwd.write_bytes(b'{"type":"header","version":1,"id":"x"}\n')
        for path in (future, no_cwd):
            os.utime(path, (1_800_000_000, 1_800_000_000))

        found = module.find_latest_session_in(folder, project_a)
        assert found is not None, "found no session for project a, but it has two"
        assert found != no_cwd, (
            "for project a it resumed no-cwd.jsonl, the newest usable file, whose header has no "
            "cwd at all: keep only sessions whose header's cwd is the cwd you were given"
        )
        assert found != only_b, (
            "for project a it resumed only-b.jsonl, which was started in project b: "
            "compare each header's cwd with the cwd you were given"
        )
        assert found != future, "future.jsonl has version 2: pass over what read_header refuses"
        assert found == new_a, (
            f"for project a expected new-a.jsonl (the newer of a's two), got {Path(found).name}"
        )
        assert old_a.exists()
        assert module.find_latest_session_in(folder, project_b) == only_b, (
            "for project b expected only-b.jsonl"
        )
        assert module.find_latest_session_in(folder, project_a / ".." / "b") == only_b, (
            "a/../b is project b: compare resolved paths, not strings"
        )
        assert module.find_latest_session_in(folder, project_c) is None, (
            "project c has no session: expected None"
        )
        assert module.find_latest_session_in(root / "missing", project_a) is None, (
            "a folder that does not exist has no session: expected None"
        )
    return "each project resumes its own latest session; unusable files are passed over"
