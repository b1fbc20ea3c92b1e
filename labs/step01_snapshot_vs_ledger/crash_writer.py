"""The process that gets killed: builds a history, then appends to it until it dies.

    python crash_writer.py {snapshot,atomic,ledger} PATH --prefill N

It prints `ready N` once the first N messages are stored, then, after every append that
returned, the number of messages stored so far. A number printed is an *acknowledged*
message: the writer told the world "this is saved". The parent checks whether it was.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

from messages import make_history, make_message  # noqa: E402
from stores import STORE_KINDS, create_store  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=STORE_KINDS)
    parser.add_argument("path", type=Path)
    parser.add_argument("--prefill", type=int, default=0, help="messages stored before 'ready'")
    args = parser.parse_args(argv)

    store = create_store(args.kind, args.path, make_history(args.prefill))
    count = args.prefill
    print(f"ready {count}", flush=True)
    while True:  # forever: the only way out is SIGKILL
        store.append(make_message(count))
        count += 1
        print(count, flush=True)  # the acknowledgement, sent only after append returned


if __name__ == "__main__":
    main()
