"""A session file's entries as a graph: each entry is a node, each parentId an edge.

Same functions as step 02's. New here: the entries a resumed run found in the file can be marked
`restored`, so a picture shows where the old run ends and the new one begins. Every entry still
hangs under the one before it, so the graph is still a chain.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import networkx as nx
from matplotlib.axes import Axes

from messages import preview
from session import read_session

ROLE_COLOURS = {"user": "#8ecae6", "assistant": "#ffb703", "toolResult": "#b5e48c"}


def entry_graph(path: Path, restored: Collection[str] = ()) -> nx.DiGraph:
    """Read a session file and build the graph parent -> child of its entries.

    `restored` holds the ids of entries that an earlier run wrote and `--continue` replayed.
    An entry of a kind this step does not know becomes a grey node named by its kind.
    """
    graph = nx.DiGraph()
    for entry in read_session(path).entries:
        if entry["type"] == "message":
            role, text = entry["message"]["role"], preview(entry["message"], 34)
        else:
            role, text = entry["type"], ""
        label = f"{entry['id']} {role}: {text}" if text else f"{entry['id']} {role}"
        was_restored = entry["id"] in restored
        if was_restored:
            label += " (restored)"
        graph.add_node(entry["id"], role=role, text=text, restored=was_restored, label=label)
        if entry["parentId"] is not None:
            graph.add_edge(entry["parentId"], entry["id"])
    return graph


def network_text(graph: nx.DiGraph) -> str:
    """The graph as indented text, one entry per line (what nbval compares)."""
    lines: list[str] = []
    nx.write_network_text(graph, path=lines.append, with_labels=True, end="")
    return "\n".join(lines)


def draw(graph: nx.DiGraph, ax: Axes) -> None:
    """Draw the entries left to right by depth (distance from the first entry), coloured by role.

    Restored entries get a thick dark outline; the ones this run added have none.
    """
    for root in (node for node, degree in graph.in_degree() if degree == 0):
        for node, depth in nx.single_source_shortest_path_length(graph, root).items():
            graph.nodes[node]["depth"] = depth
    pos = nx.multipartite_layout(graph, subset_key="depth", align="vertical")
    colours = [ROLE_COLOURS.get(graph.nodes[n]["role"], "#dddddd") for n in graph]
    outlines = ["#222222" if graph.nodes[n]["restored"] else "none" for n in graph]
    nx.draw_networkx_nodes(
        graph, pos, ax=ax, node_color=colours, node_size=900, edgecolors=outlines, linewidths=2.5
    )
    nx.draw_networkx_edges(graph, pos, ax=ax, arrows=True, arrowsize=15, node_size=900)
    nx.draw_networkx_labels(graph, pos, ax=ax, labels={n: n for n in graph}, font_size=9)
    for node, (x, y) in pos.items():  # the message text, under its node
        text = graph.nodes[node]["text"]
        ax.annotate(
            text,
            (x, y),
            xytext=(0, -28),
            textcoords="offset points",
            ha="center",
            va="top",
            fontsize=7,
            rotation=20,
        )
    for role, colour in ROLE_COLOURS.items():  # an invisible point per role, for the legend
        ax.scatter([], [], color=colour, s=80, label=role)
    if any(restored for _, restored in graph.nodes(data="restored")):
        ax.scatter(
            [], [], color="white", edgecolors="#222222", linewidths=2, s=80, label="restored"
        )
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.set_axis_off()
