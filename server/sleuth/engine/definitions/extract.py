"""A file's definitions — name, LSP SymbolKind, container and exact range — by line shape, per language.

Chosen by measurement (bench/README.md, "Workspace symbols"): tree-sitter parses C at a few MB/s
per core, which alone would take the Linux tree's build past its 60 s budget, while the C family
here reuses the definition regex the index already runs for ``sleuth.text``
(:data:`sleuth.engine.definitions.defs.DEFINITION`) and adds one pass over top-level ``struct``/``union``/
``enum`` bodies for members and enumerators, which universal-ctags reports too. Other languages get
a few line patterns each; their container is the nearest enclosing class-like definition by
indentation (by heading level in Markdown), which is how these languages are laid out in practice.

Columns are UTF-16 code units, as LSP counts them by default; lines are 0-based.

The index stores what this finds: a change of what it finds (a new language, a new kind, another
range) must bump :data:`sleuth.engine.index.store.SCHEMA`, or stores built before it keep answering
with the old symbols.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator, NamedTuple

from sleuth.engine.definitions import native
from sleuth.engine.definitions.defs import NOT_NAMES, definition_keys, definition_matches, is_prototype

__all__ = ["Symbol", "SymbolKind", "extract", "definitions_and_symbols", "language_of", "symbol_key"]


class SymbolKind:
    """LSP ``SymbolKind`` numbers (the protocol's, so no conversion at the transport)."""

    FILE, MODULE, NAMESPACE, PACKAGE, CLASS, METHOD, PROPERTY, FIELD, CONSTRUCTOR, ENUM = range(1, 11)
    INTERFACE, FUNCTION, VARIABLE, CONSTANT, STRING, NUMBER, BOOLEAN, ARRAY, OBJECT, KEY = range(11, 21)
    NULL, ENUM_MEMBER, STRUCT, EVENT, OPERATOR, TYPE_PARAMETER = range(21, 27)

    NAMES = {1: "file", 2: "module", 3: "namespace", 4: "package", 5: "class", 6: "method", 7: "property",
             8: "field", 9: "constructor", 10: "enum", 11: "interface", 12: "function", 13: "variable",
             14: "constant", 15: "string", 16: "number", 17: "boolean", 18: "array", 19: "object", 20: "key",
             21: "null", 22: "enummember", 23: "struct", 24: "event", 25: "operator", 26: "typeparameter"}
    BY_NAME = {v: k for k, v in NAMES.items()}


class Symbol(NamedTuple):
    name: str
    kind: int  # SymbolKind
    container: str  # the enclosing class, struct, namespace, heading ("" at top level)
    line: int  # 0-based
    col: int  # UTF-16 column of the name's first character
    end_col: int  # UTF-16 column after its last


@dataclass(frozen=True, slots=True)
class _Rule:
    pattern: re.Pattern[bytes]  # group "name" is the symbol; optional "recv" names the container (Go receivers)
    kind: int  # 0: a container only (Rust ``impl X``), not reported itself
    container: bool = False  # symbols below it (by indentation) belong to it


_KEY_DROP = re.compile(r"[\W_]+")


def symbol_key(name: str) -> str:
    """A name's lookup key: lowercase letters and digits only (``PM_RESUME``, ``pmResume`` -> ``pmresume``);
    a query typed without case or underscores meets the name there."""
    return _KEY_DROP.sub("", name).lower()


_C_EXT = frozenset("c h cc cpp cxx hpp hh hxx c++ h++ inl m mm cu cuh ino".split())
_EXT = {
    **{e: "c" for e in _C_EXT},
    "py": "python", "pyi": "python", "pyw": "python",
    "js": "js", "jsx": "js", "mjs": "js", "cjs": "js", "ts": "js", "tsx": "js", "mts": "js", "cts": "js",
    "go": "go", "rs": "rust", "java": "java", "kt": "java", "kts": "java", "scala": "java", "cs": "csharp",
    "rb": "ruby", "rake": "ruby", "php": "php", "sh": "shell", "bash": "shell", "zsh": "shell", "ksh": "shell",
    "md": "markdown", "markdown": "markdown", "mdx": "markdown",
}


def language_of(name: str) -> str | None:
    """The extractor for a file name (its extension), or None for a file without symbols."""
    dot = name.rfind(".")
    if dot < 0:
        return "ruby" if name in ("Rakefile", "Gemfile") else None
    ext = name[dot + 1:]
    return _EXT.get(ext) or _EXT.get(ext.lower())


def extract(name: str, data: bytes) -> list[Symbol]:
    """The definitions in ``data`` (a file named ``name``), in file order."""
    language = language_of(name)
    if language is None or not data:
        return []
    if language == "c":
        return _c_symbols(data, name.rsplit(".", 1)[-1].lower() in _CPP_EXT)
    return _by_rules(data, _RULES[language], language == "markdown")


def definitions_and_symbols(name: str, data: bytes) -> tuple[set[str], list[Symbol]]:
    """:func:`~sleuth.engine.definitions.defs.definition_keys` and :func:`extract` in one go, as the index build
    wants them: for the C family (most of the Linux tree) one pass of the definition regex serves both."""
    language = language_of(name)
    if language != "c" or not data:
        return definition_keys(data), extract(name, data)
    keys: set[str] = set()
    return keys, _c_symbols(data, name.rsplit(".", 1)[-1].lower() in _CPP_EXT, keys)


# -- the C family ---------------------------------------------------------------------------------------------

_C_KINDS = {"macro": SymbolKind.CONSTANT, "fptr": SymbolKind.TYPE_PARAMETER, "tname": SymbolKind.TYPE_PARAMETER,
            "tdef": SymbolKind.TYPE_PARAMETER, "func": SymbolKind.FUNCTION, "cfunc": SymbolKind.FUNCTION,
            "var": SymbolKind.VARIABLE, "gvar": SymbolKind.VARIABLE, "dmacro": SymbolKind.VARIABLE}
_TYPE_WORDS = {b"struct": SymbolKind.STRUCT, b"union": SymbolKind.STRUCT, b"enum": SymbolKind.ENUM,
               b"class": SymbolKind.CLASS, b"interface": SymbolKind.INTERFACE, b"trait": SymbolKind.INTERFACE,
               b"record": SymbolKind.CLASS, b"object": SymbolKind.OBJECT, b"protocol": SymbolKind.INTERFACE,
               b"module": SymbolKind.MODULE, b"namespace": SymbolKind.NAMESPACE, b"type": SymbolKind.CLASS}
_TYPE_WORD = re.compile(rb"(\w+)[ \t]+\w+\W*$")
# The same two tables as the compiled scan takes them: a kind per defs._KINDS entry ("type" decided by its
# word), and a kind per type word in _scan.c's TYPE_WORDS order.
_NATIVE_KINDS = tuple(_C_KINDS.get(kind, SymbolKind.CLASS) for kind in
                      ("macro", "fptr", "tname", "type", "func", "cfunc", "var", "gvar", "dmacro", "tdef"))
_NATIVE_TYPE_KINDS = tuple(_TYPE_WORDS[w] for w in b"struct union enum class interface trait record object protocol "
                                                   b"module namespace type".split())

# A top-level aggregate whose closing brace is at column 0 (the kernel's and most C code's layout).
_BLOCK = re.compile(rb"\n(?:typedef[ \t]+)?(?:(?:static|const|extern)[ \t]+)*(struct|union|enum)\b"
                    rb"(?:[ \t]+(?:__\w+(?:\(\([^\n]*?\)\))?[ \t]+)*(?P<tag>\w+))?[ \t]*(?:__\w+(?:\(\([^\n]*?\)\))?[ \t]*)?"
                    rb"\{[^\n]*\n")
_BLOCK_END = re.compile(rb"\n\}[ \t]*(?:__\w+(?:\(\([^\n]*?\)\))?[ \t]*)*(?P<alias>\w+)?")
_MEMBER = re.compile(rb"""\n[ \t]+(?:
    (?!return\b|goto\b|break\b|continue\b|case\b|default\b|else\b|if\b)[A-Za-z_][\w \t\*]*?[ \t\*]\**
      (?P<m>[A-Za-z_]\w*)(?:[ \t]*\[[^\]\n]*\])*[ \t]*(?::[ \t]*\w+[ \t]*)?(?:__\w+(?:\([^;\n]*\))?[ \t]*)*;
  | [A-Za-z_][\w \t\*]*\([ \t]*\*[ \t]*(?P<fp>\w+)[ \t]*(?:\[[^\]\n]*\][ \t]*)*\)[ \t]*\(
  | \}[ \t]*(?P<nested>\w+)(?:[ \t]*\[[^\]\n]*\])*[ \t]*;
)""", re.X)
_ENUMERATOR = re.compile(rb"\n[ \t]+(?P<e>[A-Za-z_]\w*)[ \t]*(?:=[^,\n]*)?(?:,|[ \t]*(?=\n)|[ \t]*/[*/])")
_MAX_BLOCK = 256 << 10
# C++ out-of-class definitions, ``Type Scope::name(`` at column 0 with no ``;`` before the line ends
# (the definition regex wants a blank before the name); only in C++ files: a pass less over C.
_SCOPED = re.compile(rb"\n(?:[\w:<>,\*&~ \t]+?[ \t\*&])?(?P<scope>\w+)(?:<[^>\n]*>)?::(?P<name>~?\w+)[ \t]*\((?![^\n]*;[ \t]*$)",
                     re.M)
# A function whose return type is on the line before (``static int\nxfs_foo(struct xfs_mount *mp)``): the
# name at column 0 followed by ``(``, the line before ending like a type, a ``{`` before any ``;``.
_SPLIT_FUNC = re.compile(rb"\n(?P<name>[A-Za-z_]\w*)[ \t]*\(")
_TYPE_END = re.compile(rb"(?:^|\n)(?![ \t]*#)[^\n;{}()=,\\:]*[\w\*][ \t]*$")
_CPP_EXT = frozenset("cc cpp cxx hpp hh hxx c++ h++ mm cu cuh ino".split())


class _Lines:
    """Byte offset -> (0-based line, line start), for offsets asked in increasing order (one pass)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.offset = 0
        self.line = 0
        self.start = 0

    def at(self, offset: int) -> tuple[int, int]:
        data = self.data
        if offset < self.offset:  # rare (a second pass): start over
            self.offset = self.line = self.start = 0
        self.line += data.count(b"\n", self.offset, offset)
        self.offset = offset
        self.start = data.rfind(b"\n", 0, offset) + 1
        return self.line, self.start


def _columns(data: bytes, line_start: int, start: int, end: int) -> tuple[int, int]:
    """UTF-16 columns of ``data[start:end]`` on the line beginning at ``line_start``."""
    before = data[line_start:start]
    word = data[start:end]
    if before.isascii() and word.isascii():
        return start - line_start, end - line_start
    col = len(before.decode("utf-8", "replace").encode("utf-16-le")) // 2
    return col, col + len(word.decode("utf-8", "replace").encode("utf-16-le")) // 2


def _c_symbols(data: bytes, cpp: bool = False, keys: set[str] | None = None) -> list[Symbol]:
    """The C family's symbols; ``keys`` (when given) receives what ``definition_keys`` would return."""
    buffer = b"\n" + data
    if native.found is not None:  # the same tuples, and the same keys, from the compiled scan
        found = native.found(buffer, keys if keys is not None else set(), _NATIVE_KINDS, _NATIVE_TYPE_KINDS)
    else:
        found = _c_found(buffer, keys)
    found.extend(_c_members(buffer))
    seen = {f[0] for f in found}
    for m in _SPLIT_FUNC.finditer(buffer):
        start = m.start("name") - 1
        name = m.group("name")
        if start in seen or name in NOT_NAMES or is_prototype(buffer[m.end():m.end() + 2000]):
            continue
        before = buffer.rfind(b"\n", 0, m.start())
        if before < 0 or not _TYPE_END.match(buffer, before, m.start()):
            continue
        found.append((start, start + len(name), name.decode("utf-8", "replace"), SymbolKind.FUNCTION, ""))
    if cpp:
        seen = {f[0] for f in found}
        for m in _SCOPED.finditer(buffer):
            start = m.start("name") - 1
            if start not in seen and m.group("name").lstrip(b"~") not in NOT_NAMES:
                found.append((start, m.end("name") - 1, m.group("name").decode("utf-8", "replace"), SymbolKind.METHOD,
                              m.group("scope").decode("utf-8", "replace")))
    found.sort()
    if native.place is not None:
        return native.place(data, found, Symbol)  # the Symbol tuples made in C
    if data.isascii():
        return _ascii_symbols(data, found)
    lines = _Lines(data)
    out: list[Symbol] = []
    for start, end, name, kind, container in found:
        line, line_start = lines.at(start)
        col, end_col = _columns(data, line_start, start, end)
        out.append(Symbol(name, kind, container, line, col, end_col))
    return out


def _c_found(buffer: bytes, keys: set[str] | None) -> list[tuple[int, int, str, int, str]]:
    """(name offset, name end, name, kind, container) of each definition line in ``buffer`` (``b"\\n" + data``),
    offsets in ``data``; ``keys`` (when given) receives each name's key. The regex path of
    :mod:`.native`'s ``found``."""
    found: list[tuple[int, int, str, int, str]] = []
    for m, group, raw in definition_matches(buffer):
        if keys is not None:
            keys.add(raw.replace(b"_", b"").lower().decode("utf-8", "replace"))
        start = m.start(group) - 1
        if group == "type":
            word = _TYPE_WORD.search(buffer, m.start(), m.end(group))
            kind = _TYPE_WORDS.get(word.group(1), SymbolKind.CLASS) if word else SymbolKind.CLASS
        else:
            kind = _C_KINDS[group]  # (a C-like function's name follows a blank: ``A::b(`` is _SCOPED's)
        found.append((start, start + len(raw), raw.decode("utf-8", "replace"), kind, ""))
    return found


def _ascii_symbols(data: bytes, found: list[tuple[int, int, str, int, str]]) -> list[Symbol]:
    """The symbols of an ASCII file, ``found`` sorted by offset, with :class:`_Lines` and
    :func:`_columns` inlined (a column is the bytes from the line start): their two calls, two
    slices and the symbol's Python-level construction were ~8% of a build worker's CPU (cProfile over
    every 20th file of the Linux tree, most in its big headers)."""
    out: list[Symbol] = []
    append, count, rfind, new = out.append, data.count, data.rfind, tuple.__new__  # no Python-level __new__
    line = previous = 0
    for start, end, name, kind, container in found:
        line += count(b"\n", previous, start)
        previous = start
        line_start = rfind(b"\n", 0, start) + 1
        append(new(Symbol, (name, kind, container, line, start - line_start, end - line_start)))
    return out


def _c_members(buffer: bytes) -> Iterator[tuple[int, int, str, int, str]]:
    """Members of top-level structs and unions, and enumerators, with their aggregate as container."""
    pos = 0
    leads = iter(native.block_lines(buffer)) if native.block_lines is not None else None
    while True:
        m = _BLOCK.search(buffer, pos) if leads is None else _next_block(buffer, pos, leads)
        if m is None:
            return
        body_start = m.end() - 1  # the newline that ends the opening line: member patterns start at one
        close = _BLOCK_END.search(buffer, body_start, body_start + _MAX_BLOCK)
        if close is None:
            pos = m.end()
            continue
        pos = close.end()
        tag = m.group("tag") or close.group("alias") or b""
        container = tag.decode("utf-8", "replace")
        body_end = close.start() + 1
        if m.group(1) == b"enum":
            for e in _ENUMERATOR.finditer(buffer, body_start, body_end):
                name = e.group("e")
                if name not in NOT_NAMES:
                    yield e.start("e") - 1, e.end("e") - 1, name.decode("utf-8", "replace"), SymbolKind.ENUM_MEMBER, container
            continue
        for f in _MEMBER.finditer(buffer, body_start, body_end):
            group = f.lastgroup or "m"
            name = f.group(group)
            if name in NOT_NAMES:
                continue
            yield f.start(group) - 1, f.end(group) - 1, name.decode("utf-8", "replace"), SymbolKind.FIELD, container


def _next_block(buffer: bytes, pos: int, leads: Iterator[int]) -> re.Match[bytes] | None:
    """``_BLOCK.search(buffer, pos)``, tried only at ``leads`` (ascending: the lines it can start on, from
    :mod:`.native`; those before ``pos`` are passed over): the search tried the pattern at every line
    of every C file, 18% of the symbols' regex time."""
    for lead in leads:
        if lead >= pos:
            m = _BLOCK.match(buffer, lead)
            if m is not None:
                return m
    return None


# -- other languages: line rules, containers by indentation ----------------------------------------------------

def _rules(*specs: tuple[str, int] | tuple[str, int, bool]) -> tuple[_Rule, ...]:
    return tuple(_Rule(re.compile(("\\n" + s[0]).encode()), s[1], len(s) > 2 and bool(s[2])) for s in specs)


_I = r"(?P<indent>[ \t]*)"
_ID = r"(?P<name>[A-Za-z_$][\w$]*)"
_RULES: dict[str, tuple[_Rule, ...]] = {
    "python": _rules(
        (_I + r"class[ \t]+" + _ID, SymbolKind.CLASS, True),
        (_I + r"(?:async[ \t]+)?def[ \t]+" + _ID, SymbolKind.FUNCTION, True),
        (r"(?P<indent>)" + _ID + r"[ \t]*(?::[^=\n]*)?=(?!=)", SymbolKind.VARIABLE),
    ),
    "js": _rules(
        (_I + r"(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?class[ \t]+" + _ID,
         SymbolKind.CLASS, True),
        (_I + r"(?:export[ \t]+)?(?:declare[ \t]+)?interface[ \t]+" + _ID, SymbolKind.INTERFACE, True),
        (_I + r"(?:export[ \t]+)?(?:declare[ \t]+)?(?:const[ \t]+)?enum[ \t]+" + _ID, SymbolKind.ENUM, True),
        (_I + r"(?:export[ \t]+)?(?:declare[ \t]+)?(?:namespace|module)[ \t]+" + _ID, SymbolKind.NAMESPACE, True),
        (_I + r"(?:export[ \t]+)?(?:declare[ \t]+)?type[ \t]+" + _ID + r"[ \t]*(?:<[^\n]*>)?[ \t]*=",
         SymbolKind.TYPE_PARAMETER),
        (_I + r"(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:async[ \t]+)?function\b[ \t]*\*?[ \t]*"
         + _ID, SymbolKind.FUNCTION),
        (_I + r"(?:export[ \t]+)?(?:declare[ \t]+)?(?:const|let|var)[ \t]+" + _ID
         + r"(?=[ \t]*(?::[^=\n]*)?=[ \t]*(?:async[ \t]+)?(?:function\b|\([^)\n]*\)[ \t]*(?::[^=\n]*)?=>|\w+[ \t]*=>))",
         SymbolKind.FUNCTION),
        (r"(?P<indent>)(?:export[ \t]+)?(?:const|let|var)[ \t]+" + _ID, SymbolKind.VARIABLE),
        (r"(?P<indent>[ \t]+)(?:(?:static|async|get|set|public|private|protected|readonly|override|abstract)[ \t]+)*"
         r"(?!(?:if|for|while|switch|catch|return|function|with|await|new|else|do|typeof)\b)(?P<name>[A-Za-z_$#][\w$]*)"
         r"[ \t]*(?:<[^>\n]*>)?\([^)\n]*\)[ \t]*(?::[^{\n]*)?\{", SymbolKind.METHOD),
    ),
    "go": _rules(
        (r"(?P<indent>)func[ \t]*\([ \t]*\w*[ \t]*\*?[ \t]*(?P<recv>\w+)[^)\n]*\)[ \t]*" + _ID, SymbolKind.METHOD),
        (r"(?P<indent>)func[ \t]+" + _ID, SymbolKind.FUNCTION),
        (r"(?P<indent>)type[ \t]+" + _ID + r"[ \t]+struct\b", SymbolKind.STRUCT),
        (r"(?P<indent>)type[ \t]+" + _ID + r"[ \t]+interface\b", SymbolKind.INTERFACE),
        (r"(?P<indent>)type[ \t]+" + _ID + r"(?![ \t]+(?:struct|interface)\b)[ \t]+\S", SymbolKind.CLASS),
        (r"(?P<indent>[ \t]*)(?:type[ \t]+)?" + _ID + r"[ \t]+(?:struct|interface)[ \t]*\{", SymbolKind.STRUCT),
        (r"(?P<indent>)const[ \t]+" + _ID, SymbolKind.CONSTANT),
        (r"(?P<indent>)var[ \t]+" + _ID, SymbolKind.VARIABLE),
    ),
    "rust": _rules(
        (_I + r"(?:pub(?:\([\w: ]*\))?[ \t]+)?(?:(?:const|async|unsafe|extern(?:[ \t]+\"\w+\")?)[ \t]+)*fn[ \t]+" + _ID,
         SymbolKind.FUNCTION),
        (_I + r"(?:pub(?:\([\w: ]*\))?[ \t]+)?struct[ \t]+" + _ID, SymbolKind.STRUCT, True),
        (_I + r"(?:pub(?:\([\w: ]*\))?[ \t]+)?enum[ \t]+" + _ID, SymbolKind.ENUM, True),
        (_I + r"(?:pub(?:\([\w: ]*\))?[ \t]+)?union[ \t]+" + _ID, SymbolKind.STRUCT, True),
        (_I + r"(?:pub(?:\([\w: ]*\))?[ \t]+)?(?:unsafe[ \t]+)?trait[ \t]+" + _ID, SymbolKind.INTERFACE, True),
        (_I + r"(?:pub(?:\([\w: ]*\))?[ \t]+)?mod[ \t]+" + _ID, SymbolKind.MODULE, True),
        (_I + r"(?:pub(?:\([\w: ]*\))?[ \t]+)?type[ \t]+" + _ID, SymbolKind.TYPE_PARAMETER),
        (_I + r"(?:pub(?:\([\w: ]*\))?[ \t]+)?(?:const|static)[ \t]+(?:mut[ \t]+)?" + _ID, SymbolKind.CONSTANT),
        (_I + r"macro_rules![ \t]*" + _ID, SymbolKind.FUNCTION),
        (_I + r"(?:unsafe[ \t]+)?impl\b[^{\n]*?(?:\bfor[ \t]+)?(?P<name>\w+)(?:<[^{\n]*>)?[ \t]*(?:where\b[^{\n]*)?\{", 0, True),
    ),
    "java": _rules(
        (_I + r"(?:(?:public|private|protected|internal|static|final|abstract|sealed|open|data|inner|enum|annotation"
         r"|strictfp)[ \t]+)*(?:class|interface|enum|record|object|trait|@interface)[ \t]+" + _ID,
         SymbolKind.CLASS, True),
        (_I + r"(?:(?:public|private|protected|internal|static|final|abstract|synchronized|native|default|override"
         r"|open|suspend|inline)[ \t]+)*fun[ \t]+(?:<[^>\n]*>[ \t]*)?(?:\w+\.)?" + _ID, SymbolKind.METHOD),
        (_I + r"(?:(?:public|private|protected|static|final|abstract|synchronized|native|default|strictfp)[ \t]+)*"
         r"(?:<[^>\n]*>[ \t]+)?(?!(?:return|new|throw|else|case)\b)[\w.$]+(?:<[^\n(]*>)?(?:\[\])*[ \t]+" + _ID
         + r"[ \t]*\((?![^\n]*;[ \t]*$)", SymbolKind.METHOD),
        (r"(?P<indent>[ \t]+)(?:(?:public|private|protected)[ \t]+)(?:(?:static|final|transient|volatile)[ \t]+)*"
         r"[\w.$]+(?:<[^\n=;(]*>)?(?:\[\])*[ \t]+" + _ID + r"[ \t]*[=;]", SymbolKind.FIELD),
    ),
    "csharp": _rules(
        (_I + r"namespace[ \t]+(?P<name>[\w.]+)", SymbolKind.NAMESPACE, True),
        (_I + r"(?:(?:public|private|protected|internal|static|abstract|sealed|partial|readonly|ref|unsafe|file|new)"
         r"[ \t]+)*(?:class|interface|struct|enum|record(?:[ \t]+(?:class|struct))?)[ \t]+" + _ID, SymbolKind.CLASS, True),
        (_I + r"(?:(?:public|private|protected|internal|static|virtual|override|abstract|sealed|async|extern|unsafe"
         r"|new|partial|readonly)[ \t]+)*(?!(?:return|new|throw|else|case|await|using|var)\b)[\w.?]+(?:<[^\n(]*>)?"
         r"(?:\[[,\s]*\])*\??[ \t]+" + _ID + r"[ \t]*(?:<[^>\n]*>)?[ \t]*\((?![^\n]*;[ \t]*$)", SymbolKind.METHOD),
        (_I + r"(?:(?:public|private|protected|internal|static|virtual|override|abstract|sealed|new|required)[ \t]+)+"
         r"[\w.?]+(?:<[^\n{]*>)?(?:\[\])?\??[ \t]+" + _ID + r"[ \t]*(?:\{|=>)", SymbolKind.PROPERTY),
    ),
    "ruby": _rules(
        (_I + r"class[ \t]+(?:\w+::)*(?P<name>[A-Z]\w*)", SymbolKind.CLASS, True),
        (_I + r"module[ \t]+(?:\w+::)*(?P<name>[A-Z]\w*)", SymbolKind.MODULE, True),
        (_I + r"def[ \t]+(?:self\.)?(?P<name>[A-Za-z_]\w*[?!=]?)", SymbolKind.METHOD),
        (_I + r"(?P<name>[A-Z][A-Z0-9_]*)[ \t]*=(?!=)", SymbolKind.CONSTANT),
    ),
    "php": _rules(
        (_I + r"(?:(?:abstract|final|readonly)[ \t]+)*(?:class|interface|trait|enum)[ \t]+" + _ID, SymbolKind.CLASS, True),
        (_I + r"(?:(?:public|private|protected|static|abstract|final)[ \t]+)*function[ \t]+&?" + _ID, SymbolKind.METHOD),
        (_I + r"(?:(?:public|private|protected|final)[ \t]+)*const[ \t]+" + _ID, SymbolKind.CONSTANT),
    ),
    "shell": _rules(
        (_I + r"function[ \t]+(?P<name>[\w.:-]+)", SymbolKind.FUNCTION),
        (_I + r"(?P<name>[A-Za-z_][\w.:-]*)[ \t]*\([ \t]*\)", SymbolKind.FUNCTION),
    ),
    "markdown": _rules(
        (r"(?P<indent>#{1,6})[ \t]+(?P<name>[^\n]*?[^\s#][^\n]*?)(?:[ \t]+\#+)?[ \t]*(?=\n|$)", SymbolKind.STRING, True),
    ),
}
_KEYWORDS = frozenset(b"if for while switch return sizeof else do case goto typeof catch new throw await".split())
_CLASSES = frozenset({0, SymbolKind.CLASS, SymbolKind.STRUCT, SymbolKind.INTERFACE, SymbolKind.ENUM})
_FENCE = re.compile(rb"\n[ \t]{0,3}(```|~~~)")


def _by_rules(data: bytes, rules: Iterable[_Rule], headings: bool) -> list[Symbol]:
    buffer = b"\n" + data
    hits: dict[int, tuple[int, int, int, bool, str]] = {}  # name offset -> (end, indent, kind, opens, receiver)
    skip = _fenced(buffer) if headings else ()
    for rule in rules:
        for m in rule.pattern.finditer(buffer):
            start = m.start("name")
            if start in hits or (skip and any(a <= start < b for a, b in skip)):
                continue
            raw = m.group("name")
            if raw in _KEYWORDS:
                continue
            indent = m.group("indent")
            width = len(indent) if headings else len(indent.expandtabs(8))
            recv = m.groupdict().get("recv")
            hits[start] = (m.end("name"), width, rule.kind, rule.container,
                           recv.decode("utf-8", "replace") if recv else "")
    lines = _Lines(data)
    stack: list[tuple[int, str, int]] = []  # (indent, name, kind) of the open containers
    out: list[Symbol] = []
    for start in sorted(hits):
        end, indent, kind, opens, recv = hits[start]
        while stack and stack[-1][0] >= indent:
            stack.pop()
        name = buffer[start:end].decode("utf-8", "replace")
        container = recv or (stack[-1][1] if stack else "")
        if kind == SymbolKind.FUNCTION and not recv and stack and stack[-1][2] in _CLASSES:
            kind = SymbolKind.METHOD
        if kind:
            line, line_start = lines.at(start - 1)
            col, end_col = _columns(data, line_start, start - 1, end - 1)
            out.append(Symbol(name, kind, container, line, col, end_col))
        if opens:
            stack.append((indent, name, kind))
    return out


def _fenced(buffer: bytes) -> list[tuple[int, int]]:
    """Markdown code fences (``#`` lines inside are comments, not headings): (start, end) offsets."""
    spans: list[tuple[int, int]] = []
    opened: int | None = None
    for m in _FENCE.finditer(buffer):
        if opened is None:
            opened = m.start()
        else:
            spans.append((opened, m.end()))
            opened = None
    if opened is not None:
        spans.append((opened, len(buffer)))
    return spans
