"""Right, of another design: the session kept as a JSONL file, one line per entry.

The step's SessionFile already keeps every promise: written with O_APPEND in one write() a
line (a kill leaves a whole line or a fragment the reader counts), created 0600 by its first
append, locked with flock on a descriptor of its own, and a compaction's kept part found by
reading, so no state needs to be kept beside the entries.
"""

from __future__ import annotations

from session_file import SessionFile


class OwnStore(SessionFile):
    suffix = ".own.jsonl"
