# >>file 06 until prod
# """Whether a session file's lines are as the lab writes them, told from their first bytes alone:
# what a resume that parsed only the end of the file must know of the rest."""
#
# from __future__ import annotations
#
# import re
# from pathlib import Path
#
#
# def ids_in_order(path: Path) -> bool:
#     """Whether every line that may be an entry begins as the writer begins it, with an id e<N>
#     larger than the one before: as the lab writes them. A resume that parsed only the end of
#     the file gives what a whole read gives only then.
#
#     Stop here: a backup glued onto its own session (cat old >> new) ends in a copy of an old
#     compaction and what it keeps, and the walk from the leaf is whole in the copy. Nothing in
#     the lines read says so; only the ids before them do. They are searched for, not parsed:
#     one C call a block, a few times faster than reading the file as entries.
#     """
#     last, pending = 0, b""  # the largest id so far; the line the last block ended inside
#     with path.open("rb") as file:
#         file.readline()  # the header
#         while block := file.read(_BLOCK):
#             data = pending + block
#             end = data.rfind(b"\n") + 1  # the lines whole in this block; the rest waits
#             for found in _LINE_START.findall(data, 0, end):
#                 if not found or int(found) <= last:  # another shape, or not growing
#                     return False
#                 last = int(found)
#             pending = data[end:][:_HEAD_BYTES]  # a long line's id is at its start: keep that
#     return True
#
#
# # The start of a line that may be an entry: the writer's (its id's number, the group), or
# # any other that JSON could begin (the group empty). Garbage, a blank line: no entry at all.
# _LINE_START = re.compile(rb'(?:^|(?<=\n))(?:\{"type":"[a-z_]*","id":"e([1-9][0-9]{0,17})"|[{ \t\r])')
# _HEAD_BYTES = 4096
# _BLOCK = 1 << 20  # bytes searched at a time
