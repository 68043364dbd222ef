"""Definition sites and identifier parts: the signals that rank the *defining* file first.

BM25 over whole files (the Acode seed's design) put the defining file first for 35 of 100
definition queries on the Linux tree: the file that mentions a name most is rarely the one that
defines it. Zoekt's lesson is to score *where* a match sits — a symbol definition, a word
boundary, the file name. Without ctags we recognise definition lines by shape, language-neutrally:

- ``#define NAME``, ``struct|union|enum|class|interface|trait|type NAME {`` (or a trailing comment, or the
  brace on the next line; ``struct NAME;`` is a declaration), ``} [attributes] NAME;`` (typedef ends),
  ``typedef ... NAME;``, ``typedef ... (*NAME)(...)`` and ``typedef ... NAME(...)``
- ``def|fn|func|function|sub|proc NAME`` with optional modifiers (Python, Rust, Go, JS, Perl, Tcl)
- C-like function definitions: a line starting at column 0 with a type, then ``NAME(`` and no ``;``
- global variables at column 0, with an initializer (``const struct file_operations ext4_fops = {``)
  or without (``static int debug_level;``)
  and the kernel's ``DEFINE_*(NAME`` / ``DECLARE_*(NAME`` macros

Each definition is stored under its *key*: the name lowercased with ``_``/``-`` removed, so
``getUserById``, ``get_user_by_id`` and the query ``get user by id`` meet at ``getuserbyid``.
"""

from __future__ import annotations

import re
from typing import Iterator

from sleuth.engine.definitions import native

__all__ = ["DEFINITION", "NOT_NAMES", "definition_matches", "definitions", "definition_keys", "identifier_key",
           "split_identifier", "definition_name", "is_prototype"]

# The shapes, in order: those after a line's indentation, then those in column 0. Kept apart so that
# the whole-buffer scan below takes the indentation once (possessively: none of the first four can
# start with a blank) instead of once per alternative: the same matches, ~15% less time.
_INDENTED = (
    rb"""\#[ \t]*define[ \t]+(?P<macro>\w+)""",
    rb"""typedef\b[^;{}\n]*?\([ \t]*\*[ \t]*(?P<fptr>\w+)[ \t]*\)[ \t]*\(""",
    rb"""typedef\b(?![ \t]+(?:struct|union|enum)[ \t]+\w+[ \t]*\{)[^;{}()\n]*?\b(?P<tname>\w+)[ \t]*(?:\[[^\]\n]*\][ \t]*)*[;(]""",
    rb"""(?=[a-z])(?:(?:typedef|export|pub(?:\([\w: ]*\))?|public|private|protected|internal|static|abstract|final
     |sealed|partial|data|case|async|override|virtual|inline|extern|unsafe|const|default|local)[ \t]+)*
   (?:(?:struct|union|enum|class|interface|trait|record|object|protocol|module|namespace|type)[ \t]+(?P<type>\w+)
       (?=[ \t]*(?:[{:(<=]|$|//|/\*|extends\b|implements\b|where\b))
     |(?:def|fn|func|function|sub|proc|fun|method)[ \t]+(?:\([^)\n]*\)[ \t]*)?(?P<func>\w+))""",
)
_COLUMN_0 = (
    rb"""(?!extern\b)[A-Za-z_][\w \t\*,:&<>]*?[ \t\*&](?P<cfunc>\w+)[ \t]*\((?![^\n]*;[ \t]*$)""",
    rb"""(?!extern\b|return\b|typedef\b)[A-Za-z_][\w \t\*]*?[ \t\*](?P<var>\w+)(?:\[[^\]\n]*\])*[ \t]*=(?!=)""",
    rb"""(?!extern\b|return\b|typedef\b|(?:struct|union|enum|class)[ \t]+\w+[ \t]*;)
   [A-Za-z_][\w \t\*]*?[ \t\*](?P<gvar>\w+)(?:\[[^\]\n]*\])*[ \t]*;""",
    rb"""(?:static[ \t]+)?(?:DEFINE|DECLARE)_[A-Z0-9_]+\([ \t]*(?P<dmacro>\w+)""",
    rb"""\}(?![ \t]*(?:else|while)\b)[^;{}=\n]*?\b(?P<tdef>\w+)[ \t]*(?:\[[^\]\n]*\][ \t]*)*;""",
)
DEFINITION = re.compile(rb"^(?:" + rb"|".join([rb"[ \t]*" + shape for shape in _INDENTED] + list(_COLUMN_0)) + rb")",
                        re.M | re.X)

# The same shapes for whole buffers, searched as "\n" + data: a pattern led by a literal newline lets
# ``re`` jump from line to line (a ``^``-led one is tried at every byte): 25% less build time. The
# lookahead is what every alternative needs first (``#``, ``typedef`` or a lowercase keyword after the
# indentation; a letter, ``_`` or ``}`` in column 0), so comment and indented code lines fail once
# instead of once per alternative (~10% less time on the kernel's C), and the indentation is taken once.
_SCAN = re.compile(rb"\n(?=[ \t]*+[#a-z]|[A-Za-z_}])(?:[ \t]*+(?:" + rb"|".join(_INDENTED) + rb")|"
                   + rb"|".join(_COLUMN_0) + rb")", re.M | re.X)
_KINDS = ("macro", "fptr", "tname", "type", "func", "cfunc", "var", "gvar", "dmacro", "tdef")
NOT_NAMES = frozenset(b"if for while switch return sizeof else do case goto typeof defined break continue".split())
_SEPARATORS = re.compile(r"[_\-\s.:/]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def identifier_key(text: str) -> str:
    """The lookup key of an identifier or of a space-separated query: lowercase, no separators."""
    return _SEPARATORS.sub("", text).lower()


def split_identifier(name: str) -> list[str]:
    """``getUserByID`` -> ``[get, user, by, id]``; ``PM_RESUME`` -> ``[pm, resume]`` (lowercased parts)."""
    parts: list[str] = []
    for piece in _SEPARATORS.split(name):
        parts.extend(p.lower() for p in _CAMEL.findall(piece))
        if piece and not _CAMEL.findall(piece):
            parts.append(piece.lower())
    return parts


def is_prototype(tail: bytes) -> bool:
    """For a C-like function line: True when ``tail`` (the text after the name) reaches ``;`` before ``{``
    — a declaration spread over several lines, not a definition."""
    semi = tail.find(b";")
    if semi < 0:
        return False
    brace = tail.find(b"{", 0, semi)
    return brace < 0


def definition_matches(buffer: bytes) -> Iterator[tuple[re.Match[bytes], str, bytes]]:
    """``(match, kind, name)`` for every definition-shaped line of ``buffer``, which is ``b"\\n" + data``
    (the scan's leading newline: a match's ``start()`` in ``buffer`` is its line's start in ``data``).
    The one scan loop: :func:`definitions`, :func:`definition_keys` and the C family's symbols
    (:mod:`sleuth.engine.definitions.extract`) read its matches."""
    for m in _SCAN.finditer(buffer):
        kind = m.lastgroup
        if not kind:
            continue
        name = m.group(kind)
        if not name or name in NOT_NAMES or name[:1].isdigit():
            continue
        if kind == "cfunc" and is_prototype(buffer[m.end():m.end() + 2000]):
            continue
        yield m, kind, name


def definitions(data: bytes) -> Iterator[tuple[str, int, str]]:
    """``(name, byte offset of the line, kind)`` for every definition-shaped line of ``data``."""
    for m, kind, name in definition_matches(b"\n" + data):
        yield name.decode("utf-8", "replace"), m.start(), kind


def definition_keys(data: bytes) -> set[str]:
    """``{identifier_key(name) for name, _, _ in definitions(data)}``, as the index build needs it: the
    build's second cost after trigrams (4.5 million definitions in the Linux tree). A name is ``\\w+``
    bytes, so its key is the name without ``_``, lowercased. Compiled where it can be (:mod:`.native`)."""
    if native.found is not None:
        keys: set[str] = set()
        native.found(b"\n" + data, keys, None, None)
        return keys
    return {name.replace(b"_", b"").lower().decode("utf-8", "replace")
            for _, _, name in definition_matches(b"\n" + data)}


def definition_name(line: bytes, tail: bytes = b"") -> tuple[str, str] | None:
    """``(name, kind)`` when ``line`` (one line, no newline; ``tail`` the text after it) is a definition site."""
    m = DEFINITION.match(line)
    if not m or not m.lastgroup:
        return None
    name = m.group(m.lastgroup)
    if name in NOT_NAMES or name[:1].isdigit():
        return None
    if m.lastgroup == "cfunc" and is_prototype(line[m.end():] + b"\n" + tail):
        return None
    return name.decode("utf-8", "replace"), m.lastgroup
