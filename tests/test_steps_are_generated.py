"""labs/ is cut from one marked source (tools/make_steps.py); nobody edits it by hand.

The first test is the one that matters day to day: it fails the moment a step folder is not
what source/ makes (a hand edit in labs/, a source edit without `make steps`) and names the
source file to edit. The rest prove the cutter: what a marker means, and that a marker it
cannot read stops the build with the file and the line instead of making a wrong step.
"""

from __future__ import annotations

import shutil
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
    assert set(steps_of(f"# >>file {FIRST} until {THIRD}\nx = 1\n")) == {FIRST, SECOND}


def test_a_block_arrives_in_its_step_and_goes_in_the_step_after_until() -> None:
    text = (
        f"# >>file {FIRST}\n"
        "def run():\n"
        f"    # >> {FIRST} until {SECOND}\n"
        "    save_at_the_end()\n"
        "    # <<\n"
        f"    # >> {SECOND}\n"
        "    save_each_message()\n"
        f"        # >> {THIRD}\n"
        "    and_resume()\n"
        "        # <<\n"
        "    # <<\n"
    )
    kept = steps_of(text)
    assert kept[FIRST] == "def run():\n    save_at_the_end()\n"
    assert kept[SECOND] == "def run():\n    save_each_message()\n"
    assert kept[THIRD] == "def run():\n    save_each_message()\n    and_resume()\n"


def test_the_blank_lines_around_a_block_left_out_never_pile_up() -> None:
    text = (
        f"# >>file {FIRST}\na = 1\n\n\n# >> {SECOND}\nb = 2\n\n\n# <<\nc = 3\n\n\n"
        f"# >> {SECOND}\nd = 4\n# <<\n"
    )
    kept = steps_of(text)
    assert kept[FIRST] == "a = 1\n\n\nc = 3\n"
    assert kept[SECOND] == "a = 1\n\n\nb = 2\n\n\nc = 3\n\n\nd = 4\n"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("x = 1\n", "source/lab/x.py:1: a shared file starts with its steps"),
        (f"# >>file {FIRST}\n# >> {SECOND}\nx = 1\n", "source/lab/x.py:2: this block is never"),
        (f"# >>file {FIRST}\nx = 1\n# <<\n", "source/lab/x.py:3: '# <<' closes no block"),
        (f"# >>file {FIRST}\n# >> 99\n# <<\n", "source/lab/x.py:2: no step '99'"),
        (f"# >>file {SECOND}\n# >> {SECOND} until {FIRST}\n# <<\n", "'until' must come later"),
        (f"# >>file {SECOND}\n# >> {FIRST} until {SECOND}\n# <<\n", "x.py:2: a block names no"),
        (f"# >>file {FIRST}\nx = 1  # >> {SECOND}\n", "x.py:2: a marker must be a line"),
        (f"# >>file {FIRST}\n# >>file {SECOND}\n", "x.py:2: a file marker belongs on the first"),
        (f"# >>file {FIRST}\n# >> {SECOND} till {THIRD}\n# <<\n", "x.py:2: cannot read the"),
    ],
)
def test_a_marker_the_build_cannot_read_stops_it_naming_the_line(text: str, says: str) -> None:
    with pytest.raises(SourceError) as refused:
        cut("source/lab/x.py", text)
    assert says in str(refused.value)


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
