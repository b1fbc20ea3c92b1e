"""The process that gets killed: builds a history, then appends to it until it dies.

    python crash_writer.py {snapshot,atomic,ledger,ledger-reopen} PATH --prefill N
        [--text-bytes N] [--max-file-bytes N] [--cwd DIR]

It prints `ready N` once the first N messages are stored, then, after every append that
returned, the number of messages stored so far. A number printed is an *acknowledged*
message: the writer told the world "this is saved". The parent checks whether it was.

Killed with SIGKILL, it stops wherever it was. With `--max-file-bytes` the operating system
refuses to let any file it writes grow past that size (RLIMIT_FSIZE): the append that
crosses the limit fails, the writer prints one `error:` line on stderr and exits with 1.
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

from messages import make_history, make_long_message, make_message  # noqa: E402
from stores import STORE_KINDS, create_store  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=STORE_KINDS)
    parser.add_argument("path", type=Path)
    parser.add_argument("--prefill", type=int, default=0, help="messages stored before 'ready'")
    parser.add_argument(
        "--text-bytes",
        type=int,
        default=0,
        help="pad each appended message's text to this many bytes",
    )
    parser.add_argument(
        "--max-file-bytes",
        type=int,
        default=None,
        help="no file this process writes may grow past this size",
    )
    parser.add_argument("--cwd", default=None, help="the directory a session header records")
    args = parser.parse_args(argv)

    if args.max_file_bytes is not None:
        # A limit the kernel enforces on every write: the write that would cross it is cut
        # short, the next one fails. (Python ignores the SIGXFSZ signal that comes with it.)
        resource.setrlimit(resource.RLIMIT_FSIZE, (args.max_file_bytes, args.max_file_bytes))
    count = args.prefill
    try:
        store = create_store(args.kind, args.path, make_history(count), cwd=args.cwd)
        print(f"ready {count}", flush=True)
        while True:  # forever: the only ways out are SIGKILL and a failed append
            if args.text_bytes:
                store.append(make_long_message(count, args.text_bytes))
            else:
                store.append(make_message(count))
            count += 1
            print(count, flush=True)  # the acknowledgement, sent only after append returned
    except OSError as error:
        print(f"error: append of message {count + 1} failed: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
