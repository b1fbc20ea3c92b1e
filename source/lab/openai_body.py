# >>file prod
"""The HTTP body of an endpoint's answer, as the SDK reads it: bounded, and a stream always.

`read_body` is hooked into the HTTP client (openai_model.py), so it sees every body before the
SDK's decoder does: a stream, an error body, or one JSON completion from a server that ignored
`stream`. What comes out is always a stream of events none of which is larger than
MAX_EVENT_BYTES; the chunks in those events are read in openai_stream.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from openai_stream import ChunkError

# The SDK's decoder keeps a whole event (everything up to a blank line) in memory before it
# parses it; an endpoint that never sends the blank line would fill memory.
MAX_EVENT_BYTES = 16 * 1024 * 1024


def read_body(response: Any) -> None:
    """An httpx response hook: the body is read through `events_within`, so no event of it
    (no error body either) grows past MAX_EVENT_BYTES in memory, and a body that is one JSON
    completion (the server ignored `stream`) is read as the stream of that one chunk.

    Stop here: the SDK reads a body with `response.iter_bytes()`, after decompressing it, so
    that is where the bound goes; a bound on the bytes received would let a compressed body
    of a few kilobytes unfold into gigabytes.
    """
    bounded = events_within(response.iter_bytes, MAX_EVENT_BYTES)
    if response.status_code == 200:
        bounded = one_completion_as_a_stream(bounded)
    response.iter_bytes = bounded


def events_within(
    iter_bytes: Callable[..., Iterator[bytes]], limit: int
) -> Callable[..., Iterator[bytes]]:
    """`iter_bytes`, refusing (ChunkError) once the bytes since the last blank line pass
    `limit`: an event without end, or a body that is one endless line."""

    def bounded(*args: Any, **kwargs: Any) -> Iterator[bytes]:
        since, tail = 0, b""
        for piece in iter_bytes(*args, **kwargs):
            seen = tail + piece
            ends = [seen.rfind(blank) + len(blank) for blank in BLANK_LINES if blank in seen]
            since = len(seen) - max(ends) if ends else since + len(piece)
            if since > limit:
                raise ChunkError(f"an event over {limit:,} bytes, with no end in sight")
            tail = seen[-2:]
            yield piece

    return bounded


BLANK_LINES = (b"\n\n", b"\n\r\n", b"\r\r")  # where one event of the stream ends


def one_completion_as_a_stream(
    iter_bytes: Callable[..., Iterator[bytes]],
) -> Callable[..., Iterator[bytes]]:
    """`iter_bytes`, unchanged for a stream; a body that is one JSON document instead (a
    stream's every line starts with a field name or a colon, never with `{`, `[` or `"`) comes
    out as the one event of a stream whose chunk holds that whole completion, or is refused
    by what it is."""

    def as_stream(*args: Any, **kwargs: Any) -> Iterator[bytes]:
        pieces = iter_bytes(*args, **kwargs)
        start = b""
        for piece in pieces:
            start += piece
            if start.strip():
                break
        if not start.lstrip().startswith((b"{", b"[", b'"')):
            yield start
            yield from pieces
            return
        body = start + b"".join(pieces)  # bounded: the body has no blank line to end it
        yield b"data: " + completion_as_chunk(body) + b"\n\ndata: [DONE]\n\n"

    return as_stream


_JSON_KINDS = {list: "array", str: "string", int: "number", float: "number", bool: "boolean"}


def completion_as_chunk(body: bytes) -> bytes:
    """A whole completion as one chunk: each choice's `message` becomes its `delta`, and each
    tool call gets the `index` a stream gives it. A document that is no completion (an array
    of strings, as one mock server sends) is named for what it is; a completion's own fields
    of the wrong type are passed on, for the reader to refuse by name."""
    try:
        completion = json.loads(body)
    except ValueError:
        raise ChunkError("a body that is neither a stream nor one JSON completion") from None
    choices = completion.get("choices") if isinstance(completion, dict) else None
    if not isinstance(choices, list):
        kind = _JSON_KINDS.get(type(completion), "value")
        what = "object without choices" if isinstance(completion, dict) else kind
        raise ChunkError(f"one JSON {what} (application/json), not a stream or a completion")
    for choice in choices:
        if isinstance(choice, dict) and isinstance(choice.get("message"), dict):
            delta = choice.pop("message")
            if isinstance(calls := delta.get("tool_calls"), list):
                delta["tool_calls"] = [
                    {"index": index, **call} if isinstance(call, dict) else call
                    for index, call in enumerate(calls)
                ]
            choice["delta"] = delta
    return json.dumps(completion).encode()
