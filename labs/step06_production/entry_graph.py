"""A session's entries as a graph: each entry is a node, each parentId an edge.

The graph knows the leaf and the path from it, which is the conversation; tree_drawing.py shows
it (an entry off the path faded, with a dashed edge: in the file, not in the history). New in
step 05: a branch entry has its own colour, and `/tree` prints `tree_graph` of the entries in
memory, ● on the active path, ○ off it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path

import networkx as nx

from entries import Entry, path_to_leaf, summarize
from messages import printable
from session import read_session
from tree_drawing import columns, draw, network_text, unmarked, without_cycles  # noqa: F401

KIND_COLOURS = {
    "user": "#8ecae6",
    "assistant": "#ffb703",
    "toolResult": "#b5e48c",
    "model": "#cdb4db",  # a model_change: each kind in its own colour
    "branch": "#f4978e",  # a leaf move
}


def entry_graph(path: Path, restored: Collection[str] = ()) -> nx.DiGraph:
    """Read a session file and build the graph of its entries; the leaf is the last one."""
    reading = read_session(path)
    return tree_graph(reading.by_id, reading.leaf_id, restored)


def tree_graph(
    entries: Mapping[str, Entry], leaf: str | None, restored: Collection[str] = ()
) -> nx.DiGraph:
    """The graph parent -> child of `entries`, with the path from `leaf` marked.

    Node attributes: `kind`, `known`, `text`, `label`, `restored`, `on_path` (the entry is
    part of the conversation), `leaf`. A parent missing from the file gets no edge: a root.
    Labels start with ● on the active path and ○ off it, so the text form shows the branches.
    """
    on_path = {entry["id"] for entry in path_to_leaf(entries, leaf).entries}
    graph = nx.DiGraph(leaf=leaf, colours=KIND_COLOURS)
    for entry_id, entry in entries.items():
        summary = summarize(entry, 34)
        marker = "●" if entry_id in on_path else "○"
        label = f"{marker} {unmarked(printable(entry_id))} {unmarked(summary.kind)}"
        unknown = " (a kind this step does not know)"
        label += f": {unmarked(summary.text)}" if summary.known else unknown
        was_restored = entry_id in restored
        label += " (restored)" if was_restored else ""
        label += " ← leaf" if entry_id == leaf else ""
        graph.add_node(
            entry_id,
            kind=summary.kind,
            known=summary.known,
            text=summary.text,
            label=label,
            restored=was_restored,
            on_path=entry_id in on_path,
            leaf=entry_id == leaf,
        )
    for entry_id, entry in entries.items():
        if entry["parentId"] in entries:
            graph.add_edge(entry["parentId"], entry_id)
    return without_cycles(graph)
