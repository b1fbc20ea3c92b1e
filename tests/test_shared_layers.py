"""A layer is a module that means the same in every step that has it: the disk, the folder of
sessions, the reader's index, the drawing of the entry tree, the terminal, the stop signals, the
harness. It is byte for byte the same there, so it never shows in a step's diff, and a fix made
in one step reaches every step (or this test says which one was left behind)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from conftest import STEPS

# Each layer, and the first step that has it; every later step has it too.
LAYERS = {
    "session_file.py": "step02",
    "session_folder.py": "step03",
    "entry_index.py": "step02",
    "tree_drawing.py": "step02",
    "terminal.py": "step02",
    "stop_signals.py": "step02",
    "messages.py": "step02",
    "model.py": "step02",
    "openai_model.py": "step02",
    "tools.py": "step02",
    "loop.py": "step02",
    "render.py": "step02",
    # Not a layer of the program but of its tests: the fake endpoint the real model is tried on.
    "tests/fake_endpoint.py": "step02",
}


def steps_from(first: str) -> list[Path]:
    return [step for step in STEPS if step.name[:6] >= first]


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_a_layer_is_the_same_in_every_step_that_has_it(layer: str) -> None:
    steps = steps_from(LAYERS[layer])
    missing = [step.name for step in steps if not (step / layer).is_file()]
    assert not missing, f"{layer} is missing from {missing}"
    versions: dict[str, list[str]] = {}
    for step in steps:
        digest = hashlib.sha256((step / layer).read_bytes()).hexdigest()[:12]
        versions.setdefault(digest, []).append(step.name)
    assert len(versions) == 1, f"{layer} differs between steps: {sorted(versions.values())}"


def test_a_layer_arrives_in_one_step_and_stays() -> None:
    """A step of the agent (02 on) before a layer's first has no module of that name: it would
    be a second, different version of the layer. (Step 01 measures stores before there is an
    agent; its own small messages.py is not the harness.)"""
    early = [
        f"{step.name}/{layer}"
        for layer, first in LAYERS.items()
        for step in STEPS
        if "step02" <= step.name[:6] < first and (step / layer).exists()
    ]
    assert not early, f"a layer in a step before its first: {early}"
