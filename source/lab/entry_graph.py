# >>file 02
# >> 02 until 03
# """A session's entries as a graph: each entry is a node, each parentId an edge.
#
# `network_text` shows it as indented text; the lab's notebooks draw it as a picture
# (labtools.draw, not in this folder) from the node attributes set here.
# In this step every entry hangs under the one before it, so the graph is a chain: the whole file
# is the conversation, and its last entry the leaf.
# """
# << 02 until 03
# >> 03 until 04
# """A session's entries as a graph: each entry is a node, each parentId an edge.
#
# `network_text` shows it as indented text; the lab's notebooks draw it as a picture
# (labtools.draw, not in this folder) from the node attributes set here.
# The graph knows the leaf and the path from it, which is the conversation: the picture fades an
# entry off the path (in the file, not in the history).
# """
# << 03 until 04
# >> 04 until 05
# """A session's entries as a graph: each entry is a node, each parentId an edge.
#
# `network_text` shows it as indented text; the lab's notebooks draw it as a picture
# (labtools.draw, not in this folder) from the node attributes set here.
# The graph knows the leaf and the path from it, which is the conversation: the picture fades an
# entry off the path (in the file, not in the history).
# New in step 04: a model_change has its own colour.
# """
# << 04 until 05
# >> 05 until 06
# """A session's entries as a graph: each entry is a node, each parentId an edge.
#
# `network_text` shows it as indented text; the lab's notebooks draw it as a picture
# (labtools.draw, not in this folder) from the node attributes set here.
# The graph knows the leaf and the path from it, which is the conversation: the picture fades an
# entry off the path (in the file, not in the history).
# New in step 05: a branch entry has its own colour, and `/tree` prints `tree_graph` of the
# entries in memory, ● on the active path, ○ off it.
# """
# << 05 until 06
# >> 06
"""A session's entries as a graph: each entry is a node, each parentId an edge.

`network_text` shows it as indented text; the lab's notebooks draw it as a picture
(labtools.draw, not in this folder) from the node attributes set here.
The graph knows the leaf and the path from it, which is the conversation: the picture fades an
entry off the path (in the file, not in the history).
New in step 05: a branch entry has its own colour, and `/tree` prints `tree_graph` of the
entries in memory, ● on the active path, ○ off it.
New in step 06: a compaction has its own colour, and what it summarised is off the path: the
walk from the leaf ends at what it keeps.
"""
# << 06

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import networkx as nx

from entries import Entry, summarize

# >> 03
from entries import path_to_leaf

# << 03
from session import read_session

# >> prod
from terminal_text import printable

# << prod

KIND_COLOURS = {
    "user": "#8ecae6",
    "assistant": "#ffb703",
    "toolResult": "#b5e48c",
    # >> 04
    "model": "#cdb4db",  # a model_change: each kind in its own colour
    # << 04
    # >> 05
    "branch": "#f4978e",  # a leaf move
    # << 05
    # >> 06
    "compaction": "#ffd6a5",  # a summary stands in for what came before
    # << 06
}
# >> prod
# How many columns of indentation a text drawing may take in all: about 1 MB of text.
MAX_INDENT_COLUMNS = 1_000_000
# << prod


def entry_graph(path: Path) -> nx.DiGraph:
    """Read a session file and build the graph of its entries, its leaf marked."""
    reading = read_session(path)
    return tree_graph(reading.by_id, reading.leaf_id)


def tree_graph(entries: Mapping[str, Entry], leaf: str | None) -> nx.DiGraph:
    # >> 02 until 03
    # """The graph parent -> child of `entries`, the leaf marked. Node attributes: `kind`,
    # `known`, `text`, `label`, `leaf`. A parent missing from the file gets no edge: a root."""
    # << 02 until 03
    # >> 03
    # >> 03 until 05
    # """The graph parent -> child of `entries`, with the path from `leaf` marked.
    #
    # Node attributes: `kind`, `known`, `text`, `label`, `leaf`, `on_path` (the entry is part of
    # the conversation). A parent missing from the file gets no edge: a root.
    # """
    # << 03 until 05
    # >> 05
    """The graph parent -> child of `entries`, with the path from `leaf` marked.

    Node attributes: `kind`, `known`, `text`, `label`, `leaf`, `on_path` (the entry is part of
    the conversation). A parent missing from the file gets no edge: a root.
    Labels start with ● on the active path and ○ off it, so the text form shows the branches.
    """
    # << 05
    on_path = {entry["id"] for entry in path_to_leaf(entries, leaf).entries}
    # << 03
    graph = nx.DiGraph(leaf=leaf, colours=KIND_COLOURS)
    for entry_id, entry in entries.items():
        summary = summarize(entry, 34)
        # >> 02 until 05
        # label = f"{entry_id} {summary.kind}"
        # << 02 until 05
        # >> 05 until prod
        # marker = "●" if entry_id in on_path else "○"
        # label = f"{marker} {entry_id} {summary.kind}"
        # << 05 until prod
        # >> prod
        marker = "●" if entry_id in on_path else "○"
        label = f"{marker} {unmarked(printable(entry_id))} {unmarked(summary.kind)}"
        # << prod
        unknown = " (a kind this step does not know)"
        # >> 02 until prod
        # label += f": {summary.text}" if summary.known else unknown
        # << 02 until prod
        # >> prod
        label += f": {unmarked(summary.text)}" if summary.known else unknown
        # << prod
        label += " ← leaf" if entry_id == leaf else ""
        graph.add_node(
            entry_id,
            kind=summary.kind,
            known=summary.known,
            text=summary.text,
            label=label,
            # >> 03
            on_path=entry_id in on_path,
            # << 03
            leaf=entry_id == leaf,
        )
    for entry_id, entry in entries.items():
        if entry["parentId"] in entries:
            graph.add_edge(entry["parentId"], entry_id)
    # >> 02 until prod
    # return graph
    # << 02 until prod
    # >> prod
    return without_cycles(graph)
    # << prod


def network_text(graph: nx.DiGraph) -> str:
    # >> 02 until prod
    # """The graph as text, one entry per line (what nbval compares). A conversation reads down
    # the page; only a fork indents, each branch under `├── ` or `└── `, so a long conversation
    # stays as narrow as its forks are deep."""
    # << 02 until prod
    # >> prod
    """The graph as text, one entry per line (what nbval compares). A conversation reads down
    the page; only a fork indents, each branch under `├── ` or `└── `, so a long conversation
    stays as narrow as its forks are deep.

    Stop here: a file can still nest forks ten thousand deep, and indenting each would take
    gigabytes. Past MAX_INDENT_COLUMNS of indentation in all, the entries are listed flat
    instead, one line per entry naming its parent: the same labels and ids, in text that grows
    with the number of entries.
    """
    # << prod
    lines: list[str] = []
    # >> prod
    columns = 0  # of indentation so far
    # << prod
    drawn: set[str] = set()
    # Every root, then whatever a parent cycle left without one (a damaged or edited file).
    starts = [node for node, parents in graph.in_degree() if parents == 0] + list(graph)
    for start in starts:
        # Each to draw: an entry, the start of its line, the start of the lines under it.
        stack = [(start, "", "")]
        while stack:
            node, first, under = stack.pop()
            if node in drawn:
                continue
            drawn.add(node)
            # >> prod
            columns += len(first)
            if columns > MAX_INDENT_COLUMNS:
                return _flat_text(graph)
            # << prod
            lines.append(first + graph.nodes[node]["label"])
            children = [child for child in graph.successors(node) if child not in drawn]
            if len(children) == 1:  # the conversation goes on: no indent
                stack.append((children[0], under, under))
                continue
            for index, child in reversed(list(enumerate(children))):
                last = index == len(children) - 1
                branch, goes_on = ("└── ", "    ") if last else ("├── ", "│   ")
                stack.append((child, under + branch, under + goes_on))
    return "\n".join(lines)


# >> prod


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


def _flat_text(graph: nx.DiGraph) -> str:
    """Every entry on a line of its own, with the one it hangs under."""
    lines = [f"(too deep to draw: {len(graph):,} entries, each with the one it hangs under)"]
    for node, label in graph.nodes(data="label"):
        parents = [unmarked(printable(parent)) for parent in graph.predecessors(node)]
        lines.append(f"{label} (under {parents[0] if parents else '-'})")
    return "\n".join(lines)


# << prod
