# >>file 02
"""A session's entries as a graph: each entry is a node, each parentId an edge.

# >> 02 until 03
In this step every entry hangs under the one before it, so the graph is a chain: the whole file
is the conversation, and its last entry the leaf. tree_drawing.py shows it.
# <<
# >> 03
The graph knows the leaf and the path from it, which is the conversation; tree_drawing.py shows
it (an entry off the path faded, with a dashed edge: in the file, not in the history). New in
# <<
# >> 03 until 04
step 03: the path from the leaf.
# <<
# >> 04 until 05
step 04: a model_change has its own colour.
# <<
# >> 05
step 05: a branch entry has its own colour, and `/tree` prints `tree_graph` of the entries in
memory, ● on the active path, ○ off it.
# <<
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path

import networkx as nx

# >> 02 until 03
from entries import Entry, summarize
# <<
# >> 03
from entries import Entry, path_to_leaf, summarize
# <<
from messages import printable
from session import read_session
from tree_drawing import columns, draw, network_text, unmarked, without_cycles  # noqa: F401

KIND_COLOURS = {
    "user": "#8ecae6",
    "assistant": "#ffb703",
    "toolResult": "#b5e48c",
    # >> 04
    "model": "#cdb4db",  # a model_change: each kind in its own colour
    # <<
    # >> 05
    "branch": "#f4978e",  # a leaf move
    # <<
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
    # >> 05
    Labels start with ● on the active path and ○ off it, so the text form shows the branches.
    # <<
    """
    # >> 02 until 03
    on_path = set(entries)  # a chain: every entry is on the path to the last one
    # <<
    # >> 03
    on_path = {entry["id"] for entry in path_to_leaf(entries, leaf).entries}
    # <<
    graph = nx.DiGraph(leaf=leaf, colours=KIND_COLOURS)
    for entry_id, entry in entries.items():
        summary = summarize(entry, 34)
        # >> 02 until 05
        label = f"{unmarked(printable(entry_id))} {unmarked(summary.kind)}"
        # <<
        # >> 05
        marker = "●" if entry_id in on_path else "○"
        label = f"{marker} {unmarked(printable(entry_id))} {unmarked(summary.kind)}"
        # <<
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
