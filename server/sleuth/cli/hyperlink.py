"""rg's ``--hyperlink-format``: its aliases and its format language, read as rg 15 reads them.

A format is text with ``{path}``, ``{line}``, ``{column}``, ``{host}`` and ``{wslprefix}`` in it
(``{{``/``}}`` are braces), or one of rg's aliases (``default``, ``none``, ``vscode``...). rg checks it
before searching and refuses a bad one with exit status 2, so a script that passes one to
``sleuth grep`` learns the same thing. rg prints the links only when it colours its output; Sleuth
accepts the flag and checks it, and prints no links yet (README, *Using it*).
"""

from __future__ import annotations

import re

__all__ = ["ALIASES", "parse_hyperlink_format"]

ALIASES: dict[str, str] = {
    "default": "file://{host}{path}", "none": "", "cursor": "cursor://file{path}:{line}:{column}",
    "file": "file://{host}{path}", "grep+": "grep+://{path}:{line}", "kitty": "file://{host}{path}#{line}",
    "macvim": "mvim://open?url=file://{path}&line={line}&column={column}",
    "textmate": "txmt://open?url=file://{path}&line={line}&column={column}",
    "vscode": "vscode://file{path}:{line}:{column}", "vscode-insiders": "vscode-insiders://file{path}:{line}:{column}",
    "vscodium": "vscodium://file{path}:{line}:{column}",
}
"""rg 15.2's aliases (``grep-printer``'s hyperlink aliases)."""

_LISTED = ("default", "none", "cursor", "file", "grep+", "kitty", "macvim", "textmate", "vscode",
           "vscode-insiders", "vscodium")  # the order of rg's error message
_VARIABLES = ("path", "line", "column", "host", "wslprefix")
_SCHEME = re.compile(r"[0-9A-Za-z+.\-]+:")


def parse_hyperlink_format(text: str) -> list[str | tuple[str]]:
    """The format's parts: literal text, and ``(name,)`` for each variable; ``[]`` turns links off.

    Raises ValueError with rg's message for a format rg refuses."""
    fmt = ALIASES.get(text, text)
    parts: list[str | tuple[str]] = []
    literal: list[str] = []
    i, n = 0, len(fmt)
    while i < n:
        ch = fmt[i]
        if ch == "}":
            if i + 1 < n and fmt[i + 1] == "}":
                literal.append("}")
                i += 2
                continue
            raise ValueError("unopened variable: found '}' without a corresponding '{' preceding it")
        if ch != "{":
            literal.append(ch)
            i += 1
            continue
        if i + 1 < n and fmt[i + 1] == "{":
            literal.append("{")
            i += 2
            continue
        end = fmt.find("}", i + 1)
        if end < 0:
            raise ValueError("unclosed variable: found '{' without a corresponding '}' following it")
        name = fmt[i + 1:end]
        if name not in _VARIABLES:
            raise ValueError(f"invalid hyperlink format variable: '{name}', choose from: {', '.join(_VARIABLES)}")
        if literal:
            parts.append("".join(literal))
            literal = []
        parts.append((name,))
        i = end + 1
    if literal:
        parts.append("".join(literal))
    if not parts:
        return parts
    variables = {p[0] for p in parts if isinstance(p, tuple)}
    if not variables:
        raise ValueError("at least a {path} variable is required in a hyperlink format, or otherwise use a valid "
                         "alias: " + ", ".join(_LISTED))
    if "path" not in variables:
        raise ValueError("the {path} variable is required in a hyperlink format")
    if "column" in variables and "line" not in variables:
        raise ValueError("the hyperlink format contains a {column} variable, but no {line} variable is present")
    if not isinstance(parts[0], str) or not _SCHEME.match(parts[0]):
        raise ValueError("the hyperlink format must start with a valid URL scheme, i.e., [0-9A-Za-z+-.]+:")
    return parts
