"""Each step folder holds what a reader is promised: a README, a demo and its output, tests, its
own requirements.txt, and (from step 02) main.py. See README.md, "Copying a step out"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import STEPS, step_ids

REQUIRED = [
    "README.md",
    "demo.py",
    "expected-output.txt",
    "requirements.txt",
    "tests",
    ".gitignore",
]


@pytest.mark.parametrize("step", STEPS, ids=step_ids(STEPS))
def test_step_has_what_the_contract_lists(step: Path) -> None:
    required = REQUIRED + ([] if step.name.startswith("step01") else ["main.py"])
    missing = [name for name in required if not (step / name).exists()]
    assert not missing, f"{step.name} lacks {missing}"
    assert list((step / "tests").glob("test_*.py")), f"{step.name}/tests has no test files"
    # A reader who copies the folder and runs `git init` must not commit their conversations.
    ignored = (step / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert ".sessions/" in ignored, f"{step.name}/.gitignore lets .sessions/ in"


@pytest.mark.parametrize("step", STEPS, ids=step_ids(STEPS))
def test_expected_output_is_not_empty(step: Path) -> None:
    assert (step / "expected-output.txt").read_text(encoding="utf-8").strip()


# A markdown link's target, and a path that climbs out of labs/ (`../step02_x` names a step
# beside this one, which a reader diffs against inside the lab; `../../docs` is the lab's own).
LINK = re.compile(r"\]\(([^)\s]+)\)")
CLIMBING = re.compile(r"(?<!\.)\.\./\.\./[\w./-]*")


@pytest.mark.parametrize("step", STEPS, ids=step_ids(STEPS))
def test_a_step_readme_points_at_nothing_outside_its_folder(step: Path) -> None:
    """A step is copied out alone: a README link to `../../docs/session-format.md` was dead in
    the copy. Every relative link must stay inside the folder, and exist."""
    text = (step / "README.md").read_text(encoding="utf-8")
    targets = [t for t in LINK.findall(text) if not re.match(r"[a-z]+:|#", t)]
    outside = [t for t in targets if not (step / t.split("#")[0]).resolve().is_relative_to(step)]
    missing = [t for t in targets if t not in outside and not (step / t.split("#")[0]).exists()]
    assert not outside and not CLIMBING.findall(text), (
        f"{step.name}: {outside or CLIMBING.findall(text)}"
    )
    assert not missing, f"{step.name}/README.md links what the folder lacks: {missing}"


def test_the_copy_out_section_names_every_package_a_step_imports() -> None:
    """The root README's copy-out section says what a step's requirements.txt pins; it left
    out `openai`, which the production step pins."""
    readme = (STEPS[0].parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.partition("## Copying a step out")[2].partition("\n## ")[0]
    named = set()
    for step in STEPS:
        pinned = (step / "requirements.txt").read_text(encoding="utf-8")
        direct = pinned.partition("# what those need")[0]  # what the step imports itself
        named |= {line.split("==")[0] for line in direct.splitlines() if "==" in line}
    left_out = sorted(name for name in named if not re.search(rf"\b{name}\b", section, re.I))
    assert named and not left_out, f"README.md's copy-out section leaves out {left_out}"
