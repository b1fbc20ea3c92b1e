"""A session file's entries as a graph: each entry is a node, each parentId an edge.

Same functions as step 01's, now with three roles: a tool call's result is an entry of its own.
In this step every entry hangs under the one before it, so the graph is still a chain.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx
from matplotlib.axes import Axes

from entries import summarize
from messages import printable
from session import read_session

KIND_COLOURS = {"user": "#8ecae6", "assistant": "#ffb703", "toolResult": "#b5e48c"}
UNKNOWN_COLOUR = "#dddddd"


def entry_graph(path: Path) -> nx.DiGraph:
    """Read a session file and build the graph parent -> child of its entries."""
    graph = nx.DiGraph()
    for entry in read_session(path).entries:
        summary = summarize(entry, 34)
        label = f"{printable(entry['id'])} {summary.kind}"
        label += f": {summary.text}" if summary.known else " (a kind this step does not know)"
        graph.add_node(entry["id"], kind=summary.kind, text=summary.text, label=label)
        if entry["parentId"] is not None:
            graph.add_edge(entry["parentId"], entry["id"])
    return graph


def network_text(graph: nx.DiGraph) -> str:
    """The graph as indented text, one entry per line (what nbval compares)."""
    lines: list[str] = []
    nx.write_network_text(graph, path=lines.append, with_labels=True, end="")
    return "\n".join(lines)


def draw(graph: nx.DiGraph, ax: Axes) -> None:
    """Draw the entries left to right by depth (distance from the first entry), coloured by kind."""
    for root in (node for node, degree in graph.in_degree() if degree == 0):
        for node, depth in nx.single_source_shortest_path_length(graph, root).items():
            graph.nodes[node]["depth"] = depth
    pos = nx.multipartite_layout(graph, subset_key="depth", align="vertical")
    colours = [KIND_COLOURS.get(graph.nodes[n]["kind"], UNKNOWN_COLOUR) for n in graph]
    nx.draw_networkx_nodes(graph, pos, ax=ax, node_color=colours, node_size=900)
    nx.draw_networkx_edges(graph, pos, ax=ax, arrows=True, arrowsize=15, node_size=900)
    labels = {n: _plain(printable(n)) for n in graph}
    nx.draw_networkx_labels(graph, pos, ax=ax, labels=labels, font_size=9)
    for node, (x, y) in pos.items():  # the message text, under its node
        ax.annotate(
            graph.nodes[node]["text"],
            (x, y),
            xytext=(0, -28),
            textcoords="offset points",
            ha="center",
            va="top",
            fontsize=7,
            rotation=20,
            parse_math=False,
        )
    for kind, colour in KIND_COLOURS.items():  # an invisible point per kind, for the legend
        ax.scatter([], [], color=colour, s=80, label=kind)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.set_axis_off()


def _plain(text: str) -> str:
    """Matplotlib reads $...$ as mathematics (and raises on bad TeX): show a $ as a $."""
    return text.replace("$", r"\$")
