"""A session's entries as a graph: each entry is a node, each parentId an edge.

`network_text` shows it as indented text; the lab's notebooks draw it as a picture
(labtools.draw, not in this folder) from the node attributes set here.
The graph knows the leaf and the path from it, which is the conversation: the picture fades an
entry off the path (in the file, not in the history).
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
}


def entry_graph(path: Path) -> nx.DiGraph:
    """Read a session file and build the graph of its entries, its leaf marked."""
    reading = read_session(path)
    return tree_graph(reading.by_id, reading.leaf_id)


def tree_graph(entries: Mapping[str, Entry], leaf: str | None) -> nx.DiGraph:
    """The graph parent -> child of `entries`, with the path from `leaf` marked.

    Node attributes: `kind`, `known`, `text`, `label`, `leaf`, `on_path` (the entry is part of
    the conversation). A parent missing from the file gets no edge: a root.
    """
    on_path = {entry["id"] for entry in path_to_leaf(entries, leaf).entries}
    graph = nx.DiGraph(leaf=leaf, colours=KIND_COLOURS)
    for entry_id, entry in entries.items():
        summary = summarize(entry, 34)
        label = f"{entry_id} {summary.kind}"
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
    """The graph as indented text, one entry per line (what nbval compares)."""
    lines: list[str] = []
    nx.write_network_text(graph, path=lines.append, with_labels=True, end="")
    return "\n".join(lines)
