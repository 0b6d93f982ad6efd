"""Text from files made safe for a terminal: control characters are shown, never obeyed.

A game file or a log can hold any character (YAML's `"\\e"` makes an ESC). Printed raw,
an ESC sequence, a carriage return or a right-to-left override could repaint the
terminal and hide a diagnostic behind a fake "ok", or make text read other than it is.
Every place that prints such text passes it through `printable`. JSON output needs
nothing: `json.dumps` escapes these characters itself, and keeps the data faithful.
"""

from __future__ import annotations

import unicodedata

#: Unicode categories shown escaped: controls (C0, DEL, C1), format characters (bidi
#: overrides and isolates, invisible tags), lone surrogates, line and paragraph separators
_ESCAPED = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
#: format characters that are ordinary text: the zero-width (non-)joiners of many scripts
#: and of emoji sequences reorder or hide nothing
_KEPT = frozenset({"\u200c", "\u200d"})
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: object, newlines: bool = False) -> str:
    """`text` with every control and format character written as an escape (`\\x1b`,
    `\\r`, `\\u202e`); line breaks are kept when `newlines` is true (text laid out in
    lines by rulekit itself, such as a picture), and escaped otherwise."""
    s = text if isinstance(text, str) else str(text)
    if s.isprintable():  # the common case: nothing to do
        return s
    out = []
    for ch in s:
        if ch.isprintable() or ch in _KEPT or (newlines and ch == "\n"):
            out.append(ch)
        elif unicodedata.category(ch) in _ESCAPED:
            out.append(_NAMED.get(ch) or _escape(ord(ch)))
        else:  # spaces other than ' ', private use, unassigned: shown as they are
            out.append(ch)
    return "".join(out)


def _escape(code: int) -> str:
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
