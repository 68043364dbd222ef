"""Counted nouns in user-facing text: "1 result", "2 results" (Neovim showed "Sleuth: 1 results")."""

from __future__ import annotations

__all__ = ["plural"]


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and ``noun``, in the plural (``nouns``, default ``noun + "s"``) unless it is exactly 1."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"
