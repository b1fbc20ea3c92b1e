"""The production step's own options, checked as they are parsed, and `--model` applied.

main.py parses the command line, as in every step; the production step adds `--model` and
`--fsync` there, and checks two arguments before any file is touched: a model name the harness
can resolve (`model_name`), and a folder name that is not empty (`folder_name`). Once the
session is open, `--model` is recorded over the session's model (`chosen_model`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from commands import Chat, model_command
from messages import shortened
from model_registry import MODELS


def model_name(text: str) -> str:
    """A name the harness can resolve: a scripted model's, or openai:NAME (any endpoint's)."""
    if text not in MODELS:
        raise argparse.ArgumentTypeError(f"no model {text} (try openai:NAME)")
    return text


def folder_name(text: str) -> Path:
    """An empty name is no folder: Path("") would quietly be the current one."""
    if not text:
        raise argparse.ArgumentTypeError("an empty name is not a folder")
    return Path(text)


def chosen_model(chat: Chat, chosen: str | None) -> str:
    """Take `--model NAME`, if given, over the session's model, and name the model that
    answers, for the first line: once, and saying what it overrode.

    The switch is the one `/model NAME` makes, recorded (if it changes anything), so that
    --continue restores it. Given explicitly, it wins over the model the file recorded,
    even one this program lacks, or a real one whose key is not set: that is how a user
    takes a session back from a model that cannot answer here.
    """
    if chosen is None:
        return f"model {chat.model}"
    recorded = chat.recorded_model
    model_command(chat, chosen)  # writes the switch, unless it is the model in force already
    if recorded in (None, chosen):
        return f"model {chosen}"
    over = shortened(recorded, 60)  # a file's: any length
    return f"model {chosen}, by --model, over the session's {over}"
