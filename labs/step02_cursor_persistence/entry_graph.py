"""A session's entries as a graph: each entry is a node, each parentId an edge.

In this step every entry hangs under the one before it, so the graph is a chain: the whole file
is the conversation, and its last entry the leaf. tree_drawing.py shows it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path

import networkx as nx

from entries import Entry, summarize
from messages import printable
from session import read_session
from tree_drawing import columns, draw, network_text, unmarked, without_cycles  # noqa: F401

KIND_COLOURS = {
    "user": "#8ecae6",
    "assistant": "#ffb703",
    "toolResult": "#b5e48c",
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
    """
    on_path = set(entries)  # a chain: every entry is on the path to the last one
    graph = nx.DiGraph(leaf=leaf, colours=KIND_COLOURS)
    for entry_id, entry in entries.items():
        summary = summarize(entry, 34)
        label = f"{unmarked(printable(entry_id))} {unmarked(summary.kind)}"
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
