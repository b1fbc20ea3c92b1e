"""Check 03.1: in folders of sessions built for it, each query finds the most recently modified
usable session that was started in that very folder.

A check that builds one tidy folder accepts a solution that handles only that folder, so
every way of being almost right gets a folder of its own, where it picks another file than
the right one:

- other projects, and unusable files (a newer version, no header, an empty file, a folder,
  a dangling link);
- a subfolder, a parent folder and a sibling whose name starts the same: a string prefix
  matches them, a folder comparison does not;
- the same folder written through a symlink (by a harness that records $PWD), with a
  trailing slash and through "..": string, abspath and one-sided comparisons miss them;
- a session whose folder is gone: it matches nothing, and must not crash the search;
- "latest" is the modification time, not the name or createdAt, and a tie goes to the later
  name (list_session_files' order).

Modification times are set, never waited for.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import orjson

from messages import user_text
from session import Session

NOW = 1_800_000_000  # every file's modification time is NOW minus its age in seconds


@dataclass(frozen=True)
class Query:
    cwd: str  # as handed to the student's function
    shown: str  # how a FAIL line names it
    expected: str | None  # the file name it must return
    why: str  # what makes the expected file the right one


def check(module: ModuleType) -> str:
    find = module.find_latest_session_in
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary).resolve()
        queries = 0
        for scenario in (
            projects_and_unusable_files,
            folders_with_similar_names,
            one_folder_many_spellings,
            a_folder_that_is_gone,
            latest_is_last_modified,
            a_tie,
        ):
            sessions = root / scenario.__name__
            stories: dict[str, str] = {}
            for query in scenario(root, sessions, stories):
                queries += 1
                found = call(find, sessions, query, stories)
                if found is None and query.expected is None:
                    continue
                if found is not None and found == sessions / (query.expected or ""):
                    continue
                assert found is None or found.name != query.expected, (
                    f"for {query.shown} it returned {found}: return the path as "
                    f"list_session_files(directory) gives it, {sessions / found.name}",
                    find,
                )
                got = "None" if found is None else f"{found.name}, which {story(found, stories)}"
                raise AssertionError(
                    f"for {query.shown} it returned {got}; expected {query.expected}: {query.why}",
                    find,
                )
        missing = call(find, root / "no-such-folder", Query(str(root), "", None, ""), {})
        assert missing is None, (
            f"a sessions folder that does not exist holds no session, but it returned {missing}",
            find,
        )
    return (
        f"{queries + 1} queries over 6 folders of sessions (and a missing one) each found the "
        "most recently modified usable session started in that very folder: other projects, "
        "5 unusable files, a subfolder, a parent and a look-alike sibling were passed over; the "
        "folder "
        "was recognised through a symlink, a trailing slash and '..'; a session whose folder "
        "is gone did not stop the search; mtime, not the name, decided, and a tie went to the "
        "later name; None for a folder with no session and for a missing sessions folder"
    )


def call(
    find: Callable[[Path, str], object], sessions: Path, query: Query, stories: dict[str, str]
) -> Path | None:
    """The student's answer, as a Path (or None); any exception becomes a verdict."""

    try:
        found = find(sessions, query.cwd)
    except Exception as error:
        context = f" (the folder holds {stories['gone']})" if "gone" in stories else ""
        raise AssertionError(
            f"for {query.shown} find_latest_session_in raised {type(error).__name__}: "
            f"{error}{context}. A file that cannot be a session, or a session that matches "
            "nothing, is passed over: it never ends the search",
            find,
        ) from error
    assert found is None or isinstance(found, str | os.PathLike), (
        f"find_latest_session_in must return a Path or None, not {found!r}",
        find,
    )
    return None if found is None else Path(found)


def story(found: Path, stories: dict[str, str]) -> str:
    """Why the file returned is not the one: what the check built it to show."""
    return stories.get(found.name, "is not the session expected")


# --- The sessions ---------------------------------------------------------------------------


def saved(sessions: Path, name: str, cwd: Path | str, age: int) -> Path:
    """A session started in `cwd`, holding one message, last modified `age` seconds before NOW."""
    session = Session.create(sessions, session_id=name, created_at=created_at(name), cwd=str(cwd))
    session.append_message(user_text(f"hello from {name}"))
    return aged(session.path, age)


def header_line(name: str, cwd: Path) -> bytes:
    header = {"type": "header", "version": 1, "id": name, "createdAt": created_at(name)}
    return orjson.dumps({**header, "cwd": str(cwd)}) + b"\n"


def created_at(name: str) -> str:
    """Session ids here start with their day, as the lab's ids do: 20260102-... ."""
    day = name.split("-")[0]
    return f"{day[:4]}-{day[4:6]}-{day[6:8]}T09:00:00.000Z" if day.isdigit() else "2026-01-01"


def aged(path: Path, age: int) -> Path:
    os.utime(path, (NOW - age, NOW - age), follow_symlinks=False)
    return path


def folders(root: Path, *names: str) -> list[Path]:
    made = [root / name for name in names]
    for folder in made:
        folder.mkdir(parents=True, exist_ok=True)
    return made


def unusable_files(root: Path, sessions: Path, cwd: Path, stories: dict[str, str]) -> None:
    """Five files named like sessions that cannot be one, newer than every session here."""
    made = {
        "20260105-v2.jsonl": "has a newer version (read_header refuses it): pass it over",
        "20260106-garbage.jsonl": "has no header (read_header refuses it): pass it over",
        "20260107-empty.jsonl": "is empty (read_header refuses it): pass it over",
        "20260108-folder.jsonl": "is a folder, not a session: pass it over",
        "20260109-dangling.jsonl": "is a link to nothing, not a session: pass it over",
    }
    header = {"type": "header", "version": 2, "id": "v2", "createdAt": "", "cwd": str(cwd)}
    (sessions / "20260105-v2.jsonl").write_bytes(orjson.dumps(header) + b"\n")
    (sessions / "20260106-garbage.jsonl").write_bytes(b"this is not JSON\n")
    (sessions / "20260107-empty.jsonl").write_bytes(b"")
    (sessions / "20260108-folder.jsonl").mkdir()
    (sessions / "20260109-dangling.jsonl").symlink_to(root / "nowhere.jsonl")
    for age, name in enumerate(reversed(made), start=10):
        aged(sessions / name, age)
    stories.update(made)


def projects_and_unusable_files(root: Path, sessions: Path, stories: dict[str, str]) -> list[Query]:
    a, b, c = folders(root, "a", "b", "c")
    saved(sessions, "20260101-a1", a, 500)
    saved(sessions, "20260102-a2", a, 400)
    saved(sessions, "20260103-b1", b, 300)
    unusable_files(root, sessions, a, stories)
    stories["20260101-a1.jsonl"] = (
        "is the older of a's two sessions (the list is newest first)"
    )
    stories["20260103-b1.jsonl"] = "was started in b"
    return [
        Query(
            str(a),
            "cwd a",
            "20260102-a2.jsonl",
            "it is the newest of a's sessions. Keep only sessions whose header's cwd is the "
            "folder you were given, and pass over every file read_header refuses",
        ),
        Query(str(b), "cwd b", "20260103-b1.jsonl", "it is b's only session"),
        Query(str(c), "cwd c", None, "no session was started in c"),
    ]


def folders_with_similar_names(root: Path, sessions: Path, stories: dict[str, str]) -> list[Query]:
    proj, sub, deeper, sibling = folders(root, "proj", "proj/sub", "proj/sub/deeper", "proj-old")
    saved(sessions, "20260101-proj", proj, 300)
    saved(sessions, "20260102-sub", sub, 200)
    saved(sessions, "20260103-proj-old", sibling, 100)
    stories["20260101-proj.jsonl"] = "was started in proj, the parent of the folder given"
    stories["20260102-sub.jsonl"] = "was started in proj/sub"
    stories["20260103-proj-old.jsonl"] = (
        "was started in proj-old, another folder whose name starts with proj's"
    )
    whole = (
        "compare whole folders, not the start of a string: a subfolder, a parent or a "
        "folder whose name starts the same is another folder"
    )
    return [
        Query(str(proj), "cwd proj", "20260101-proj.jsonl", f"it is proj's only session; {whole}"),
        Query(str(sub), "cwd proj/sub", "20260102-sub.jsonl", f"it is sub's own session; {whole}"),
        Query(str(deeper), "cwd proj/sub/deeper", None, f"no session was started there; {whole}"),
    ]


def one_folder_many_spellings(root: Path, sessions: Path, stories: dict[str, str]) -> list[Query]:
    real, elsewhere = folders(root, "real", "elsewhere")
    link = root / "link"
    link.symlink_to(real, target_is_directory=True)
    saved(sessions, "20260101-by-real", real, 300)
    saved(sessions, "20260102-by-link", link, 200)  # a harness that records $PWD keeps the link
    saved(sessions, "20260103-elsewhere", elsewhere, 100)
    stories["20260101-by-real.jsonl"] = (
        "is the older of real's two sessions; the newer one's header says link, a symlink to real"
    )
    stories["20260102-by-link.jsonl"] = "was started in real, written as link (a symlink to it)"
    stories["20260103-elsewhere.jsonl"] = "was started in elsewhere"
    same = (
        "it was started in the same folder, written through the symlink link. Compare "
        "folders, not spellings: resolve both paths (symlinks, '..') before comparing"
    )
    return [
        Query(str(real), "cwd real", "20260102-by-link.jsonl", same),
        Query(f"{real}{os.sep}", "cwd 'real/' (a trailing slash)", "20260102-by-link.jsonl", same),
        Query(
            str(elsewhere / ".." / "real"),
            "cwd 'elsewhere/../real'",
            "20260102-by-link.jsonl",
            same,
        ),
        Query(str(link), "cwd link (a symlink to real)", "20260102-by-link.jsonl", same),
    ]


def a_folder_that_is_gone(root: Path, sessions: Path, stories: dict[str, str]) -> list[Query]:
    (here,) = folders(root, "here")
    saved(sessions, "20260101-here", here, 300)
    saved(sessions, "20260102-gone", root / "deleted-project", 200)  # its folder no longer exists
    stories["20260101-here.jsonl"] = "was started in here"
    stories["gone"] = "20260102-gone.jsonl, a session whose folder no longer exists"
    stories["20260102-gone.jsonl"] = "was started in a folder that no longer exists"
    return [
        Query(
            str(here),
            "cwd here",
            "20260101-here.jsonl",
            "it is here's only session; the newer one was started in a folder that was "
            "deleted since, which matches nothing",
        )
    ]


def latest_is_last_modified(root: Path, sessions: Path, stories: dict[str, str]) -> list[Query]:
    (proj,) = folders(root, "proj")
    saved(sessions, "20260101-resumed-yesterday", proj, 100)  # created first, written to last
    saved(sessions, "20260102-left-alone", proj, 300)
    stories["20260102-left-alone.jsonl"] = (
        "has the later name and createdAt, but was last modified before the other one"
    )
    stories["20260101-resumed-yesterday.jsonl"] = "was modified most recently"
    return [
        Query(
            str(proj),
            "cwd proj",
            "20260101-resumed-yesterday.jsonl",
            "the latest session is the one modified most recently (a session resumed "
            "yesterday is newer than one created after it and left alone): follow "
            "list_session_files' order",
        )
    ]


def a_tie(root: Path, sessions: Path, stories: dict[str, str]) -> list[Query]:
    (proj,) = folders(root, "proj")
    saved(sessions, "20260101-older", proj, 300)
    saved(sessions, "20260102-first", proj, 100)
    saved(sessions, "20260103-second", proj, 100)  # the same time: the later name goes first
    stories["20260101-older.jsonl"] = "was modified before the other two"
    stories["20260102-first.jsonl"] = (
        "was modified at the same moment as 20260103-second.jsonl, and has the earlier name"
    )
    return [
        Query(
            str(proj),
            "cwd proj",
            "20260103-second.jsonl",
            "of two sessions modified at the same moment, the later name (a later session id) "
            "is the newer: take the first match in list_session_files' order",
        )
    ]
