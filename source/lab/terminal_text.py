# >>file prod
"""Text as a terminal shows it: nothing in it that the terminal would obey (`printable`), and
no more of it than fits in so many columns (`fitting`, which `messages.shortened` cuts with).

Text from a file, a model or a tool is data, and a terminal obeys some characters and draws
others two columns wide or into the one before. What is shown is made safe and measured here,
in one place; what is written to a file is kept as it is.
"""

from __future__ import annotations

import unicodedata


def printable(text: str) -> str:
    """`text` safe to print on a terminal: every character that could act instead of being
    read is shown as its escape (ESC as \\x1b, a carriage return as \\r, a newline as \\n).

    Everything shown to a person passes through here: messages, tool calls, file names. It
    lives in this module, which imports nothing of the program's own, so that every module
    that shows text can import it (messages.py, for `preview`, among them).

    A backslash stays itself (a Windows path must read as one), so "\\x1b" on screen may also
    be those four characters typed: the promise is that nothing shown is obeyed, not that
    every text can be decoded back.
    """
    return text.translate(_ESCAPES)


def _escapes() -> dict[int, str]:
    # Stop here: text from a file or a model is data, and a terminal obeys some characters.
    # - C0 controls and DEL, C1 controls (\x80-\x9f; \x9b alone starts a colour sequence on
    #   some terminals, like ESC [): they can recolour, move the cursor, ring the bell, retitle
    #   the window. \r and \n could rewrite a line or start a fake `error:` one.
    # - U+2028, U+2029 (line and paragraph separators) and \x85: line breaks to some readers.
    # - The bidirectional overrides and isolates: they reorder what is shown (Trojan Source).
    # - Lone surrogates: orjson refuses them in a file, but a file *name* can hold one, and
    #   printing one raises UnicodeEncodeError instead of printing anything.
    # Tab stays: it only moves right, to the next tab stop.
    codes = [*range(0x00, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, 0x061C, 0x200E, 0x200F]
    codes += [*range(0x202A, 0x202F), *range(0x2066, 0x206A), *range(0xD800, 0xE000)]
    table = {code: chr(code).encode("unicode_escape").decode("ascii") for code in codes}
    del table[ord("\t")]
    return table


_ESCAPES = _escapes()


# Marks drawn into the character before them: accents and other combining marks, and format
# characters (the zero-width joiner, variation selectors are Mn). Skin tones are matched apart:
# their category, Sk, also holds ^ and `, which take a column like any letter.
_DRAWN_INTO = ("Mn", "Me", "Cf")


def fitting(text: str, columns: int) -> str:
    """The longest start of `text` a terminal shows in `columns` columns.

    Stop here: not `text[:columns]`. A CJK character takes two columns, so forty of them fill
    eighty; and a character may be followed by others that are drawn into it (an accent, a
    skin tone, the rest of a family emoji joined by U+200D): cut between them, and the
    terminal shows half a character, or another one. So the cut is only ever made before a
    character that starts a new one on screen.
    """
    used, joined = 0, False
    for index, char in enumerate(text):
        kind = unicodedata.category(char)
        if (joined and kind == "So") or kind in _DRAWN_INTO or "\U0001f3fb" <= char <= "\U0001f3ff":
            joined = char == "\u200d"  # a zero-width joiner draws the next emoji into this one
            continue  # drawn with the character before it: kept or cut with it
        joined = False
        width = 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
        if used + width > columns:
            return text[:index]
        used += width
    return text
