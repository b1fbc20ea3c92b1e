# >>file 02
# >> 02 until 03
# """The interactive program: python main.py [--session-dir DIR]
#
# It parses arguments, reads lines, runs the loop and saves what is new after each turn.
# Every fault a user can meet ends here as one `error:` or `warning:` line; Ctrl-C ends the run
# in one line that says what was saved.
# """
# << 02 until 03
# >> 03 until 06
# """The interactive program: python main.py [--continue] [--session-dir DIR]
#
# It parses arguments, reads lines, runs the loop and saves what is new after each turn.
# With --continue it first rebuilds the most recent session's conversation and aligns the
# cursor, so only new messages are written.
# Every fault a user can meet ends here as one `error:` or `warning:` line; Ctrl-C ends the run
# in one line that says what was saved.
# """
# << 03 until 06
# >> 06 until prod
# """The interactive program: python main.py [--continue] [--session-dir DIR] [--compact-at N]
#
# It parses arguments, reads lines, runs the loop and saves what is new after each turn.
# With --continue it first rebuilds the most recent session's conversation and aligns the
# cursor, so only new messages are written.
# With --compact-at N it compacts first when a turn's context would be over N characters.
# Every fault a user can meet ends here as one `error:` or `warning:` line; Ctrl-C ends the run
# in one line that says what was saved.
# """
# << 06 until prod
# >> prod
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
# << prod

from __future__ import annotations

try:
    import argparse
    import os
    import secrets
    import sys

    # >> 02 until prod
    # from contextlib import suppress
    # << 02 until prod
    from datetime import UTC, datetime
    from pathlib import Path
    from typing import NoReturn

    sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

    # >> prod
    from arguments import add_options, chosen_model, converted, folder_name  # noqa: E402

    # << prod
    from commands import Chat, is_command  # noqa: E402

    # >> 02 until prod
    # from commands import run_command
    # << 02 until prod
    # >> 06
    from commands import compact

    # << 06
    # >> 02 until prod
    # from loop import TooManyRounds, run_turn  # noqa: E402
    # << 02 until prod
    # >> prod
    from loop import TooManyRounds  # noqa: E402

    # << prod
    # >> 02 until 06
    # from messages import user_text  # noqa: E402
    # << 02 until 06
    # >> 06
    from messages import context_size, shortened, user_text  # noqa: E402

    # << 06
    # >> prod
    from messages import unanswered_calls

    # << prod
    from model import DEFAULT_MODEL, HistoryRefused  # noqa: E402

    # >> 02 until prod
    # from model import MODELS
    # from render import counted, render  # noqa: E402
    # << 02 until prod
    # >> prod
    from model import ModelError
    from model_registry import MODELS  # noqa: E402
    from render import counted  # noqa: E402

    # << prod
    from session import Session, SessionError  # noqa: E402

    # >> 03
    from session import find_latest_session

    # << 03
    # >> prod
    from stop_signals import (  # noqa: E402
        Stopped,
        TurnInterrupted,
        ignore_stop_signals,
        stop_signals_deferred,
        stop_signals_end_the_run,
    )
    from stores import STORES, store_for  # noqa: E402

    # << prod
    from terminal import (  # noqa: E402
        InputError,
        # >> prod
        OutputError,
        # << prod
        Terminal,
        read_line,
        to_stderr,
        tolerant_streams,
        warn,
    )

    # >> 02 until 03
    # from tools import default_tools  # noqa: E402
    # << 02 until 03
    # >> 03 until prod
    # from tools import default_tools, slowed  # noqa: E402
    # << 03 until prod
    # >> prod
    from tools import default_tools, slowed  # noqa: E402
    from turn import run_command_or_fail, take_turn  # noqa: E402
    # << prod
except KeyboardInterrupt:  # Ctrl-C while they run (a tenth of a second): no traceback
    raise SystemExit(130) from None


class UsageError(Exception):
    """Bad input from the command line or the environment."""


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One `error:` line and status 1, as for any other bad input (argparse would exit 2)."""
        raise UsageError(f"{message} (see --help)")


# >> 06


def characters(text: str) -> int:
    """--compact-at's N: a whole number of characters, at least 1, of at most 12 digits."""
    if not (text.isascii() and text.isdigit()) or len(text) > 12 or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a number of characters: {shortened(text, 20)}")
    return int(text)


# << 06


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    # >> 02 until prod
    # parser = ArgumentParser(description="Chat with a scripted model; saved as JSONL.")
    # << 02 until prod
    # >> prod
    parser = ArgumentParser(description="Chat with a scripted model; saved as JSONL or SQLite.")
    # << prod
    # >> 03
    parser.add_argument(
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="resume the most recent usable session in DIR (a new one if there is none)",
    )
    # << 03
    parser.add_argument(
        "--session-dir",
        # >> 02 until prod
        # type=Path,
        # << 02 until prod
        # >> prod
        type=folder_name,
        # << prod
        default=Path(".sessions"),
        metavar="DIR",
        help="where session files go (default: .sessions)",
    )
    # >> 06
    parser.add_argument(
        "--compact-at",
        type=characters,
        metavar="N",
        help="compact first when a turn's context would be over N characters",
    )
    # << 06
    # >> prod
    add_options(parser)  # --fsync, --model, --store, --convert
    # << prod
    return parser.parse_args(argv)


def new_session_id(now: datetime) -> str:
    """Sorts by time; the random suffix keeps two runs in the same second apart."""
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


# >> 03
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


# << 03


def working_directory() -> str:
    # >> 02 until prod
    # """The header's `cwd`. A deleted folder cannot be recorded."""
    # << 02 until prod
    # >> prod
    """The header's `cwd`. A deleted folder or a name that is not UTF-8 cannot be recorded."""
    # << prod
    try:
        # >> 02 until prod
        # return os.getcwd()
        # << 02 until prod
        # >> prod
        cwd = os.getcwd()
        # << prod
    except OSError as error:
        raise UsageError(f"the working directory is unusable: {error.strerror}") from None
    # >> prod
    try:
        cwd.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"the working directory's name is not UTF-8 text: {cwd}") from None
    return cwd
    # << prod


def run(args: argparse.Namespace, terminal: Terminal) -> int:
    # >> 02 until prod
    # if sys.stdin is None or sys.stdout is None:  # closed (<&-, >&-): no conversation to have
    #     raise UsageError(f"standard {'input' if sys.stdin is None else 'output'} is closed")
    # << 02 until prod
    # >> prod
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
    # << prod
    stdin = sys.stdin.buffer
    tools = default_tools()
    # >> 03
    delay = tool_delay()
    if delay:
        tools = slowed(tools, delay)
    # << 03
    # >> 02 until prod
    # model = MODELS[DEFAULT_MODEL]
    # << 02 until prod
    # >> prod
    model = MODELS[args.model or DEFAULT_MODEL]  # openai:NAME checks its key before any file
    stop_signals_end_the_run()  # from here on, each ends the run in one line
    # << prod
    chat = open_session(args, terminal)
    # >> prod
    MODELS[chat.model]  # a real model the file recorded checks its key now, before any turn
    # << prod
    # >> 06
    reported = chat.session.entries.damaged  # the damaged lines open_session has named
    # << 06
    echo = not stdin.isatty()
    try:
        # >> 02 until prod
        # while (line := read_line(stdin, terminal, echo)) is not None:
        # << 02 until prod
        # >> prod
        while terminal.failure is None and (line := read_line(stdin, terminal, echo)) is not None:
            # << prod
            if not line.strip():
                continue
            if is_command(line):
                # >> 02 until prod
                # result = run_command(chat, line)
                # << 02 until prod
                # >> prod
                result = run_command_or_fail(chat, line, terminal)
                # << prod
                for shown in result.lines:
                    terminal.say(shown)
                # >> 06 until prod
                # # A resume from the end may leave the start of the file unread, until /tree
                # # or /branch reads it: damage found then is named too, never silently dropped.
                # reported = report_damage(chat, terminal, reported)
                # << 06 until prod
                # >> prod
                # Entries off the path are checked when a command first uses them (/tree,
                # /branch): damage found then is named too, never silently dropped.
                reported = report_damage(chat, terminal, reported)
                # << prod
                if result.exit:
                    break
                continue
            # >> 06 until prod
            # compact_first_if_over(chat, line, args.compact_at, terminal)
            # << 06 until prod
            # >> prod
            if not compact_first_if_over(chat, line, args.compact_at, terminal):
                continue  # Ctrl-C abandoned the compaction this turn needed first
            # << prod
            # >> 04
            model = MODELS[chat.model]  # a /model command may have switched it
            # << 04
            # >> 02 until prod
            # render(run_turn(model, tools, chat.messages, user_text(line)), terminal)
            # # Stop here: the loop has only touched `chat.messages`; this writes what is new.
            # chat.save_new()
            # << 02 until prod
            # >> prod
            take_turn(chat, model, tools, line, terminal)
        terminal.check()
        # << prod
    # >> 02 until prod
    # except KeyboardInterrupt:  # Ctrl-C: every turn finished before it is in the file
    #     terminal.say("")
    #     warn(terminal, f"interrupted: {what_was_saved(chat)}")
    #     return 130
    # << 02 until prod
    # >> prod
    except Stopped as stopped:  # every finished message is in the file already
        cut = unanswered_calls(chat.messages[: chat.cursor])
        note = "; the tool call in progress was stopped (--continue answers it)" if cut else ""
        terminal.say("")
        warn(terminal, f"{stopped.line()}: {what_was_saved(chat)}{note}")
        return stopped.status
    # << prod
    except InputError as error:
        raise InputError(f"{error}; {what_was_saved(chat)}") from None
    # >> prod
    finally:
        ignore_stop_signals()
        chat.session.close()
    # << prod
    terminal.say(what_was_saved(chat))
    # >> prod
    terminal.check()
    # << prod
    return 0


# >> 06
# >> 06 until prod
# def compact_first_if_over(chat: Chat, line: str, limit: int | None, terminal: Terminal) -> None:
#     """--compact-at: compact before a turn whose context would be over `limit` characters."""
# << 06 until prod
# >> prod
def compact_first_if_over(chat: Chat, line: str, limit: int | None, terminal: Terminal) -> bool:
    """--compact-at: compact before a turn whose context would be over `limit` characters.
    False if Ctrl-C abandoned the compaction, and with it the turn it came before."""
    # << prod
    if limit is not None and context_size([*chat.messages, user_text(line)]) > limit:
        # >> 06 until prod
        # done = compact(chat)
        # << 06 until prod
        # >> prod
        try:  # a real model's summary may fail: the turn goes on, with the whole context
            done = compact(chat)  # it defers its own write
        except ModelError as error:
            to_stderr(f"error: {error}; the turn goes on uncompacted")
            return True
        except TurnInterrupted:
            why = "the compaction was abandoned, and your line with it"
            warn(terminal, f"interrupted: {why} (Ctrl-C at the prompt ends the run)")
            return False
        # << prod
        if done is not None:  # (with only one turn, there is nothing to compact)
            terminal.say(f"{done}: the context was over {limit} characters")
    # >> prod
    return True
    # << prod


def report_damage(chat: Chat, terminal: Terminal, reported: int) -> int:
    """One `warning:` line for the damaged lines found since `reported`; the new count."""
    if (found := chat.session.entries.damaged - reported) > 0:
        lines = "line" if found == 1 else "lines"
        shown = chat.session.path
        warn(terminal, f"skipped {found} more damaged {lines} in {shown}")
    return chat.session.entries.damaged


# << 06


def what_was_saved(chat: Chat) -> str:
    # >> 02 until 05
    # """The last line of a run: what this run added to the file, and what the file holds."""
    # << 02 until 05
    # >> 05
    """The last line of a run: what this run added to the file, and the conversation's length
    (with branches, the file holds more than the path)."""
    # << 05
    if not chat.session.exists:
        return "nothing to save: no session file was written"
    # >> 02 until 03
    # return f"{counted(chat.cursor, 'message')} saved to {chat.session.path}"
    # << 02 until 03
    # >> 03
    path = chat.session.path
    added = chat.written_this_run
    # << 03
    # >> 04 until 05
    # others = chat.session.written - added  # entries that are no message: a model switch
    # << 04 until 05
    # >> 05
    others = chat.session.written - added  # entries that are no message: switches, moves
    # << 05
    # >> 04 until prod
    # also = f", and {others} other {'entry' if others == 1 else 'entries'}" if others else ""
    # << 04 until prod
    # >> prod
    also = f" and {others} other {'entry' if others == 1 else 'entries'}" if others else ""
    # << prod
    # >> 03
    saved = counted(added, "new message")
    # << 03
    # >> 03 until 04
    # return f"{saved} saved to {path} ({chat.cursor} in all)"
    # << 03 until 04
    # >> 04 until 05
    # return f"{saved} saved to {path} ({chat.cursor} in all){also}"
    # << 04 until 05
    # >> 05 until prod
    # return f"{saved} saved to {path} ({chat.cursor} on the active path){also}"
    # << 05 until prod
    # >> prod
    # The conversation's length apart from what was added: "6 new messages (6 on the active
    # path)" read as six of the new ones.
    whole = counted(chat.cursor, "message")
    return f"{saved}{also} saved to {path} (the active path now holds {whole})"
    # << prod


def open_session(args: argparse.Namespace, terminal: Terminal) -> Chat:
    # >> 02 until prod
    # """The session to write to, with the conversation so far (empty for a new one)."""
    # << 02 until prod
    # >> prod
    """The session to write to, locked, with the conversation so far (empty for a new one)."""
    # << prod
    directory = args.session_dir
    # >> 03
    if args.continue_latest:
        latest = find_latest_session(directory)
        for unusable in latest.passed_over:
            warn(terminal, f"{unusable}; passed over")
        if latest.path is not None:
            # >> 03 until prod
            # opened = Session.open(latest.path)
            # << 03 until prod
            # >> prod
            store = store_for(latest.path)  # the file's own, whatever --store says
            opened = Session.open(latest.path, lock=True, fsync=args.fsync, store=store)
            # << prod
            shown = latest.path
            if opened.skipped:
                lines = "line" if opened.skipped == 1 else "lines"
                warn(terminal, f"skipped {opened.skipped} damaged {lines} in {shown}")
            if (chain_break := opened.context.chain_break) is not None:
                start = chain_break.entry_id
                warn(terminal, f"{shown}: {chain_break}; the conversation starts at {start}")
            # >> 03 until prod
            # resumed = Chat.resume(opened)
            # << 03 until prod
            # >> prod
            with stop_signals_deferred():  # its repair is a save like any other: never cut halfway
                resumed = Chat.resume(opened)
            # << prod
            # >> 04 until prod
            # if resumed.model.fell_back:
            #     warn(terminal, resumed.model.fallback_message())
            # << 04 until prod
            # >> prod
            if resumed.model.fell_back and args.model is None:  # else the first line says it
                warn(terminal, resumed.model.fallback_message())
            if resumed.repaired:
                calls = "tool call" if resumed.repaired == 1 else "tool calls"
                warn(
                    terminal,
                    f"repaired {resumed.repaired} interrupted {calls} in {shown} "
                    "(an error result each; not run again)",
                )
            # << prod
            restored = counted(resumed.restored, "message")
            # >> 03 until 04
            # note = f"resumed: {restored} restored"
            # << 03 until 04
            # >> 04 until prod
            # note = f"resumed: {restored} restored, model {resumed.chat.model}"
            # << 04 until prod
            # >> prod
            note = f"resumed: {restored} restored, {chosen_model(resumed.chat, args.model)}"
            # << prod
            terminal.say(f"session file: {shown} ({note})")
            return resumed.chat
        terminal.say(f"no session to continue in {directory}; starting a new one")
    # << 03
    now = datetime.now(UTC)
    session = Session.create(
        directory,
        session_id=new_session_id(now),
        created_at=now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        cwd=working_directory(),
        # >> prod
        lock=True,  # taken when the first save creates the file
        fsync=args.fsync,
        store=STORES[args.store],
        # << prod
    )
    # >> 02 until 04
    # terminal.say(f"session file: {session.path}")
    # << 02 until 04
    # >> 04 until prod
    # terminal.say(f"session file: {session.path} (model {DEFAULT_MODEL})")
    # << 04 until prod
    # >> prod
    chat = Chat(session, [], cursor=0)
    terminal.say(f"session file: {session.path} ({chosen_model(chat, args.model)})")
    return chat
    # << prod
    # >> 02 until prod
    # return Chat(session, [], cursor=0)
    # << 02 until prod


def main(argv: list[str] | None = None) -> int:
    tolerant_streams()
    terminal = Terminal(sys.stdout)
    try:
        return run(parse_args(argv), terminal)
    # >> 02 until prod
    # except KeyboardInterrupt:  # before the session was opened: nothing to save yet
    #     to_stderr("warning: interrupted: nothing was saved")
    #     return 130
    # except (UsageError, SessionError, TooManyRounds, HistoryRefused, InputError) as error:
    #     to_stderr(f"error: {error}")
    #     return 1
    # except OSError as error:  # standard output failed: a closed pipe, a full disk under a log
    #     to_stderr(f"error: cannot write to standard output: {error.strerror}")
    #     with suppress(OSError):  # what is left for standard output goes nowhere, not to a
    #         os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # second complaint
    #     return 1
    # << 02 until prod
    # >> prod
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
    # << prod


if __name__ == "__main__":
    sys.exit(main())
