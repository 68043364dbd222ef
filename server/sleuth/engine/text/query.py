"""The ``sleuth.text`` query language (docs/SPEC.md §4): words ANDed, ``"exact phrase"``, ``OR``, ``-exclude``, ``prefix*``.

Parsed into a small conjunctive form: a list of *clauses* that must all hold, each a list of
alternative :class:`Term` (``a OR b``), plus terms that must not occur. Matching is
case-insensitive and by identifier parts, both ways: ``user`` finds ``getUserById``; the adjacent
plain words ``get user by id`` find the identifiers ``getUserById`` / ``get_user_by_id`` as a whole,
and so do ``get_user_by_id`` and ``getUserById`` themselves, whichever way the text spells it
(``getUser`` finds ``get_user_by_id``: a term's words are its identifier parts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sleuth.engine.errors import BadArgs
from sleuth.engine.definitions.defs import split_identifier

__all__ = ["Term", "TextQuery", "parse_query"]

_TOKEN = re.compile(r'-?"[^"]*"?|\S+')
_WORDS = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Term:
    """One searchable unit: ``words`` (lowercase) in order; ``phrase`` when quoted; ``prefix`` for ``word*``."""

    text: str
    words: tuple[str, ...]
    phrase: bool = False
    prefix: bool = False

    @property
    def literal(self) -> str:
        """The longest piece every match of this term contains (for the trigram prefilter)."""
        return max(self.words, key=len) if self.words else ""

    def pattern(self) -> str:
        """A regex (case-insensitive) matching the term in text: words joined by nothing or separators."""
        if not self.words:
            return re.escape(self.text)
        if self.phrase or len(self.words) > 1:
            return r"[\s_\-]*".join(re.escape(w) for w in self.words)
        return re.escape(self.words[0])


@dataclass
class TextQuery:
    clauses: list[list[Term]] = field(default_factory=list)
    excluded: list[Term] = field(default_factory=list)

    @property
    def plain_words(self) -> list[str]:
        """Words of single-alternative clauses, in query order (they may form one identifier)."""
        out: list[str] = []
        for clause in self.clauses:
            if len(clause) == 1:
                out.extend(clause[0].words)
        return out

    @property
    def prefix_last(self) -> bool:
        return bool(self.clauses) and len(self.clauses[-1]) == 1 and self.clauses[-1][0].prefix


def _parts(word: str) -> list[str]:
    """``word``'s identifier parts, lowercased; the word itself when the split would lose characters
    (the splitter knows ASCII case humps only: ``Größe`` stays whole)."""
    parts = split_identifier(word)
    return parts if "".join(parts) == word.lower() else [word.lower()]


def _term(token: str) -> Term | None:
    phrase = token.startswith('"')
    text = token.strip('"')
    prefix = not phrase and text.endswith("*")
    text = text.rstrip("*") if prefix else text
    if phrase:
        words = tuple(w.lower() for w in _WORDS.findall(text))
    else:  # camelCase and snake_case alike: getUser -> (get, user), so it also finds get_user_by_id
        words = tuple(part for w in _WORDS.findall(text) for part in _parts(w))
    if not text.strip():
        return None
    return Term(text, words or (text.lower(),), phrase, prefix)


def parse_query(query: str) -> TextQuery:
    """Parse; raises :class:`BadArgs` for a query with nothing to look for."""
    parsed = TextQuery()
    pending_or = False
    for token in _TOKEN.findall(query):
        if token == "OR":
            pending_or = bool(parsed.clauses)
            continue
        negative = token.startswith("-") and len(token) > 1
        term = _term(token[1:] if negative else token)
        if term is None:
            continue
        if negative:
            parsed.excluded.append(term)
        elif pending_or:
            parsed.clauses[-1].append(term)
        else:
            parsed.clauses.append([term])
        pending_or = False
    if not parsed.clauses:
        raise BadArgs("sleuth.text: the query has no word to look for.",
                      hint='Pass words, "a phrase", a OR b, or prefix*; -word only excludes.')
    return parsed
