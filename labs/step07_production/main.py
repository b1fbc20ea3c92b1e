"""The interactive program: python main.py [--continue] [--session-dir DIR] [--compact-at N]
[--fsync] [--model NAME]

It parses arguments, reads lines, runs the loop and saves each message the moment it is
finished. With --continue it first rebuilds the most recent session's conversation and aligns
the cursor, so only new messages are written, and answers a tool call the last run never
finished. The session file is locked while the run lasts. Every fault a user can meet ends
here as one `error:` or `warning:` line. A turn the model fails, or that Ctrl-C abandons,
ends in one line and the prompt comes back (`turn.take_turn`); Ctrl-C at the prompt, SIGTERM and
SIGHUP end the run in one line.
"""

from __future__ import annotations

try:
    import argparse
    import os
    import secrets
    import sys
    from datetime import UTC, datetime
    from pathlib import Path
    from typing import NoReturn

    sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

    from arguments import add_options, chosen_model, converted, folder_name  # noqa: E402
    from commands import Chat, compact, is_command  # noqa: E402
    from loop import TooManyRounds  # noqa: E402
    from messages import context_size, shortened, unanswered_calls, user_text  # noqa: E402
    from model import DEFAULT_MODEL, HistoryRefused, ModelError  # noqa: E402
    from model_registry import MODELS  # noqa: E402
    from render import counted  # noqa: E402
    from session import Session, SessionError, find_latest_session  # noqa: E402
    from stop_signals import (  # noqa: E402
        Stopped,
        TurnInterrupted,
        ignore_stop_signals,
        stop_signals_deferred,
        stop_signals_end_the_run,
    )
    from stores import STORES, store_for  # noqa: E402
    from terminal import (  # noqa: E402
        InputError,
        OutputError,
        Terminal,
        read_line,
        to_stderr,
        tolerant_streams,
        warn,
    )
    from tools import default_tools, slowed  # noqa: E402
    from turn import run_command_or_fail, take_turn  # noqa: E402
except KeyboardInterrupt:  # Ctrl-C while they run (a tenth of a second): no traceback
    raise SystemExit(130) from None


class UsageError(Exception):
    """Bad input from the command line or the environment."""


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One `error:` line and status 1, as for any other bad input (argparse would exit 2)."""
        raise UsageError(f"{message} (see --help)")


def characters(text: str) -> int:
    """--compact-at's N: a whole number of characters, at least 1, of at most 12 digits."""
    if not (text.isascii() and text.isdigit()) or len(text) > 12 or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a number of characters: {shortened(text, 20)}")
    return int(text)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = ArgumentParser(description="Chat with a scripted model; saved as JSONL or SQLite.")
    parser.add_argument(
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="resume the most recent usable session in DIR (a new one if there is none)",
    )
    parser.add_argument(
        "--session-dir",
        type=folder_name,
        default=Path(".sessions"),
        metavar="DIR",
        help="where session files go (default: .sessions)",
    )
    parser.add_argument(
        "--compact-at",
        type=characters,
        metavar="N",
        help="compact first when a turn's context would be over N characters",
    )
    add_options(parser)  # --fsync, --model, --store, --convert
    return parser.parse_args(argv)


def new_session_id(now: datetime) -> str:
    """Sorts by time; the random suffix keeps two runs in the same second apart."""
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def tool_delay() -> float:
    """LAB_TOOL_DELAY, the seconds each tool call sleeps first: a turn an experiment can kill."""
    raw = os.environ.get("LAB_TOOL_DELAY", "0")
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1
    if not 0 <= seconds <= 60:  # NaN is neither
        raise UsageError(f"LAB_TOOL_DELAY must be a number of seconds, 0 to 60, not {raw!r}")
    return seconds


def working_directory() -> str:
    """The header's `cwd`. A deleted folder or a name that is not UTF-8 cannot be recorded."""
    try:
        cwd = os.getcwd()
    except OSError as error:
        raise UsageError(f"the working directory is unusable: {error.strerror}") from None
    try:
        cwd.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"the working directory's name is not UTF-8 text: {cwd}") from None
    return cwd


def run(args: argparse.Namespace, terminal: Terminal) -> int:
    if args.convert is not None:  # no conversation: the copy, and one line
        stop_signals_end_the_run()
        try:
            terminal.say(converted(args.convert, args.fsync))
        except Stopped as stopped:  # the copy cut short is removed on the way out
            to_stderr(f"warning: {stopped.line()}: nothing was converted")
            return stopped.status
        return 0
    if sys.stdin is None:  # closed (main.py <&-): there is nothing to read a line from
        raise UsageError("standard input is closed")
    stdin = sys.stdin.buffer
    tools = default_tools()
    delay = tool_delay()
    if delay:
        tools = slowed(tools, delay)
    model = MODELS[args.model or DEFAULT_MODEL]  # openai:NAME checks its key before any file
    stop_signals_end_the_run()  # from here on, each ends the run in one line
    chat = open_session(args, terminal)
    MODELS[chat.model]  # a real model the file recorded checks its key now, before any turn
    reported = chat.session.entries.damaged  # the damaged lines open_session has named
    echo = not stdin.isatty()
    try:
        while terminal.failure is None and (line := read_line(stdin, terminal, echo)) is not None:
            if not line.strip():
                continue
            if is_command(line):
                result = run_command_or_fail(chat, line, terminal)
                for shown in result.lines:
                    terminal.say(shown)
                # Entries off the path are checked when a command first uses them (/tree,
                # /branch): damage found then is named too, never silently dropped.
                reported = report_damage(chat, terminal, reported)
                if result.exit:
                    break
                continue
            if not compact_first_if_over(chat, line, args.compact_at, terminal):
                continue  # Ctrl-C abandoned the compaction this turn needed first
            model = MODELS[chat.model]  # a /model command may have switched it
            take_turn(chat, model, tools, line, terminal)
        terminal.check()
    except Stopped as stopped:  # every finished message is in the file already
        cut = unanswered_calls(chat.messages[: chat.cursor])
        note = "; the tool call in progress was stopped (--continue answers it)" if cut else ""
        terminal.say("")
        warn(terminal, f"{stopped.line()}: {what_was_saved(chat)}{note}")
        return stopped.status
    except InputError as error:
        raise InputError(f"{error}; {what_was_saved(chat)}") from None
    finally:
        ignore_stop_signals()
        chat.session.close()
    terminal.say(what_was_saved(chat))
    terminal.check()
    return 0


def compact_first_if_over(chat: Chat, line: str, limit: int | None, terminal: Terminal) -> bool:
    """--compact-at: compact before a turn whose context would be over `limit` characters.
    False if Ctrl-C abandoned the compaction, and with it the turn it came before."""
    if limit is not None and context_size([*chat.messages, user_text(line)]) > limit:
        try:  # a real model's summary may fail: the turn goes on, with the whole context
            done = compact(chat)  # it defers its own write
        except ModelError as error:
            to_stderr(f"error: {error}; the turn goes on uncompacted")
            return True
        except TurnInterrupted:
            why = "the compaction was abandoned, and your line with it"
            warn(terminal, f"interrupted: {why} (Ctrl-C at the prompt ends the run)")
            return False
        if done is not None:  # (with only one turn, there is nothing to compact)
            terminal.say(f"{done}: the context was over {limit} characters")
    return True


def report_damage(chat: Chat, terminal: Terminal, reported: int) -> int:
    """One `warning:` line for the damaged lines found since `reported`; the new count."""
    if (found := chat.session.entries.damaged - reported) > 0:
        lines = "line" if found == 1 else "lines"
        shown = chat.session.path
        warn(terminal, f"skipped {found} more damaged {lines} in {shown}")
    return chat.session.entries.damaged


def what_was_saved(chat: Chat) -> str:
    """The last line of a run: what this run added to the file, and the conversation's length
    (with branches, the file holds more than the path)."""
    if not chat.session.exists:
        return "nothing to save: no session file was written"
    path = chat.session.path
    added = chat.written_this_run
    others = chat.session.written - added  # entries that are no message: switches, moves
    also = f" and {others} other {'entry' if others == 1 else 'entries'}" if others else ""
    saved = counted(added, "new message")
    # The conversation's length apart from what was added: "6 new messages (6 on the active
    # path)" read as six of the new ones.
    whole = counted(chat.cursor, "message")
    return f"{saved}{also} saved to {path} (the active path now holds {whole})"


def open_session(args: argparse.Namespace, terminal: Terminal) -> Chat:
    """The session to write to, locked, with the conversation so far (empty for a new one)."""
    directory = args.session_dir
    if args.continue_latest:
        latest = find_latest_session(directory)
        for unusable in latest.passed_over:
            warn(terminal, f"{unusable}; passed over")
        if latest.path is not None:
            store = store_for(latest.path)  # the file's own, whatever --store says
            opened = Session.open(latest.path, lock=True, fsync=args.fsync, store=store)
            shown = latest.path
            if opened.skipped:
                lines = "line" if opened.skipped == 1 else "lines"
                warn(terminal, f"skipped {opened.skipped} damaged {lines} in {shown}")
            if (chain_break := opened.context.chain_break) is not None:
                start = chain_break.entry_id
                warn(terminal, f"{shown}: {chain_break}; the conversation starts at {start}")
            with stop_signals_deferred():  # its repair is a save like any other: never cut halfway
                resumed = Chat.resume(opened)
            if resumed.model.fell_back and args.model is None:  # else the first line says it
                warn(terminal, resumed.model.fallback_message())
            if resumed.repaired:
                calls = "tool call" if resumed.repaired == 1 else "tool calls"
                warn(
                    terminal,
                    f"repaired {resumed.repaired} interrupted {calls} in {shown} "
                    "(an error result each; not run again)",
                )
            restored = counted(resumed.restored, "message")
            note = f"resumed: {restored} restored, {chosen_model(resumed.chat, args.model)}"
            terminal.say(f"session file: {shown} ({note})")
            return resumed.chat
        terminal.say(f"no session to continue in {directory}; starting a new one")
    now = datetime.now(UTC)
    session = Session.create(
        directory,
        session_id=new_session_id(now),
        created_at=now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        cwd=working_directory(),
        lock=True,  # taken when the first save creates the file
        fsync=args.fsync,
        store=STORES[args.store],
    )
    chat = Chat(session, [], cursor=0)
    terminal.say(f"session file: {session.path} ({chosen_model(chat, args.model)})")
    return chat


def main(argv: list[str] | None = None) -> int:
    tolerant_streams()
    terminal = Terminal(sys.stdout)
    try:
        return run(parse_args(argv), terminal)
    except KeyboardInterrupt:  # before the handlers were set: nothing to save yet
        return 130
    except Stopped as stopped:  # while the session was being opened
        to_stderr(f"warning: {stopped.line()} while opening the session")
        return stopped.status
    except (UsageError, SessionError, TooManyRounds, HistoryRefused, ModelError, OutputError,
            InputError, MemoryError) as error:  # fmt: skip
        terminal.end_line()  # a reply cut short ends its line before the error's
        shown = "out of memory" if isinstance(error, MemoryError) else str(error)
        to_stderr(f"error: {shown}")
        return 1
    finally:
        if terminal.failure is not None and sys.stdout is not None:  # no complaint at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
