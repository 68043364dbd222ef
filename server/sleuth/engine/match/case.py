"""rg's case rules (``-i``/``-s``/``-S``) over the patterns as the user wrote them.

Below both the compiler and the required-literal analysis, which both need the resolved case mode.
"""

from __future__ import annotations

from collections.abc import Callable

from sleuth.engine.match.syntax import ParseError, escape, parse
from sleuth.engine.types import MatchOptions

__all__ = ["Poll", "pattern_sources", "resolve_case"]

Poll = Callable[[int], None]
"""Called with a pattern's index before it is handled: a compile's deadline check, which may raise."""


def pattern_sources(options: MatchOptions) -> list[str]:
    """The patterns as regex text: ``-F`` escapes each one."""
    return [escape(p) if options.fixed_strings else p for p in options.patterns]


def resolve_case(options: MatchOptions, poll: Poll | None = None) -> bool:
    """True when matching is case-insensitive (rg's ``-i``/``-s``/``-S`` rules; patterns checked jointly:
    smart case is insensitive when the patterns contain a literal and no literal is uppercase;
    escapes such as ``\\W`` and ``\\p{Lu}`` are not literals)."""
    if options.case == "insensitive":
        return True
    if options.case == "sensitive":
        return False
    any_literal = any_upper = False
    for i, text in enumerate(pattern_sources(options)):
        if poll is not None:
            poll(i)
        try:
            parsed = parse(text)
        except ParseError:
            continue
        any_literal = any_literal or parsed.any_literal
        any_upper = any_upper or parsed.any_uppercase
    return any_literal and not any_upper
