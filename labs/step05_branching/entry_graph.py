"""A session's entries as a graph: each entry is a node, each parentId an edge.

`network_text` shows it as indented text; the lab's notebooks draw it as a picture
(labtools.draw, not in this folder) from the node attributes set here.
The graph knows the leaf and the path from it, which is the conversation: the picture fades an
entry off the path (in the file, not in the history).
New in step 05: a branch entry has its own colour, and `/tree` prints `tree_graph` of the
entries in memory, ● on the active path, ○ off it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import networkx as nx

from entries import Entry, path_to_leaf, summarize
from session import read_session

KIND_COLOURS = {
    "user": "#8ecae6",
    "assistant": "#ffb703",
    "toolResult": "#b5e48c",
    "model": "#cdb4db",  # a model_change: each kind in its own colour
    "branch": "#f4978e",  # a leaf move
}


def entry_graph(path: Path) -> nx.DiGraph:
    """Read a session file and build the graph of its entries, its leaf marked."""
    reading = read_session(path)
    return tree_graph(reading.by_id, reading.leaf_id)


def tree_graph(entries: Mapping[str, Entry], leaf: str | None) -> nx.DiGraph:
    """The graph parent -> child of `entries`, with the path from `leaf` marked.

    Node attributes: `kind`, `known`, `text`, `label`, `leaf`, `on_path` (the entry is part of
    the conversation). A parent missing from the file gets no edge: a root.
    Labels start with ● on the active path and ○ off it, so the text form shows the branches.
    """
    on_path = {entry["id"] for entry in path_to_leaf(entries, leaf).entries}
    graph = nx.DiGraph(leaf=leaf, colours=KIND_COLOURS)
    for entry_id, entry in entries.items():
        summary = summarize(entry, 34)
        marker = "●" if entry_id in on_path else "○"
        label = f"{marker} {entry_id} {summary.kind}"
        unknown = " (a kind this step does not know)"
        label += f": {summary.text}" if summary.known else unknown
        label += " ← leaf" if entry_id == leaf else ""
        graph.add_node(
            entry_id,
            kind=summary.kind,
            known=summary.known,
            text=summary.text,
            label=label,
            on_path=entry_id in on_path,
            leaf=entry_id == leaf,
        )
    for entry_id, entry in entries.items():
        if entry["parentId"] in entries:
            graph.add_edge(entry["parentId"], entry_id)
    return graph


def network_text(graph: nx.DiGraph) -> str:
    """The graph as text, one entry per line (what nbval compares). A conversation reads down
    the page; only a fork indents, each branch under `├── ` or `└── `, so a long conversation
    stays as narrow as its forks are deep."""
    lines: list[str] = []
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
