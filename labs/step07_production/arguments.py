"""The production step's own options, checked as they are parsed, and `--model` applied.

main.py parses the command line, as in every step; the production step adds its own options
(`add_options`: `--fsync`, `--model`, `--store`, `--convert`), and checks two arguments before
any file is touched: a model name the harness can resolve (`model_name`), and a folder name
that is not empty (`folder_name`). Once the session is open, `--model` is recorded over the
session's model (`chosen_model`). `--convert PATH` moves a session to the other store
(`converted`), and is the whole run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from commands import Chat, model_command
from messages import shortened
from model import DEFAULT_MODEL
from model_registry import MODELS
from stores import STORES, convert


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options only the production step has."""
    parser.add_argument(
        "--fsync",
        action="store_true",
        help="wait until the disk has each saved line (survives a power loss; slower)",
    )
    parser.add_argument(
        "--model",
        type=model_name,
        metavar="NAME",
        help=f"who answers: {', '.join(MODELS)} (default {DEFAULT_MODEL}), or openai:NAME",
    )
    parser.add_argument(
        "--store",
        choices=sorted(STORES),
        default="jsonl",
        help="where a new session is kept: DIR/ID.jsonl, a text file (the default), or "
        "DIR/ID.sqlite, a SQLite database; --continue resumes a session of either kind, in "
        "its own store, whatever --store says",
    )
    parser.add_argument(
        "--convert",
        type=session_path,
        metavar="PATH",
        help="copy the session at PATH into the other store beside it (same id, the other "
        "suffix; never over an existing file), print its name, and end",
    )


def session_path(text: str) -> Path:
    """--convert's PATH: a name that ends in a store's suffix."""
    path = Path(text)
    if not path.name.endswith(tuple(store.suffix for store in STORES.values())):
        raise argparse.ArgumentTypeError(f"not a session's name (*.jsonl, *.sqlite): {text}")
    return path


def converted(path: Path, fsync: bool) -> str:
    """--convert PATH: the session copied to the other store; the one line that says so."""
    return f"converted {path} to {convert(path, fsync=fsync)}"


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
