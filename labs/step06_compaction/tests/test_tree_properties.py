"""Property-based tests: random sequences of messages, model switches, branches, restarts and
crashes (a torn last line), checked after every restart against a small in-memory model of
the tree. Whatever the sequence, the conversation resumed is the model's path from its leaf,
and every byte ever written is still a prefix of the file."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from harness import new_session
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import Message, user_text
from session import Session


@dataclass
class TreeModel:
    """What the file should mean: each entry's parent and what it adds, and the leaf."""

    parents: dict[str, str | None] = field(default_factory=dict)
    adds: dict[str, Message | str | None] = field(default_factory=dict)  # message, model name
    leaf: str | None = None

    def add(self, entry_id: str, parent: str | None, adds: Message | str | None) -> None:
        self.parents[entry_id], self.adds[entry_id], self.leaf = parent, adds, entry_id

    def path(self) -> list[str]:
        ids, current = [], self.leaf
        while current is not None:
            ids.append(current)
            current = self.parents[current]
        return ids[::-1]

    def messages(self) -> list[Message]:
        return [a for a in map(self.adds.get, self.path()) if isinstance(a, dict)]

    def model(self) -> str | None:
        names = [a for a in map(self.adds.get, self.path()) if isinstance(a, str)]
        return names[-1] if names else None


TEXT = st.text(st.characters(max_codepoint=0x3000, exclude_categories=["Cs"]), max_size=12)
OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("message"), TEXT),
        st.tuples(st.just("model"), st.sampled_from(["scripted-v1", "scripted-v2", "other"])),
        st.tuples(st.just("branch"), st.integers(min_value=0, max_value=200)),
        st.tuples(st.just("reopen"), st.just(None)),
        st.tuples(st.just("tear"), st.integers(min_value=1, max_value=60)),
    ),
    max_size=40,
)


def reopen_and_compare(path: Path, model: TreeModel) -> Session:
    resumed = Session.open(path)
    assert resumed.session.leaf_id == model.leaf
    assert resumed.context.messages == model.messages()
    assert resumed.context.model == model.model()
    assert resumed.context.chain_break is None
    return resumed.session


@settings(max_examples=80, deadline=None)
@given(OPERATIONS)
def test_every_restart_resumes_the_path_from_the_leaf(operations: list[tuple]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        session = new_session(folder, "p")
        session.append_message(user_text("first"))
        model = TreeModel()
        model.add("e1", None, user_text("first"))
        written = session.path.read_bytes()
        for kind, value in operations:
            match kind:
                case "message":
                    parent = session.leaf_id
                    entry = session.append_message(user_text(value))
                    model.add(entry["id"], parent, user_text(value))
                case "model":
                    entry = session.append_model_change(value)
                    model.add(entry["id"], model.leaf, value)
                case "branch":
                    ids = list(model.parents)
                    target = ids[value % len(ids)]
                    if target != session.leaf_id:
                        entry = session.append_branch(target)
                        model.add(entry["id"], target, None)
                case "reopen":
                    session = reopen_and_compare(session.path, model)
                case "tear":  # a crash mid-write: the start of a line, and no more
                    line = b'{"type":"message","id":"e999999","parentId":null,"message":{}}\n'
                    with session.path.open("ab") as file:
                        file.write(line[:value])
                    session = reopen_and_compare(session.path, model)
            now = session.path.read_bytes()
            assert now.startswith(written), "an old byte changed"
            written = now
        reopen_and_compare(session.path, model)
