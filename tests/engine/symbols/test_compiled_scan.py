"""The compiled definition scan (``_scan.c``, :mod:`sleuth.engine.definitions.native`) against the regex path
it replaces: the same definition lines with the same names and kinds, the same symbols and keys for every
language, the same stored bytes. The regex path is the reference; a difference is a bug in ``_scan.c``."""

from __future__ import annotations

import contextlib
from typing import Iterator

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sleuth.engine.definitions import defs, native
from sleuth.engine.definitions.extract import _EXT, definitions_and_symbols
from sleuth.engine.definitions.pack import name_keys, pack
from tests.conftest import under_fallback

compiled = under_fallback("no-compiled-defs", native.sites is None, "the compiled definition scan")

_KIND_INDEX = {kind: i for i, kind in enumerate(defs._KINDS)}

# Pieces of the shapes the ten alternatives look for, and of what they must refuse, mixed with names,
# punctuation, CRLF, non-ASCII and invalid UTF-8.
_WORDS = ("typedef struct union enum class interface trait record object protocol module namespace type "
          "def fn func function sub proc fun method export pub pub(crate) pub(in a::b) public private protected "
          "internal static abstract final sealed partial data case async override virtual inline extern unsafe "
          "const default local return if while else for sizeof DEFINE_MUTEX DECLARE_BITMAP DEFINE_ DEFINE_9 "
          "#define # define #include extends implements where fooextends Bar_where impl let var func* async "
          "foo Bar_baz x1 9z _ __init PM_RESUME getUserById a b int char void unsigned long").split()
_PUNCT = list("(){}[];=*&,:<>/#$@!?.\"'\\") + ["==", "//", "/*", "*/", "[4]", "[N + 1]", "::", "->", "=>", "(*",
                                                 ")(", "();", "(void)", "{}", "};"]
_ODD = ["\r", "\u00e9", "\u212a", "\U0001f600", "\ufeff"]
_BYTES = [b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\x00"]
_BLANKS = ["", " ", "\t", "  ", " \t"]

_token = st.one_of(st.sampled_from(_WORDS), st.sampled_from(_PUNCT), st.sampled_from(_ODD),
                   st.text(alphabet="abcXYZ_019", min_size=1, max_size=6))


_b = st.sampled_from(["", " ", "\t", "  "])  # blanks, maybe none
_b1 = st.sampled_from([" ", "\t", " \t"])  # blanks, at least one
_name = st.one_of(st.sampled_from(["foo", "Bar_baz", "x1", "9z", "_", "if", "sizeof", "fooextends", "Awhere",
                                   "défini"]),
                  st.text(alphabet="abcXYZ_019", min_size=1, max_size=6))
_type = st.sampled_from(["int", "unsigned long", "struct s", "const char", "enum e", "u8", "void", "struct s *",
                         "static int", "extern int", "return", "typedef int", "A::B", "std::vector<int>", "T&"])
_rest = st.sampled_from(["", ")", "void)", "int a);", "int a) {", "a, b);  ", "x) /* c */", ";", " = 1;", "{",
                         "0};", "== 1;", "[2];", "x);\r", ") ;\t", "(*f)(void);"])
_mods = st.lists(st.sampled_from(["static", "pub", "pub(crate)", "export", "const", "case", "async", "typedef",
                                  "public", "default", "x"]), max_size=3).map(lambda m: "".join(w + " " for w in m))
_kw = st.sampled_from(["struct", "union", "enum", "class", "interface", "trait", "record", "object", "protocol",
                       "module", "namespace", "type", "def", "fn", "func", "function", "sub", "proc", "fun",
                       "method", "functional", "types"])
_follow = st.sampled_from(["", " {", ":", "(", "<T>", " = 1", " // c", " /* c", " extends A", " implements B",
                           " where T", "where", "extends", " x", ";", "(self)", "\r"])
_arr = st.sampled_from(["", "[4]", "[N + 1][2]", " [3] ", "[", "]"])
# The shapes of the ten alternatives, slot by slot (then mutated by _line): most lines come near a definition.
_SHAPES = [
    st.tuples(st.just("#"), _b, st.sampled_from(["define", "defined", "include"]), _b, _name, _rest),
    st.tuples(st.just("typedef"), _b1, _type, _b, st.just("("), _b, st.just("*"), _b, _name, _b, st.just(")"),
              _b, st.sampled_from(["(", "", "[", ";"]), _rest),
    st.tuples(st.just("typedef"), _b1, st.sampled_from(["", "struct ", "union ", "enum "]), _type, _b1, _name,
              _arr, _b, st.sampled_from([";", "(", "{", ""])),
    st.tuples(_mods, _kw, _b1, st.sampled_from(["", "(r *T) ", "(x) "]), _name, _follow),
    st.tuples(_type, _b1, st.sampled_from(["", "*", "**", "&"]), _name, _b, st.sampled_from(["(", "=", ""]), _rest),
    st.tuples(_type, _b1, st.sampled_from(["", "*"]), _name, _arr, _b, st.sampled_from(["=", "==", ";", ""]), _rest),
    st.tuples(st.sampled_from(["", "static ", "static\t"]), st.sampled_from(["DEFINE_", "DECLARE_", "DEFINE"]),
              st.sampled_from(["MUTEX", "PER_CPU9", "", "x"]), st.sampled_from(["(", " ("]), _b, _name, _rest),
    st.tuples(st.just("}"), _b, st.sampled_from(["", "else ", "while ", "__packed ", "elsewhere ", "x = ", "a; ",
                                                "{ ", "} ", "(b) "]), _name, _arr, _b,
              st.sampled_from([";", "", "=", "{"]), st.sampled_from(["", " b;", "; c;", " = d;"])),
]


@st.composite
def _line(draw: st.DrawFn) -> bytes:
    indent = draw(st.sampled_from(["", "", "", " ", "\t", "    ", "\t\t", " \t"]))
    if draw(st.integers(0, 4)):
        pieces = [indent, *draw(st.one_of(_SHAPES))]
    else:
        pieces = [indent] + [t + draw(_b) for t in draw(st.lists(_token, max_size=12))]
    for _ in range(draw(st.integers(0, 2))):  # a mutation: a token in, or a piece out
        at = draw(st.integers(0, len(pieces)))
        if draw(st.booleans()):
            pieces.insert(at, draw(_token) + draw(_b))
        elif at < len(pieces):
            del pieces[at]
    line = "".join(pieces).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        at = draw(st.integers(0, len(line)))
        line = line[:at] + draw(st.sampled_from(_BYTES)) + line[at:]
    if draw(st.integers(0, 30)) == 0:  # a very long line: minified or generated code
        line += b"a_b, " * draw(st.integers(500, 3000)) + b"x(y)"
    return line


@st.composite
def _source(draw: st.DrawFn) -> bytes:
    ending = draw(st.sampled_from([b"\n", b"\n", b"\r\n"]))
    return ending.join(draw(st.lists(_line(), max_size=25))) + draw(st.sampled_from([b"", ending]))


_NAMES = ["a." + ext for ext in sorted(_EXT)] + ["Rakefile", "notes.txt", "Makefile"]


def _regex_sites(data: bytes) -> list[tuple[int, int, int, int]]:
    return [(m.start(), m.start(kind), m.end(kind), _KIND_INDEX[kind])
            for m, kind, _ in defs.definition_matches(b"\n" + data)]


@contextlib.contextmanager
def _regex_path() -> Iterator[None]:
    """The Python path, in this process: every compiled entry point of :mod:`.native` switched off."""
    saved = {name: getattr(native, name) for name in native.__all__}
    try:
        for name in saved:
            setattr(native, name, None)
        yield
    finally:
        for name, value in saved.items():
            setattr(native, name, value)


_EXAMPLES = [
    b"static int foo(int a)\n{\n}\nint bar(void);\nstatic const struct file_operations ext4_fops = {\n",
    b"typedef struct x {\n} X_t;\ntypedef int (*handler_t)(void *);\ntypedef unsigned long ulong;\n",
    b"\tpub(crate) async fn run() {}\nclass Foowhere x\nstruct a extends\n} __packed foo_t;\n} else {\n",
    b"DEFINE_MUTEX(lock);\nstatic DECLARE_BITMAP(map, 64);\n#  define  MAX(a, b) ((a) > (b))\nint if = 1;\n",
    b"char *p \xff= 1;\r\nint x[4] = {0};\r\nstatic int debug_level;\r\nstruct s;\nint f(a)\n  int a;\n{\n",
    b"\xc3\xa9t\xc3\xa9 int caf\xc3\xa9 = 1;\nint \xf0\x9f\x98\x80x, y = 2;\n\tint z; // \xe2\x82\n",
    b"struct widget {\n\tint w_flags;\n\tint (*probe)(void);\n\tunion {\n\t\tint raw;\n\t} u;\n};\n\nenum state {\n"
    b"\tON = 1,\n\tOFF\n};\ntypedef struct {\n\tint a;\n} anon_t;\nstatic const struct __packed foo {\n\tu8 b;\n};\n"
    b"extern struct s x;\nconst int c = 1;\nstatic int\nsplit_func(int a)\n{\n}\n",
]


@compiled
def test_the_extension_is_built_by_the_install() -> None:
    """``pip install -e .`` compiles ``_scan.c`` where a compiler exists (setup.py): the build's fast path."""
    assert native.sites is not None and native.found is not None and native.place is not None


@compiled
@settings(max_examples=500, deadline=None)
@given(_source())
@example(b"typedef i\x00nt(*foo)")  # a NUL where the C code compared with strchr
def test_the_compiled_scan_finds_the_regexs_definition_lines(data: bytes) -> None:
    """Every accepted definition line: its start, the name's span and the alternative that matched."""
    assert native.sites is not None
    assert native.sites(b"\n" + data) == _regex_sites(data)


@compiled
@settings(max_examples=300, deadline=None)
@given(_source(), st.sampled_from(_NAMES))
def test_symbols_keys_and_stored_bytes_are_the_regex_paths(data: bytes, name: str) -> None:
    """What the build stores for a file (its ``defs`` keys, its symbols, their name keys and packed blob)
    is the same through the compiled scan as through the regex path, for every language."""
    keys, symbols = definitions_and_symbols(name, data)
    stored = (defs.definition_keys(data), name_keys(symbols), pack(symbols))
    with _regex_path():
        want_keys, want_symbols = definitions_and_symbols(name, data)
        want_stored = (defs.definition_keys(data), name_keys(want_symbols), pack(want_symbols))
    assert (keys, symbols) == (want_keys, want_symbols)
    assert [type(s) for s in symbols] == [type(s) for s in want_symbols]
    assert stored == want_stored


@compiled
def test_hand_written_shapes_agree() -> None:
    """The shapes the definition docstring lists, CRLF, non-ASCII columns and invalid UTF-8, as C and C++."""
    for data in _EXAMPLES:
        assert native.sites is not None and native.sites(b"\n" + data) == _regex_sites(data)
        for name in ("a.c", "a.cpp", "a.py", "a.txt"):
            got = definitions_and_symbols(name, data)
            with _regex_path():
                assert got == definitions_and_symbols(name, data), (name, data)


@compiled
@example(b"typedef int (*handler_t)(void *);")
@given(st.binary(max_size=300))
@settings(max_examples=300, deadline=None)
def test_arbitrary_bytes_agree(data: bytes) -> None:
    """Any bytes at all (no line structure assumed): the same lines, and no crash on a buffer of one "\\n"."""
    assert native.sites is not None
    assert native.sites(b"\n" + data) == _regex_sites(data)
    assert native.sites(data) == [(m.start(), m.start(k), m.end(k), _KIND_INDEX[k])
                                  for m, k, _ in defs.definition_matches(data)]
