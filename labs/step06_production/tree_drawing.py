"""How a graph of entries is shown: as indented text, and as a picture.

A layer, the same in every step from 02: it draws whatever graph a step's entry_graph.py
builds, from the node attributes that module sets (`kind`, `text`, `label`, `on_path`, `leaf`,
`restored`, `known`) and the colours it names (`graph.graph["colours"]`). What an entry is, and
which ones are the conversation, is the step's to say; this module only shows it.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import networkx as nx

from messages import printable

if TYPE_CHECKING:  # matplotlib is imported by whoever draws, not by a program that prints text
    from matplotlib.axes import Axes

UNKNOWN_COLOUR = "#dddddd"  # a kind the step does not know
LEAF_COLOUR = "#d62828"
# How many columns of indentation a drawing may take in all: about 1 MB of text.
MAX_INDENT_COLUMNS = 1_000_000


def network_text(graph: nx.DiGraph) -> str:
    """The graph as indented text, one entry per line (what nbval compares).

    Stop here: each entry is drawn 4 columns right of its parent, so a conversation of n
    entries takes about 2n² characters: 8 MB at 2,000 entries, and a tree of 20,000 never
    finishes. A tree that deep is listed flat instead, one line per entry naming its parent:
    the same labels and ids, in text that grows with the number of entries.
    """
    if 4 * _total_depth(graph) > MAX_INDENT_COLUMNS:
        lines = [f"(too deep to draw: {len(graph):,} entries, each with the one it hangs under)"]
        for node, label in graph.nodes(data="label"):
            parents = [unmarked(printable(parent)) for parent in graph.predecessors(node)]
            lines.append(f"{label} (under {parents[0] if parents else '-'})")
        return "\n".join(lines)
    lines: list[str] = []
    nx.write_network_text(graph, path=lines.append, with_labels=True, end="")
    return "\n".join(lines)



def without_cycles(graph: nx.DiGraph) -> nx.DiGraph:
    """`graph` with each parent cycle cut open, so that what is drawn is a tree.

    Stop here: a damaged or hand-edited file can make entries each other's ancestors (e1 under
    e3, e3 under e2, e2 under e1). The walk from the leaf stops at the first entry it would
    meet a second time, and the conversation starts there; drawn uncut, the cycle shows an
    entry twice, the leaf's mark with it. So the edge into that entry goes, and in a cycle off
    the path, the edge into its entry that comes first in the file.
    """
    start, seen = graph.graph.get("leaf"), set()
    while start in graph and start not in seen:  # up from the leaf, as the walk goes
        seen.add(start)
        parents = list(graph.predecessors(start))
        if not parents or parents[0] in seen:
            break
        start = parents[0]
    graph.remove_edges_from(list(nx.selfloop_edges(graph)))  # an entry its own parent
    order = {node: index for index, node in enumerate(graph)}
    # One parent each: every group of entries that reach each other is one cycle, and no two
    # cycles share an entry (networkx finds the groups in linear time; simple_cycles does not).
    for cycle in [c for c in nx.strongly_connected_components(graph) if len(c) > 1]:
        first = start if start in cycle else min(cycle, key=order.__getitem__)
        graph.remove_edge(next(iter(graph.predecessors(first))), first)
    return graph

# The marks a label gets from the program, and what the same characters become in text from
# the file: a message that says "← leaf" must not show a second leaf.
_MARKS = str.maketrans({"←": "<-", "●": "*", "○": "o"})


def unmarked(text: str) -> str:
    """`text` without the characters of the marks: for what comes from the file."""
    return text.translate(_MARKS)


def depths(graph: nx.DiGraph) -> dict[str, int]:
    """How far each entry is from its root: the column it is drawn in. A node on a parent
    cycle has no root; it goes in column 0 rather than nowhere."""
    found = _from_the_roots(graph)
    return {node: found.get(node, 0) for node in graph}


def _total_depth(graph: nx.DiGraph) -> int:
    """The sum of every entry's depth, an entry on a parent cycle (no root: networkx draws
    the cycle as a chain) counted as deep as the graph is long."""
    found = _from_the_roots(graph)
    return sum(found.get(node, len(graph)) for node in graph)


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


def draw(graph: nx.DiGraph, ax: Axes) -> None:
    """Left to right by depth, coloured by kind. Arrows point from parent to child, the way the
    tree grew; the walk that rebuilds the conversation goes against them, from the leaf up.
    That path is drawn bold; entries off it are faded, their edges thin and dashed; the leaf has
    a red ring and says so; entries an earlier run wrote (`restored`) have a dark outline."""
    bottom_up = {column: nodes[::-1] for column, nodes in columns(graph).items()}
    pos = nx.multipartite_layout(graph, subset_key=bottom_up, align="vertical")
    nodes, kind_colours = graph.nodes, graph.graph["colours"]
    colours = [kind_colours.get(nodes[n]["kind"], UNKNOWN_COLOUR) for n in graph]
    outlines = ["#222222" if nodes[n]["restored"] else "none" for n in graph]
    alphas = [1.0 if nodes[n]["on_path"] else 0.35 for n in graph]
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
    solid = [(a, b) for a, b in graph.edges if nodes[b]["on_path"]]
    dashed = [(a, b) for a, b in graph.edges if not nodes[b]["on_path"]]
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
    grey = {  # drawn grey: a damaged line, or a kind the step does not know
        nodes[n]["kind"] if nodes[n]["known"] else "unknown kind"
        for n in graph
        if nodes[n]["kind"] not in kind_colours
    }
    for label in sorted(grey):
        ax.scatter([], [], color=UNKNOWN_COLOUR, s=80, label=_plain(label))
    if any(restored for _, restored in graph.nodes(data="restored")):
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
