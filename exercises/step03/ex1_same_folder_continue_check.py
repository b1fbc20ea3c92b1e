"""Check 03.1: folders of sessions, named and generated, each asked from one folder, must give
the solution's file. A cwd is spelled every way one folder can be (a trailing slash, "..", a
symlink), or names another (a subfolder, a name that starts the same, one deleted since);
unusable files lie among them; modification times tie, or not."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from types import ModuleType

from hypothesis import strategies as st

from exercises import harness as h
from messages import user_text

RULE = "the newest usable session of that very folder"
CWDS = ["a", "a/", "x/../a", "link-to-a", "b", "a/sub", "a-old", "gone"]  # a symlink
UNUSABLE = {"v2": b'{"type":"header","version":2,"id":"v","createdAt":"","cwd":"/"}\n',
            "garbage": b"not a session\n", "empty": b""}  # fmt: skip
FILES = st.lists(st.tuples(st.sampled_from([*CWDS, *UNUSABLE, "dir", "dangling"]),
                           st.integers(0, 2)), max_size=4)  # fmt: skip
ASKED = st.sampled_from(["a", "a/", "link-to-a", "b", "a/sub", "c"])
NAMED = [([("b", 0), ("a", 1)], "a"), ([("a-old", 0), ("a", 1)], "a"), ([("a/sub", 0)], "a"),
         ([("a", 0), ("a", 2)], "a"), ([("a", 0), ("a", 0)], "a"), ([("gone", 0), ("a", 1)], "a"),
         ([("v2", 0), ("dir", 0), ("dangling", 0), ("a", 1)], "a/"),
         ([("link-to-a", 1), ("a", 2)], "a")]  # fmt: skip


def check(module: ModuleType) -> str:
    pair = h.subjects(module)
    tried = h.for_all(st.tuples(FILES, ASKED), lambda drawn: alike(pair, *drawn), 150, NAMED)
    return (
        f"in {tried} folders of sessions it found the solution's: the newest usable session "
        "started in the folder asked, however its cwd was spelled"
    )


def alike(pair: tuple[h.Subject, h.Subject], files: list[tuple[str, int]], asked: str) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary).resolve()
        for folder in ("a/sub", "a-old", "b", "c", "x"):
            (root / folder).mkdir(parents=True)
        (root / "link-to-a").symlink_to(root / "a", target_is_directory=True)
        sessions = root / "sessions"
        sessions.mkdir()
        for number, (what, age) in enumerate(files, start=1):
            path = sessions / f"s{number}.jsonl"
            if what in CWDS:
                session = h.session_in(sessions, f"s{number}", cwd=f"{root}/{what}")
                session.append_message(user_text("hello"))
            elif what in UNUSABLE:
                path.write_bytes(UNUSABLE[what])
            else:
                path.mkdir() if what == "dir" else path.symlink_to(root / "nowhere")
            os.utime(path, (1e9 - age, 1e9 - age), follow_symlinks=False)
        got, want = (s.call(s.module.find_latest_session_in, sessions, f"{root}/{asked}")
                     for s in pair)  # fmt: skip
        case = f"[{', '.join(f'{what} {age}s ago' for what, age in files)}] from {asked}"
        if got.error is not None:
            raise AssertionError(f"{RULE}; {case}: {got.said()}") from got.error
        if not isinstance(got.value, str | os.PathLike | None) or got.value != want.value and (
            got.value is None or Path(got.value) != want.value
        ):  # fmt: skip
            said = f"{shown(got.value, files)}, expected {shown(want.value, files)}"
            h.fail(RULE, case, said, got.line)


def shown(found: object, files: list[tuple[str, int]]) -> str:
    """The file found, by what it is: `s2 (a)`."""
    if not isinstance(found, str | os.PathLike):
        return h.short(found)
    name = Path(found).stem
    number = int(name[1:]) if name[1:].isdigit() else 0
    return f"{name} ({files[number - 1][0]})" if number else name
