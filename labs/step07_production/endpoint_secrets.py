"""What a line may show of the endpoint: its address without what may carry a key, its error
text without the key. The one place that finds the endpoint's secrets and blanks them.

An error line is often shared (pasted into an issue, a chat), and some gateways quote the key
they refused in their error text. So an error line quotes the endpoint only through `shown`
(its error text) or `address_shown` (its address), and no secret reaches the terminal.
"""

from __future__ import annotations

import os
from urllib.parse import unquote, urlsplit

from messages import shortened
from terminal_text import printable

KEY_VARIABLE = "OPENAI_API_KEY"  # where the SDK reads the endpoint's key from
SHOWN = 200  # at most this much of an endpoint's error text goes into the error line


def address_shown(url: str) -> str:
    """`url` as an error line may show it: without a user name and password, a query string or
    a fragment, any of which may carry a key (`?key=...`); an error line is often shared."""
    scheme, found, rest = url.partition("://")
    if not found:
        return url
    where, slash, path = rest.partition("/")
    path = path.split("?", 1)[0].split("#", 1)[0]
    return f"{scheme}://{where.rpartition('@')[2]}{slash}{path}"


# Shorter than this, a "secret" is more likely a word of the message than a key: left alone.
SHORTEST_SECRET = 4


def endpoint_secrets() -> list[str]:
    """What no line may show: the key, and what OPENAI_BASE_URL holds beside its address (a
    password, the values of a query string), read where the SDK reads them; longest first."""
    found = [os.environ.get(KEY_VARIABLE, "")]
    try:
        url = urlsplit(os.environ.get("OPENAI_BASE_URL", ""))
        found += [url.password or "", url.username or ""]
    except ValueError:  # no URL the SDK could use either: what it holds is shown nowhere
        url = urlsplit("")
    for pair in url.query.split("&"):
        value = pair.partition("=")[2]
        found += [value, unquote(value)]
    return sorted({s for s in found if len(s) >= SHORTEST_SECRET}, key=len, reverse=True)


def without_secrets(text: str) -> str:
    """`text` with every endpoint secret blanked. Some gateways quote the key they refused in
    their error text (a 401 or 429 body that echoes it), and that text is shown to the user."""
    for secret in endpoint_secrets():
        text = text.replace(secret, "[hidden]")
    return text


def shown(error: Exception) -> str:
    """An endpoint's error text, on one short printable line, with no secret in it (blanked
    before the line is cut short, so no piece of one is left either)."""
    text = without_secrets(" ".join(str(error).split()) or type(error).__name__)
    return printable(shortened(text, SHOWN))
