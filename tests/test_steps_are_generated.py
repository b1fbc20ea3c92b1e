"""labs/ is cut from one marked source (tools/make_steps.py); nobody edits it by hand.

The first test is the one that matters day to day: it fails the moment a step folder is not
what source/ makes (a hand edit in labs/, a source edit without `make steps`) and names the
source file to edit. The rest prove the cutter: what a marker means, and that a marker it
cannot read stops the build with the file and the line instead of making a wrong step; and
that the source is the production program, which runs as the production step does.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import LAB_ROOT

sys.path.insert(0, str(LAB_ROOT / "tools"))
from make_steps import STEPS, SourceError, build, cut, differences, write  # noqa: E402

FIRST, SECOND, THIRD = (step.tag for step in STEPS[1:4])  # three neighbouring steps


def test_labs_is_what_the_source_makes() -> None:
    found = differences(build())
    assert not found, "labs/ is not what source/ makes:\n" + "\n".join(found[:20])


def test_a_hand_edit_in_labs_names_the_source_file_to_edit(tmp_path: Path) -> None:
    labs = tmp_path / "labs"
    shutil.copytree(LAB_ROOT / "labs", labs, ignore=shutil.ignore_patterns("__pycache__"))
    step = STEPS[-1].folder
    edited = labs / step / "main.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "# a quick fix\n", encoding="utf-8")
    (labs / step / "extra.py").write_text("", encoding="utf-8")
    found = differences(build(), labs)
    assert found == [
        f"labs/{step}/main.py is not what source/lab/main.py makes: edit the source, not "
        "labs/, then run `make steps`",
        f"labs/{step}/extra.py is made by no file of source/",
    ]


def steps_of(text: str) -> dict[str, str]:
    """What each step gets of a marked file, by tag."""
    return {STEPS[index].tag: kept for index, kept in cut("source/lab/x.py", text).items()}


def test_a_file_is_in_the_steps_its_first_line_names_and_the_line_is_never_written() -> None:
    text = f"# >>file {SECOND}\nshared = 1\n"
    kept = steps_of(text)
    assert FIRST not in kept
    assert kept[SECOND] == kept[THIRD] == "shared = 1\n"
    # A file the production step lacks is all comment in the source, as a block would be.
    assert steps_of(f"# >>file {FIRST} until {THIRD}\n# x = 1\n") == {
        FIRST: "x = 1\n",
        SECOND: "x = 1\n",
    }


def test_a_block_arrives_in_its_step_and_goes_in_the_step_after_until() -> None:
    """A line the production step does not have stands commented out in the source, and each
    step before it has the line as it was."""
    text = (
        f"# >>file {FIRST}\n"
        "def run():\n"
        f"    # >> {FIRST} until {SECOND}\n"
        "    # save_at_the_end()\n"
        "    # if crashed:\n"
        "    #     say('lost')\n"
        "    #\n"
        f"    # << {FIRST} until {SECOND}\n"
        f"    # >> {SECOND}\n"
        "    save_each_message()\n"
        f"        # >> {THIRD}\n"
        "    and_resume()\n"
        f"        # << {THIRD}\n"
        f"    # << {SECOND}\n"
    )
    kept = steps_of(text)
    assert (
        kept[FIRST] == "def run():\n    save_at_the_end()\n    if crashed:\n        say('lost')\n"
    )
    assert kept[SECOND] == "def run():\n    save_each_message()\n"
    assert kept[THIRD] == "def run():\n    save_each_message()\n    and_resume()\n"


def test_the_blank_lines_around_a_block_left_out_never_pile_up() -> None:
    text = (
        f"# >>file {FIRST}\na = 1\n\n\n# >> {SECOND}\nb = 2\n\n\n# << {SECOND}\nc = 3\n\n\n"
        f"# >> {SECOND}\nd = 4\n# << {SECOND}\n"
    )
    kept = steps_of(text)
    assert kept[FIRST] == "a = 1\n\n\nc = 3\n"
    assert kept[SECOND] == "a = 1\n\n\nb = 2\n\n\nc = 3\n\n\nd = 4\n"


def test_each_step_is_formatted_as_ruff_formats_it(tmp_path: Path) -> None:
    """Ruff puts a blank line between an import and a marker after it, in the source; a step
    that drops the marker has its imports in one block again."""
    source = tmp_path / "source"
    (source / "lab").mkdir(parents=True)
    (source / "lab" / "x.py").write_text(
        f"# >>file {FIRST}\nimport os\n\n# >> {SECOND}\nimport sys\n\n# << {SECOND}\n"
        "from pathlib import Path\n\nprint(os, sys, Path)\n",
        encoding="utf-8",
    )
    built = build(source)
    first, second = (built[step.folder]["x.py"].decode() for step in STEPS[1:3])
    assert first == "import os\nfrom pathlib import Path\n\nprint(os, sys, Path)\n"
    assert second == "import os\nimport sys\nfrom pathlib import Path\n\nprint(os, sys, Path)\n"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("x = 1\n", "source/lab/x.py:1: a shared file starts with its steps"),
        (f"# >>file {FIRST}\n# >> {SECOND}\nx = 1\n", "source/lab/x.py:2: this block is never"),
        (f"# >>file {FIRST}\nx = 1\n# << {FIRST}\n", f"x.py:3: '# << {FIRST}' closes no block"),
        (f"# >>file {FIRST}\n# >> 99\n# << 99\n", "source/lab/x.py:2: no step '99'"),
        (
            f"# >>file {SECOND}\n# >> {SECOND} until {FIRST}\n# << {SECOND} until {FIRST}\n",
            "'until' must come later",
        ),
        (
            f"# >>file {SECOND}\n# >> {FIRST} until {SECOND}\n# << {FIRST} until {SECOND}\n",
            "x.py:2: a block names no",
        ),
        (f"# >>file {FIRST}\nx = 1  # >> {SECOND}\n", "x.py:2: a marker must be a line"),
        (f"# >>file {FIRST}\n# >>file {SECOND}\n", "x.py:2: a file marker belongs on the first"),
        (f"# >>file {FIRST}\n# >> {SECOND} till {THIRD}\n# <<\n", "x.py:2: cannot read the"),
        # A closing marker names the block it closes: at depth three, nobody has to count.
        (f"# >>file {FIRST}\n# >> {SECOND}\nx = 1\n# <<\n", "x.py:4: '# <<' closes the block"),
        (
            f"# >>file {FIRST}\n# >> {SECOND}\n# >> {THIRD}\n# << {SECOND}\n",
            f"x.py:4: '# << {SECOND}' closes the block of line 3, '# >> {THIRD}'",
        ),
        # A line the production step lacks is a comment in the source, or the source would run
        # an earlier step's code as the production program's.
        (
            f"# >>file {FIRST}\n# >> {FIRST} until {SECOND}\nx = 1\n# << {FIRST} until {SECOND}\n",
            "x.py:3: a line the production step does not have is commented out",
        ),
    ],
)
def test_a_marker_the_build_cannot_read_stops_it_naming_the_line(text: str, says: str) -> None:
    with pytest.raises(SourceError) as refused:
        cut("source/lab/x.py", text)
    assert says in str(refused.value)


def test_the_source_runs_as_the_production_step(tmp_path: Path) -> None:
    """`python source/lab/main.py` is the production program: the same conversation, the
    same file, as the production step folder's main.py."""
    said = {}
    for name, program in [
        ("source", LAB_ROOT / "source" / "lab" / "main.py"),
        ("labs", LAB_ROOT / "labs" / STEPS[-1].folder / "main.py"),
    ]:
        (tmp_path / name).mkdir()
        done = subprocess.run(
            [sys.executable, str(program)],
            cwd=tmp_path / name,
            input=b"hello\nwhat is 12*8\nwhat was the result\n",
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        [session] = (tmp_path / name / ".sessions").glob("*.jsonl")
        entries = session.read_bytes().splitlines()[1:]  # the header has a time and a folder
        said[name] = (done.stdout.replace(session.name.encode(), b"NAME"), entries)
    assert b"12*8 = 96." in said["source"][0]
    assert said["source"] == said["labs"]


def test_a_build_replaces_only_what_the_source_makes(tmp_path: Path) -> None:
    """A step folder's caches survive a build; a file the source no longer makes, and a step
    folder the source has no step for, are removed."""
    source, labs = tmp_path / "source", tmp_path / "labs"
    (source / "lab").mkdir(parents=True)
    (source / "lab" / "kept.py").write_text(f"# >>file {SECOND}\nkept = 1\n", encoding="utf-8")
    first_folder = STEPS[1].folder
    (source / first_folder).mkdir()
    (source / first_folder / "README.md").write_text("# one step\n", encoding="utf-8")
    second = labs / STEPS[2].folder
    (second / ".hypothesis").mkdir(parents=True)
    (second / ".hypothesis" / "db").write_text("cache", encoding="utf-8")
    (second / "gone.py").write_text("old = 1\n", encoding="utf-8")
    (labs / "step99_retired").mkdir()
    built = build(source)
    write(built, labs)
    assert (labs / first_folder / "README.md").read_text(encoding="utf-8") == "# one step\n"
    assert not (labs / first_folder / "kept.py").exists()
    assert (second / "kept.py").read_text(encoding="utf-8") == "kept = 1\n"
    assert (second / ".hypothesis" / "db").read_text(encoding="utf-8") == "cache"
    assert not (second / "gone.py").exists()
    assert not (labs / "step99_retired").exists()
    assert differences(built, labs) == []
