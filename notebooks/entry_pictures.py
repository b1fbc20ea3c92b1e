"""The picture of a session's entry tree, for the notebooks (labtools re-exports `draw`).

A step's `entry_graph.py` builds the graph (which entries there are, which are the
conversation, how each is labelled) and names its colours; this module only draws it, with
networkx and matplotlib, left to right from the first entry. It reads the node attributes every
step from 02 sets (`kind`, `text`, `leaf`, `known`, and from step 03 on `on_path`), so the same
picture serves every step. Step 01's graph, older than the rest, sets only `role` and `label`:
it is drawn with the roles' colours, and has no leaf. A program never draws: it prints
`network_text`.

The layout keeps the conversation on one straight row: the path from the leaf is the bottom
row, every other branch a row of its own above it, the first written on top, so that every
picture puts what is off the conversation on the same side and no two edges cross.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Collection
from itertools import pairwise

import networkx as nx
from matplotlib.axes import Axes
from matplotlib.colors import to_rgb

UNKNOWN_COLOUR = "#dddddd"  # a kind the step does not know
# The leaf's ring: black, a colour no kind of entry is drawn in (every kind is a pale colour).
LEAF_COLOUR = "#111111"
RESTORED_COLOUR = "#7a7a7a"  # the halo around an entry an earlier run wrote
PATH_COLOUR = "#333333"  # the outline of an entry on the conversation, and the path's arrows
OFF_PATH_FILL = "white"  # an entry off the conversation is drawn hollow
ROLE_COLOURS = {"user": "#8ecae6", "assistant": "#ffb703", "toolResult": "#b5e48c"}  # step 01
CAPTION_WIDTH = 14  # characters per line of the text under a node
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
    meets them, children in file order.

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


def main_line(graph: nx.DiGraph) -> list[str]:
    """The entries drawn on the main row, the bottom one: the path from the leaf up to its
    root (the conversation); without a leaf, the first root's first branch."""
    leaves = [node for node in graph if graph.nodes[node].get("leaf")]
    if leaves:
        line, node = [], leaves[0]
        while node is not None and node not in line:  # a parent cycle ends it too
            line.append(node)
            node = next(iter(graph.predecessors(node)), None)
        return line[::-1]
    roots = [node for node, degree in graph.in_degree() if degree == 0] or list(graph)[:1]
    line = roots[:1]
    while line and (children := list(graph.successors(line[-1]))) and children[0] not in line:
        line.append(children[0])
    return line


def positions(graph: nx.DiGraph) -> dict[str, tuple[float, float]]:
    """Where each entry is drawn: x its depth, y its row (the main line at 0, above it > 0).
    Every row but the main line's is above it: another root's entries, a parent cycle's."""
    line = main_line(graph)
    main = set(line)
    seen: set[str] = set()
    depth: dict[str, int] = {}
    above: list[list[str]] = []
    main_block: list[list[str]] = []
    roots = [node for node, degree in graph.in_degree() if degree == 0]
    for start in [*roots, *graph]:  # then entries on a parent cycle, which no root leads to
        if start in seen:
            continue
        block = _rows_from(graph, start, main, seen, depth, 0)
        if line and any(line[0] in row for row in block):
            main_block = block
        else:
            above.extend(block)
    rows = [*above, *main_block]
    row_of = {node: index for index, row in enumerate(rows) for node in row}
    middle = row_of[line[0]] if line else 0
    return {node: (float(depth[node]), float(middle - row_of[node])) for node in graph}


def _rows_from(
    graph: nx.DiGraph, start: str, main: set[str], seen: set[str], depth: dict[str, int],
    start_depth: int,
) -> list[list[str]]:  # fmt: skip
    """The rows the entries from `start` down take, top to bottom. `start`'s row goes on
    through its child on the main line (else its first child); each other child starts rows
    of its own above it, in the order they were written. A branch that leaves the row further
    right sits nearer to it, so that no edge crosses another."""
    row: list[str] = [start]
    above: list[list[str]] = []
    seen.add(start)
    depth[start] = start_depth
    node = start
    while children := [child for child in graph.successors(node) if child not in seen]:
        on_main = [child for child in children if child in main] if node in main else []
        going_on = (on_main or children)[0]
        seen.add(going_on)
        for child in children:
            if child != going_on:
                above += _rows_from(graph, child, main, seen, depth, depth[node] + 1)
        depth[going_on] = depth[node] + 1
        row.append(going_on)
        node = going_on
    return [*above, row]


def path_edges(graph: nx.DiGraph) -> set[tuple[str, str]]:
    """The edges the walk from the leaf goes along: between two neighbours on the main line,
    both on the path. An edge into the path from an entry off it (the entry before what a
    compaction keeps, or one on a parent cycle) is not one. A graph that marks no path (steps 01
    and 02) is its conversation: every edge."""
    nodes = graph.nodes
    if not any("on_path" in nodes[n] for n in graph):
        return set(graph.edges)
    line = main_line(graph)
    return {
        (parent, child)
        for parent, child in pairwise(line)
        if nodes[parent]["on_path"] and nodes[child]["on_path"]
    }


def figure_size(graph: nx.DiGraph) -> tuple[float, float]:
    """A figure size (inches) that leaves every caption room: about an inch per column, and
    an inch and a half per row (a caption of three lines, and the word leaf above a ring)."""
    placed = positions(graph).values()
    columns_used = 1 + max((x for x, _ in placed), default=0)
    rows_used = 1 + max((y for _, y in placed), default=0) - min((y for _, y in placed), default=0)
    return (max(6.0, 1.0 * columns_used + 2.2), 0.6 + 1.5 * rows_used)


def caption(text: str, width: int = CAPTION_WIDTH) -> str:
    """The text under a node, on at most three short lines. A word longer than a line (a big
    number) is cut with …, never broken in two, so no number reads as two."""
    words = [w if len(w) <= width else w[: width - 1] + "…" for w in text.split()]
    return textwrap.fill(" ".join(words), width, max_lines=3, placeholder=" …",
                         break_long_words=False)  # fmt: skip


def draw(graph: nx.DiGraph, ax: Axes, restored: Collection[str] = ()) -> None:
    """Left to right by depth, coloured by kind; arrows point from parent to child, the way
    the file grew. The leaf has a black ring and says so.

    The walk that rebuilds the conversation goes against the arrows, from the leaf up: that
    path is the straight bottom row, its entries filled and outlined, its arrows solid
    (`path_edges`); entries off it are hollow with a dashed outline, every other arrow dashed.
    The entries `restored` names (what an earlier run wrote, say) have a grey halo.
    """
    pos = positions(graph)
    nodes = graph.nodes
    kind_colours = graph.graph.get("colours", ROLE_COLOURS)
    kind = {n: nodes[n].get("kind", nodes[n].get("role", "")) for n in graph}
    text = {n: nodes[n].get("text", nodes[n].get("label", "").partition(": ")[2]) for n in graph}
    on_path = {n: nodes[n].get("on_path", True) for n in graph}
    colour = {n: kind_colours.get(kind[n], UNKNOWN_COLOUR) for n in graph}
    # On the conversation: filled, a solid dark outline. Off it: hollow, a dashed outline in the
    # kind's colour, darkened so that a pale kind (a compaction, grey) still shows on white.
    drawn_nodes = nx.draw_networkx_nodes(
        graph,
        pos,
        ax=ax,
        node_color=[colour[n] if on_path[n] else OFF_PATH_FILL for n in graph],
        node_size=900,
        edgecolors=[PATH_COLOUR if on_path[n] else darker(colour[n]) for n in graph],
        linewidths=[1.5 if on_path[n] else 2.0 for n in graph],
    )
    drawn_nodes.set_linestyle(["solid" if on_path[n] else (0, (2, 2)) for n in graph])
    halos = [n for n in graph if n in restored]
    nx.draw_networkx_nodes(  # a grey halo around what an earlier run wrote
        graph, pos, nodelist=halos, ax=ax, node_size=1250, node_color="none",
        edgecolors=RESTORED_COLOUR, linewidths=3,
    )  # fmt: skip
    on = path_edges(graph)
    solid = [edge for edge in graph.edges if edge in on]
    dashed = [edge for edge in graph.edges if edge not in on]
    for edges, style, width in ((solid, "solid", 2.8), (dashed, "dashed", 1.0)):
        nx.draw_networkx_edges(
            graph, pos, edgelist=edges, ax=ax, style=style, width=width, arrows=True,
            arrowsize=15, node_size=900, edge_color=PATH_COLOUR if width > 2 else "#999999",
        )  # fmt: skip
    leaves = [n for n in graph if nodes[n].get("leaf")]
    nx.draw_networkx_nodes(  # a ring around the leaf: where the next entry will hang
        graph, pos, nodelist=leaves, ax=ax, node_size=1700, node_color="none",
        edgecolors=LEAF_COLOUR, linewidths=3,
    )  # fmt: skip
    for leaf in leaves:
        ax.annotate("leaf", pos[leaf], xytext=(0, 25), textcoords="offset points", ha="center",
                    color=LEAF_COLOUR, fontsize=9, fontweight="bold")  # fmt: skip
    longest = max((len(printable(n)) for n in graph), default=0)
    font_size = 9 if longest <= 4 else 7 if longest <= 6 else 6  # e20000 still fits its node
    for kept, font_colour in ((True, "#111111"), (False, "#888888")):
        labels = {n: _plain(printable(n)) for n in graph if on_path[n] == kept}
        nx.draw_networkx_labels(graph, pos, ax=ax, labels=labels, font_size=font_size,
                                font_color=font_colour)  # fmt: skip
    for node, (x, y) in pos.items():  # the message text, under its node, on short lines
        ax.annotate(
            caption(printable(text[node])),
            (x, y),
            xytext=(0, -24),
            textcoords="offset points",
            ha="center",
            va="top",
            fontsize=8,
            parse_math=False,
        )
    drawn = dict.fromkeys(kind[n] for n in graph)  # the legend names what is drawn
    for name, colour in kind_colours.items():  # an invisible point per kind, for the legend
        if name in drawn:
            ax.scatter([], [], color=colour, s=80, label=name)
    grey = {  # drawn grey: a kind the step does not know, or one it does but draws grey
        kind[n] if nodes[n].get("known", True) else "unknown kind"
        for n in graph
        if kind[n] not in kind_colours
    }
    for label in sorted(grey):
        ax.scatter([], [], color=UNKNOWN_COLOUR, s=80, label=_plain(printable(label)))
    if leaves:
        ax.scatter([], [], color="white", edgecolors=LEAF_COLOUR, linewidths=2, s=140,
                   label="the leaf")  # fmt: skip
    if any(n in restored for n in graph):
        ax.scatter(
            [], [], color="white", edgecolors=RESTORED_COLOUR, linewidths=2, s=80,
            label="restored",
        )  # fmt: skip
    if not all(on_path.values()):
        ax.scatter([], [], color=OFF_PATH_FILL, edgecolors="#999999", linewidths=1.5, s=80,
                   linestyles="--", label="off the conversation")  # fmt: skip
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    note = "arrows: parent → child"
    if leaves:
        note += "; the conversation is read from the leaf back"
    ax.text(0, 0, note, transform=ax.transAxes, fontsize=7, color="#666666", va="top")
    xs = [x for x, _ in pos.values()] or [0.0]
    ys = [y for _, y in pos.values()] or [0.0]
    ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)  # room for the ring and the text under a node
    ax.set_ylim(min(ys) - 0.75, max(ys) + 0.5)
    ax.set_axis_off()


def darker(colour: str, share: float = 0.35) -> tuple[float, float, float]:
    """`colour` mixed with black: an outline that shows on white, however pale the kind."""
    return tuple(channel * (1 - share) for channel in to_rgb(colour))  # type: ignore[return-value]


def _plain(text: str) -> str:
    """Matplotlib reads $...$ as mathematics (and raises on bad TeX): show a $ as a $."""
    return text.replace("$", r"\$")
