"""Which model a name means: the scripted ones, and `openai:NAME` for any NAME (`MODELS`).

The production step's own: the earlier steps keep a plain dict of the scripted models in
model.py. Here the registry also knows the names of real models, makes one only when its name
is first looked up, and says what to install when the SDK is missing (`missing_sdk`). It sits
above model.py, which knows nothing of it.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from model import PLAIN, TERSE, Model, ModelError, ScriptedModel

OPENAI_PREFIX = "openai:"  # openai:NAME is model NAME on an OpenAI-compatible endpoint
# Longer, a name is no model's: an API's model names are a few dozen characters, and a name
# from a file (a model_change line) is data, which must not make a 20 MB warning or request.
MAX_MODEL_NAME = 256


class Models(Mapping[str, Model]):
    """The models a session can switch between, by the name the file records: the scripted
    ones, and `openai:NAME` for any NAME.

    Stop here: a real model is made only when its name is first looked up, and `openai` is
    imported only then, so the scripted default never needs the SDK, a key or a network.
    `name in MODELS` checks only the name's shape; iterating lists the scripted models and the
    real ones made so far.
    """

    def __init__(self, scripted: Mapping[str, Model]) -> None:
        self._made: dict[str, Model] = dict(scripted)

    def __contains__(self, name: object) -> bool:
        return name in self._made or (
            isinstance(name, str)
            and name.startswith(OPENAI_PREFIX)
            and len(OPENAI_PREFIX) < len(name) <= MAX_MODEL_NAME
        )

    def __getitem__(self, name: str) -> Model:
        if name not in self._made:
            if name not in self:
                raise KeyError(name)
            try:
                from openai_model import OpenAIModel  # only when chosen: it imports the SDK
            except ImportError as error:  # a Python without the SDK: say what to install
                raise ModelError(missing_sdk(name, error)) from None

            self._made[name] = OpenAIModel(name.removeprefix(OPENAI_PREFIX))
        return self._made[name]

    def problem(self, name: str) -> str | None:
        """Why the model `name` cannot answer here (a real one without its key), or None:
        asked before a switch is written down, not at the turn after it."""
        try:
            self[name]
        except ModelError as error:
            return str(error)
        return None

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._made))

    def __len__(self) -> int:
        return len(self._made)


def missing_sdk(name: str, error: ImportError) -> str:
    """What to install, and with which Python, when the SDK cannot be imported: the command
    that installs this step's own pinned requirements into the Python that runs it."""
    requirements = Path(__file__).resolve().parent / "requirements.txt"
    install = f"{shlex.quote(sys.executable)} -m pip install -r {shlex.quote(str(requirements))}"
    missing = error.name or "openai"
    return f"{name} needs the openai SDK, and this Python lacks {missing}: {install}"


MODELS = Models(
    {
        "scripted-v1": ScriptedModel("scripted-v1", PLAIN),
        "scripted-v2": ScriptedModel("scripted-v2", TERSE),
    }
)
