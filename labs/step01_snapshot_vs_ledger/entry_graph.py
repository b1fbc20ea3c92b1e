"""The ledger's entries as a graph: each entry is a node, each parentId an edge.

In this step every entry hangs under the one before it, so the graph is a chain. The same
drawing turns into a tree once entries can hang under older ones (step 05).
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx
from matplotlib.axes import Axes

from ledger_store import read_ledger
from messages import message_text


def short(text: str, width: int = 22) -> str:
    """`text` on one line, cut to `width` characters."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def entry_graph(path: Path) -> nx.DiGraph:
    """Read a session file and build the graph parent -> child of its message entries."""
    graph = nx.DiGraph()
    for entry in read_ledger(path).entries:
        message = entry["message"]
        graph.add_node(
            entry["id"],
            role=message["role"],
            label=f"{entry['id']} {message['role']}: {short(message_text(message))}",
        )
        if entry["parentId"] is not None:
            graph.add_edge(entry["parentId"], entry["id"])
    return graph


def network_text(graph: nx.DiGraph) -> str:
    """The graph as indented text, one entry per line (what nbval compares)."""
    lines: list[str] = []
    nx.write_network_text(graph, path=lines.append, with_labels=True, end="")
    return "\n".join(lines)


def draw(graph: nx.DiGraph, ax: Axes) -> None:
    """Draw the entries left to right by depth (distance from the first entry)."""
    # Depth = number of parent links up to a root. multipartite_layout puts each depth in
    # its own column, so a chain is a row and a tree fans out: the layout step 05 needs too.
    for root in (node for node, degree in graph.in_degree() if degree == 0):
        for node, depth in nx.single_source_shortest_path_length(graph, root).items():
            graph.nodes[node]["depth"] = depth
    pos = nx.multipartite_layout(graph, subset_key="depth", align="vertical")
    colours = ["#8ecae6" if graph.nodes[n]["role"] == "user" else "#ffb703" for n in graph]
    nx.draw_networkx_nodes(graph, pos, ax=ax, node_color=colours, node_size=900)
    nx.draw_networkx_edges(graph, pos, ax=ax, arrows=True, arrowsize=15, node_size=900)
    nx.draw_networkx_labels(graph, pos, ax=ax, labels={n: n for n in graph}, font_size=9)
    for node, (x, y) in pos.items():  # the message text, under its node
        text = graph.nodes[node]["label"].split(": ", 1)[1]
        ax.annotate(
            text,
            (x, y),
            xytext=(0, -28),
            textcoords="offset points",
            ha="center",
            va="top",
            fontsize=8,
        )
    ax.set_axis_off()
