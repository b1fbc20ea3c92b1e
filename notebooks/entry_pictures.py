"""The picture of a session's entry tree, for the notebooks (labtools re-exports `draw`).

A step's `entry_graph.py` builds the graph (which entries there are, which are the
conversation, how each is labelled) and names its colours; this module only draws it, with
networkx and matplotlib, left to right from the first entry. It reads the node attributes every
step sets (`kind`, `text`, `leaf`, `known`, and from step 03 on `on_path`), so the same
picture serves every step. A program never draws: it prints `network_text`.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Collection
from typing import TYPE_CHECKING

import networkx as nx

if TYPE_CHECKING:  # matplotlib is imported by the notebook that draws
    from matplotlib.axes import Axes

UNKNOWN_COLOUR = "#dddddd"  # a kind the step does not know
LEAF_COLOUR = "#d62828"
# What could move the cursor or start a line, shown escaped in a picture too: control and
# bidirectional characters (a step before the production one shows the file's text as it is).
_UNSAFE = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def printable(text: str) -> str:
    return _UNSAFE.sub(lambda found: found.group().encode("unicode_escape").decode(), text)


def depths(graph: nx.DiGraph) -> dict[str, int]:
    """How far each entry is from its root: the column it is drawn in. A node on a parent
    cycle has no root; it goes in column 0 rather than nowhere."""
    found = _from_the_roots(graph)
    return {node: found.get(node, 0) for node in graph}


def _from_the_roots(graph: nx.DiGraph) -> dict[str, int]:
    """The depth of every entry a root leads to (an entry on a parent cycle is not one)."""
    found: dict[str, int] = {}
    for root in (node for node, degree in graph.in_degree() if degree == 0):
        found.update(nx.single_source_shortest_path_length(graph, root))
    return found


def columns(graph: nx.DiGraph) -> dict[int, list[str]]:
    """The entries of each column (by depth), top to bottom in the order a walk from the roots
    meets them, children in file order: each branch keeps to its own band, so no edges cross.

    Stop here: given a node attribute instead, networkx gathers each column into a set, whose
    order changes from one run of Python to the next, and branches would cross at random.
    """
    roots = [node for node, degree in graph.in_degree() if degree == 0]
    order = [node for root in roots for node in nx.dfs_preorder_nodes(graph, root)]
    seen = set(order)
    order += [node for node in graph if node not in seen]  # a parent cycle has no root
    depth = depths(graph)
    found: dict[int, list[str]] = {}
    for node in order:
        found.setdefault(depth[node], []).append(node)
    return found


def draw(graph: nx.DiGraph, ax: Axes, restored: Collection[str] = ()) -> None:
    """Left to right by depth, coloured by kind; arrows point from parent to child, the way
    the file grew. The leaf has a red ring and says so.

    The walk that rebuilds the conversation goes against the arrows, from the leaf up: that
    path is bold, entries off it are faded (their edges dashed), and the entries `restored`
    names (what an earlier run wrote, say) have a dark outline.
    """
    bottom_up = {column: nodes[::-1] for column, nodes in columns(graph).items()}
    pos = nx.multipartite_layout(graph, subset_key=bottom_up, align="vertical")
    nodes, kind_colours = graph.nodes, graph.graph["colours"]
    colours = [kind_colours.get(nodes[n]["kind"], UNKNOWN_COLOUR) for n in graph]
    outlines = ["#222222" if n in restored else "none" for n in graph]
    alphas = [1.0 if nodes[n].get("on_path", True) else 0.35 for n in graph]
    solid = [(a, b) for a, b in graph.edges if nodes[b].get("on_path", True)]
    dashed = [(a, b) for a, b in graph.edges if not nodes[b].get("on_path", True)]
    nx.draw_networkx_nodes(
        graph,
        pos,
        ax=ax,
        node_color=colours,
        node_size=900,
        edgecolors=outlines,
        linewidths=2.5,
        alpha=alphas,
    )
    for edges, style, width in ((solid, "solid", 2.8), (dashed, "dashed", 1.0)):
        nx.draw_networkx_edges(
            graph, pos, edgelist=edges, ax=ax, style=style, width=width, arrows=True,
            arrowsize=15, node_size=900, edge_color="#333333" if width > 2 else "#999999",
        )  # fmt: skip
    leaves = [n for n in graph if nodes[n]["leaf"]]
    nx.draw_networkx_nodes(  # a ring around the leaf: where the next entry will hang
        graph, pos, nodelist=leaves, ax=ax, node_size=1700, node_color="none",
        edgecolors=LEAF_COLOUR, linewidths=3,
    )  # fmt: skip
    for leaf in leaves:
        ax.annotate("leaf", pos[leaf], xytext=(0, 25), textcoords="offset points", ha="center",
                    color=LEAF_COLOUR, fontsize=9, fontweight="bold")  # fmt: skip
    labels = {n: _plain(printable(n)) for n in graph}
    nx.draw_networkx_labels(graph, pos, ax=ax, labels=labels, font_size=9)
    for node, (x, y) in pos.items():  # the message text, under its node, on short lines
        ax.annotate(
            textwrap.fill(nodes[node]["text"], 14, max_lines=3, placeholder="…"),
            (x, y),
            xytext=(0, -24),
            textcoords="offset points",
            ha="center",
            va="top",
            fontsize=8,
            parse_math=False,
        )
    drawn = dict.fromkeys(nodes[n]["kind"] for n in graph)  # the legend names what is drawn
    for kind, colour in kind_colours.items():  # an invisible point per kind, for the legend
        if kind in drawn:
            ax.scatter([], [], color=colour, s=80, label=kind)
    grey = {  # drawn grey: a kind the step does not know, or one it does but draws grey
        nodes[n]["kind"] if nodes[n]["known"] else "unknown kind"
        for n in graph
        if nodes[n]["kind"] not in kind_colours
    }
    for label in sorted(grey):
        ax.scatter([], [], color=UNKNOWN_COLOUR, s=80, label=_plain(label))
    if any(n in restored for n in graph):
        ax.scatter(
            [], [], color="white", edgecolors="#222222", linewidths=2, s=80, label="restored"
        )
    if dashed:
        ax.plot([], [], linestyle="--", color="#999999", label="off the conversation")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.text(0, 0, "arrows: parent → child; the conversation is read from the leaf back",
            transform=ax.transAxes, fontsize=7, color="#666666", va="bottom")  # fmt: skip
    ax.margins(x=0.08, y=0.25)  # room for the ring, the word leaf and the text under a node
    ax.set_axis_off()


def _plain(text: str) -> str:
    """Matplotlib reads $...$ as mathematics (and raises on bad TeX): show a $ as a $."""
    return text.replace("$", r"\$")
