"""Each step folder carries its own requirements.txt, so that a reader who copies one step
installs what it imports and nothing of the lab's tooling (JupyterLab, nbval...).

The file must pin exactly what the step needs: every third-party module its programs and its
tests import (found by parsing them, never by importing them), the distributions that provide
those, and what those require in turn, each `==` the version the lab's root requirements.txt
pins. What a distribution requires is read from the metadata installed in this environment,
with markers evaluated for this interpreter (so a Windows-only dependency is not asked for).
`make check` then installs one step from its file alone and runs it (tools/copy_out.py).
"""

from __future__ import annotations

import ast
import re
import sys
from functools import cache
from importlib.metadata import PackageNotFoundError, packages_distributions, requires
from pathlib import Path

import pytest
from conftest import LAB_ROOT, STEPS, step_ids
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[A-Za-z0-9.+!_-]+)$")


def pins(path: Path) -> dict[str, tuple[str, str]]:
    """{canonical name: (name as written, version)} for a requirements file of `name==version`
    lines; anything else (a range, an option, an include) is an error."""
    shown = path.relative_to(LAB_ROOT) if path.is_relative_to(LAB_ROOT) else path
    found: dict[str, tuple[str, str]] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = PIN.match(line)
        assert match, f"{shown}:{number}: not a name==version pin: {raw!r}"
        key = canonicalize_name(match["name"])
        assert key not in found, f"{shown}:{number}: {key} pinned twice"
        found[key] = (match["name"], match["version"])
    return found


ROOT_PINS = pins(LAB_ROOT / "requirements.txt")


def own_modules(step: Path) -> set[str]:
    names = {p.stem for p in step.rglob("*.py")}
    names |= {p.parent.name for p in step.rglob("*/__init__.py")}
    return names | {"tests"}


def imported_roots(source: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def third_party_imports(step: Path) -> dict[str, set[str]]:
    """{module: the step's files that import it}, for modules neither stdlib nor the step's."""
    ignored = set(sys.stdlib_module_names) | own_modules(step)
    found: dict[str, set[str]] = {}
    for source in sorted(step.rglob("*.py")):
        for root in imported_roots(source) - ignored:
            found.setdefault(root, set()).add(str(source.relative_to(step)))
    return found


@cache
def module_providers() -> dict[str, list[str]]:
    return packages_distributions()


@cache
def needed_by(distribution: str) -> frozenset[str]:
    """What installing `distribution` installs with it: its requirements whose markers hold
    here (no extras), as canonical names."""
    try:
        declared = requires(distribution) or []
    except PackageNotFoundError:
        pytest.fail(f"{distribution} is pinned but not installed in {sys.prefix}")
    needed = set()
    for text in declared:
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            needed.add(canonicalize_name(requirement.name))
    return frozenset(needed)


def what_the_step_needs(step: Path) -> tuple[set[str], set[str]]:
    """(the distributions the step imports, those and everything they require)."""
    providers = module_providers()
    direct = set()
    for module, files in third_party_imports(step).items():
        assert module in providers, (
            f"{step.name} imports {module} ({', '.join(sorted(files))}), which no installed "
            "distribution provides: add it to the root requirements.txt first"
        )
        direct |= {canonicalize_name(name) for name in providers[module]}
    everything, waiting = set(), list(direct)
    while waiting:
        name = waiting.pop()
        if name not in everything:
            everything.add(name)
            waiting.extend(needed_by(name))
    return direct, everything


def suggested_file(direct: set[str], everything: set[str]) -> str:
    line = "{0}=={1}".format
    return "\n".join(
        [line(*ROOT_PINS[n]) for n in sorted(direct) if n in ROOT_PINS]
        + ["", "# what those need, pinned the same way"]
        + [line(*ROOT_PINS[n]) for n in sorted(everything - direct) if n in ROOT_PINS]
    )


@pytest.mark.parametrize("step", STEPS, ids=step_ids(STEPS))
def test_every_third_party_import_is_pinned_in_the_step(step: Path) -> None:
    direct, everything = what_the_step_needs(step)
    pinned = pins(step / "requirements.txt")
    missing = sorted(everything - set(pinned))
    assert not missing, (
        f"{step.name}/requirements.txt lacks {missing}; it should read:\n"
        + suggested_file(direct, everything)
    )


@pytest.mark.parametrize("step", STEPS, ids=step_ids(STEPS))
def test_the_step_pins_nothing_it_does_not_need(step: Path) -> None:
    direct, everything = what_the_step_needs(step)
    extra = sorted(set(pins(step / "requirements.txt")) - everything)
    assert not extra, (
        f"{step.name}/requirements.txt pins {extra}, which the step neither imports nor needs "
        "for what it imports; it should read:\n" + suggested_file(direct, everything)
    )


@pytest.mark.parametrize("step", STEPS, ids=step_ids(STEPS))
def test_every_pin_agrees_with_the_root_file(step: Path) -> None:
    disagree = [
        f"{name}=={version} (root: "
        + ("not pinned" if key not in ROOT_PINS else f"{ROOT_PINS[key][1]}")
        + ")"
        for key, (name, version) in pins(step / "requirements.txt").items()
        if ROOT_PINS.get(key, (None, None))[1] != version
    ]
    assert not disagree, f"{step.name}/requirements.txt: {disagree}"


def test_a_wrong_or_missing_pin_is_caught(tmp_path: Path) -> None:
    """The checks above can fail: a step importing orjson with orjson pinned to another
    version, and one importing networkx with nothing pinned."""
    step = tmp_path / "step99_example"
    (step / "tests").mkdir(parents=True)
    (step / "demo.py").write_text("import orjson\nfrom networkx import DiGraph\nimport json\n")
    (step / "tests" / "test_demo.py").write_text("import pytest\nimport demo\n")
    (step / "requirements.txt").write_text("orjson==0.0.1\npytest==" + ROOT_PINS["pytest"][1])
    direct, everything = what_the_step_needs(step)
    assert direct == {"orjson", "networkx", "pytest"}
    assert {"pluggy", "iniconfig"} <= everything
    with pytest.raises(AssertionError, match=r"lacks \[.*'networkx'"):
        test_every_third_party_import_is_pinned_in_the_step(step)
    with pytest.raises(AssertionError, match=r"orjson==0\.0\.1 \(root: 3"):
        test_every_pin_agrees_with_the_root_file(step)
    (step / "requirements.txt").write_text("orjson>=3\n")
    with pytest.raises(AssertionError, match="not a name==version pin"):
        pins(step / "requirements.txt")
