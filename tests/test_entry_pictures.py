"""The picture of a session's entry tree (notebooks/entry_pictures.py), drawn from each step's
own graph: every step from 02 builds the graph, the notebooks draw it.

Each step runs in a process of its own (steps repeat module names): the driver builds sessions
with the step's own code, draws them, and reports what the picture holds.
"""

from __future__ import annotations

import json
from itertools import pairwise

import pytest
from conftest import LAB_ROOT, STEPS
from preloaded_python import PreloadedPython

AGENT_STEPS = [step for step in STEPS if step.name >= "step02"]

DRIVER = r"""
import json, sys, tempfile
from pathlib import Path
sys.path[:0] = [sys.argv[1], sys.argv[2]]  # the step, then the notebooks' helpers
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from entry_graph import entry_graph
from entry_pictures import columns, draw, path_edges
from messages import user_text
from session import Session

found = {}
with tempfile.TemporaryDirectory() as folder:
    def new(name):
        return Session.create(folder, session_id=name, created_at="t", cwd="/")

    # Text a renderer could take for TeX or for a terminal's commands is drawn as text.
    odd = new("odd")
    odd.append_message(user_text("costs $\\x$ and \x1b[31m red"))
    odd.append_entry("kind\x1b[2J", {})
    figure, axes = plt.subplots()
    draw(entry_graph(odd.path), axes)
    figure.savefig(Path(folder) / "odd.png")  # mathtext would raise on $\x$
    found["legend"] = [text.get_text() for text in axes.get_legend().get_texts()]
    plt.close(figure)

    # Two branches from e1, the first written on top, in every run.
    tree = new("tree")
    for text in ("root", "a1", "a2"):
        tree.append_message(user_text(text))
    if hasattr(tree, "append_branch"):
        tree.append_branch("e1")
    else:
        tree.leaf_id = "e1"  # what step 05's /branch does: the next entry hangs under e1
    for text in ("b1", "b2"):
        tree.append_message(user_text(text))
    graph = entry_graph(tree.path)
    found["columns"] = columns(graph)
    figure, axes = plt.subplots()
    draw(graph, axes)
    y = dict(zip(graph, axes.collections[0].get_offsets()[:, 1].tolist()))
    found["first_branch_on_top"] = y["e2"] > y["e4"] and y["e3"] > y["e5"]
    found["faded"] = sorted(n for n, on in graph.nodes(data="on_path", default=True) if not on)
    found["path_edges"] = sorted(map(list, path_edges(graph)))
    found["solid_arrows"] = [patch.get_linestyle() for patch in axes.patches].count("solid")
    plt.close(figure)

    # A compaction (step 06 on): the path starts at what it keeps. The arrow into that entry
    # from the summarised one before it is off the path, and the compaction, the leaf, is
    # filled in its own colour like every entry on the path (the ones off it are hollow).
    if hasattr(Session, "append_compaction"):
        chain = new("chain")
        for text in ("a", "b", "c", "d"):
            chain.append_message(user_text(text))
        chain.append_compaction("a summary", "e3")
        graph = entry_graph(chain.path)
        figure, axes = plt.subplots()
        draw(graph, axes)
        found["compacted_path_edges"] = sorted(map(list, path_edges(graph)))
        found["compacted_solid_arrows"] = [p.get_linestyle() for p in axes.patches].count("solid")
        fills = dict(zip(graph, axes.collections[0].get_facecolors().tolist()))
        colours = graph.graph["colours"]
        compaction_colour = list(matplotlib.colors.to_rgba(colours["compaction"]))
        found["compaction_filled"] = fills["e5"] == compaction_colour
        found["summarised_hollow"] = fills["e1"] == fills["e2"] == [1.0, 1.0, 1.0, 1.0]
        plt.close(figure)

    # A damaged line, an unknown kind, a parent cycle and a missing parent: all drawn.
    broken = new("broken")
    broken.append_message(user_text("hello"))
    with broken.path.open("ab") as file:
        file.write(b'{"type":"message","id":"e2","parentId":"e1","message":{"role":"user"}}\n')
        file.write(b'{"type":"x_lab_test_kind","id":"e3","parentId":"e1"}\n')
        file.write(b'{"type":"x_lab_test_kind","id":"c1","parentId":"c2"}\n')
        file.write(b'{"type":"x_lab_test_kind","id":"c2","parentId":"c1"}\n')
        file.write(b'{"type":"x_lab_test_kind","id":"o1","parentId":"missing"}\n')
    try:
        graph = entry_graph(broken.path)
    except Exception as error:  # step 02 reads strictly: the file is refused, named
        found["broken"] = type(error).__name__
    else:
        figure, axes = plt.subplots()
        draw(graph, axes)  # every node placed, the cycle that has no root included
        found["broken"] = sorted(text.get_text() for text in axes.get_legend().get_texts())
        plt.close(figure)
print(json.dumps(found))
"""


def drawn(python: PreloadedPython, step_name: str) -> dict:
    step = LAB_ROOT / "labs" / step_name
    done = python.run(DRIVER, str(step), str(LAB_ROOT / "notebooks"), timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("step", [s.name for s in AGENT_STEPS])
def test_each_steps_graph_is_drawn(step: str, preloaded_python: PreloadedPython) -> None:
    found = drawn(preloaded_python, step)
    assert "unknown kind" in found["legend"]
    # Each column lists its entries branch by branch: networkx alone would put a column in set
    # order, which changes with the hash seed, and the branches would cross at random.
    assert found["columns"]["1"] == ["e2", "e4"] or found["columns"]["1"] == ["e2", "e5"]
    assert found["first_branch_on_top"]
    if step < "step03":
        assert found["faded"] == []  # a chain: the whole file is the conversation
        assert found["broken"] == "UnusableSessionFile"
        return
    assert found["faded"] == ["e2", "e3"]  # the branch the leaf is not on
    # Solid arrows are the path's, and only the path's: from e1 down the branch to the leaf.
    on_the_path = ["e1", "e4", "e5", "e6"] if step >= "step05" else ["e1", "e4", "e5"]
    assert found["path_edges"] == sorted(map(list, pairwise(on_the_path)))
    assert found["solid_arrows"] == len(found["path_edges"])
    if step >= "step06":
        assert found["compacted_path_edges"] == [["e3", "e4"], ["e4", "e5"]]  # not e2 -> e3
        assert found["compacted_solid_arrows"] == 2
        assert found["compaction_filled"] and found["summarised_hollow"]
    assert "off the conversation" in found["broken"] and "unknown kind" in found["broken"]
    if step == STEPS[-1].name:  # the damaged line stays in the tree, drawn grey and named
        assert "damaged" in found["broken"]
