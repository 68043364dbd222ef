"""The ignore-file pattern language as ripgrep reads it, compiled for a per-entry walk.

* **Reading lines** (``ignore::gitignore``): a line without ``/`` floats (``**/`` is put in front),
  a leading ``/`` or an inner ``/`` anchors it to the file's folder, a trailing ``/`` matches
  folders only, ``!`` whitelists, a trailing ``/**`` matches what is inside but not the folder
  itself, ``{a,b}`` alternates, ``\\`` escapes, ``*``/``?``/``[...]`` never cross ``/``; within one
  file the last matching line wins. ``-g`` globs and deny globs use the same language.
* **Matching by path segment.** A rule is split at ``/`` into name globs and ``**``; each walked
  folder advances a tiny NFA per anchored rule (:class:`FileView`), so an entry is only ever tested
  by its name. Floating rules (the common kind: ``*.o``, ``node_modules``) are compiled per file
  into *one* regex whose first matching alternative is the deciding (last) line, so the usual
  "no rule matches" costs one regex call per file in force.
  pathspec's regexes answer "is this path or one of its parents matched", which misfires for a
  per-entry walk with negations (``!*/``), so the translation here is our own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from functools import lru_cache

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (issue 30)
if TYPE_CHECKING:
    import re

__all__ = ["Rule", "NameRules", "IgnoreFile", "FileView", "parse_line", "parse_lines", "segment_regex",
           "read_ignore_file", "glob_file", "glob_error", "caseless_glob"]

_MAX_ALTERNATES = 256


class Rule:
    """One glob line. ``segs`` holds one matcher per path segment: a ``str`` (a literal name), a
    compiled pattern (a name glob) or ``None`` (a ``**`` segment); ``globs`` the segments' text."""

    __slots__ = ("segs", "globs", "whitelist", "dir_only", "line", "text")

    def __init__(self, globs: tuple[str, ...], whitelist: bool, dir_only: bool, line: int, text: str) -> None:
        self.globs = globs
        self.segs = tuple(_segment(g) for g in globs)
        self.whitelist = whitelist
        self.dir_only = dir_only
        self.line = line
        self.text = text

    @property
    def floating(self) -> bool:
        """True when the rule matches by base name at any depth (``**/name``) or matches everything."""
        segs = self.segs
        return (len(segs) == 2 and segs[0] is None and segs[1] is not None) or all(s is None for s in segs)

    def __repr__(self) -> str:
        return f"Rule({self.text!r}, line={self.line})"


# ---------------------------------------------------------------------------------------------
# Pattern language


def _expand_braces(glob: str) -> list[str]:
    """``a{b,c}d`` -> ``abd``, ``acd`` (unescaped, outside classes); unbalanced braces stay literal."""
    depth = 0
    start = -1
    commas: list[int] = []
    i, n = 0, len(glob)
    in_class = False
    while i < n:
        c = glob[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            if i + 1 < n and glob[i + 1] in "!^":
                i += 1
            if i + 1 < n and glob[i + 1] == "]":
                i += 1
        elif c == "{":
            if depth == 0:
                start, commas = i, []
            depth += 1
        elif c == "," and depth == 1:
            commas.append(i)
        elif c == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                cuts = [start, *commas, i]
                head, tail = glob[:start], glob[i + 1 :]
                out: list[str] = []
                for a, b in zip(cuts, cuts[1:]):
                    for rest in _expand_braces(tail):
                        for mid in _expand_braces(glob[a + 1 : b]):
                            out.append(head + mid + rest)
                            if len(out) > _MAX_ALTERNATES:
                                return out
                return out
        i += 1
    return [glob]


def glob_error(glob: str) -> str | None:
    """Why globset refuses ``glob`` as a ``-g``/``--iglob`` glob, in its words (None: it is fine).

    An ignore file's line is read leniently (rg 15 treats ``[abc`` there as never matching, its bug
    3127), but a glob typed on the command line is refused, so a typo is not a silent no-op; since
    rg 15 alternates nest (``{a,{b,c}}``)."""
    depth, i, n = 0, 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "\\":
            if i + 1 >= n:
                return "dangling '\\'"
            i += 2
            continue
        if c == "[":
            j = i + 1
            if j < n and glob[j] in "!^":
                j += 1
            body_start = j
            if j < n and glob[j] == "]":
                j += 1  # a leading ']' is literal
            while j < n and glob[j] != "]":
                if glob[j] == "-" and j > body_start and j + 1 < n and glob[j + 1] != "]" and glob[j - 1] > glob[j + 1]:
                    return f"invalid range; '{glob[j - 1]}' > '{glob[j + 1]}'"
                j += 1
            if j >= n:
                return "unclosed character class; missing ']'"
            i = j + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return "unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)"
            depth -= 1
        i += 1
    if depth:
        return "unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)"
    return None


# re.escape's table: the regex text is built without importing ``re`` (see :class:`Glob`)
_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}


def _escape(text: str) -> str:
    return text.translate(_SPECIAL)


@lru_cache(maxsize=4096)
def segment_regex(seg: str) -> str:
    """Regex text for one path segment glob (no ``/`` in it): ``*``, ``?``, ``[...]``, ``\\x``."""
    out: list[str] = []
    i, n = 0, len(seg)
    while i < n:
        c = seg[i]
        if c == "*":
            while i + 1 < n and seg[i + 1] == "*":
                i += 1
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "\\":
            if i + 1 < n:
                i += 1
                out.append(_escape(seg[i]))
            else:
                out.append(_escape("\\"))
        elif c == "[":
            j = i + 1
            negate = j < n and seg[j] in "!^"
            if negate:
                j += 1
            k = j + 1 if j < n and seg[j] == "]" else j  # a leading ']' is literal
            while k < n and seg[k] != "]":
                k += 2 if seg[k] == "\\" and k + 1 < n else 1
            if k >= n:
                out.append(_escape("["))  # unclosed class: literal, as git and rg do
            else:
                out.append(_class_regex(seg[j:k], negate))
                i = k
        else:
            out.append(_escape(c))
        i += 1
    return "".join(out)


def _class_regex(body: str, negate: bool) -> str:
    parts: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c == "\\" and i + 1 < n:
            i += 1
            c = body[i]
        if i + 2 < n and body[i + 1] == "-":
            hi = body[i + 2]
            if hi == "\\" and i + 3 < n:
                hi = body[i + 3]
                i += 1
            if ord(hi) >= ord(c):
                parts.append(f"{_escape(c)}-{_escape(hi)}")
            i += 3
            continue
        parts.append(_escape(c))
        i += 1
    inner = "".join(parts) or "\\x00-\\x00"
    return f"[^/{inner}]" if negate else f"[{inner}]"


_WILD = frozenset("*?[\\")


def _literal(seg: str) -> str | None:
    """The name a wildcard-free segment glob stands for (escapes removed), else None."""
    if not _WILD.intersection(seg):
        return seg
    out: list[str] = []
    i, n = 0, len(seg)
    while i < n:
        c = seg[i]
        if c == "\\" and i + 1 < n:
            out.append(seg[i + 1])
            i += 2
            continue
        if c in _WILD:
            return None
        out.append(c)
        i += 1
    return "".join(out)


def _nfc(text: str) -> str:
    """``text`` in Unicode NFC; ``unicodedata`` imported by the first name or glob that is not ASCII
    (a cold grep's names and globs mostly are: issue 30)."""
    import unicodedata

    return unicodedata.normalize("NFC", text)


class Glob:
    """A name glob with wildcards, its regex compiled when a name is first tested against it.

    Most ignore-file globs never need one: ``*.o`` and ``build*`` are matched by ``str.endswith`` and
    ``startswith`` (:class:`NameRules`), literal names by ``==``. Compiling each at read time imported
    ``re`` (with ``enum``: ~3 ms) into every cold ``sleuth grep`` of a repository whose ``.gitignore``
    holds ``*.pyc`` (issue 30). ``pattern`` is the regex text; ``fullmatch`` is the compiled pattern's
    own once it ran (the instance attribute shadows the method: no extra call per name after that)."""

    def __init__(self, glob: str) -> None:
        self.glob = glob

    @property
    def pattern(self) -> str:
        return segment_regex(self.glob)

    def fullmatch(self, name: str) -> "re.Match[str] | None":
        import re

        self.fullmatch = re.compile(self.pattern, re.DOTALL).fullmatch  # type: ignore[method-assign]
        return self.fullmatch(name)


@lru_cache(maxsize=8192)
def _segment(glob: str) -> "str | Glob | None":
    if glob == "**":
        return None
    lit = _literal(glob)
    return lit if lit is not None else Glob(glob)


def _seg_match(seg: "str | Glob", name: str) -> bool:
    return seg == name if type(seg) is str else seg.fullmatch(name) is not None  # type: ignore[union-attr]


def parse_line(raw: str, line_no: int) -> list[Rule]:
    """The rules of one ignore-file line (several when ``{a,b}`` expands); [] for blanks/comments."""
    if raw.startswith("#"):
        return []
    line = raw if raw.endswith("\\ ") else raw.rstrip()
    if not line:
        return []
    text = line
    whitelist = False
    anchored = False
    if line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
        anchored = line.startswith("/")
    else:
        if line.startswith("!"):
            whitelist = True
            line = line[1:]
        if line.startswith("/"):
            line = line[1:]
            anchored = True
    dir_only = False
    if line.endswith("/"):
        dir_only = True
        line = line[:-1]
        if line.endswith("\\"):
            line = line[:-1]
    if not anchored and "/" not in line and not (line.startswith("**/") or line == "**"):
        line = "**/" + line
    if line.endswith("/**"):
        line += "/*"
    return [Rule(tuple(glob.split("/")), whitelist, dir_only, line_no, text) for glob in _expand_braces(line)]


def parse_lines(lines: Iterable[str]) -> list[Rule]:
    """All rules of an ignore file's lines, in line order."""
    rules: list[Rule] = []
    for no, raw in enumerate(lines):
        if no == 0:
            raw = raw.lstrip("\ufeff")
        rules.extend(parse_line(raw.rstrip("\r\n"), no))
    return rules


# ---------------------------------------------------------------------------------------------
# Name-level rule sets


class NameRules:
    """Rules that test one entry name, answering "which matching rule has the highest line?".

    Literal names go to dicts, ``*suffix`` and ``prefix*`` globs to ``str.endswith``/``startswith``
    tuples (one C call rejects a name), everything else to one regex whose first alternative is the
    highest line; so the usual "nothing matches" costs a few C calls and at most one regex call.
    """

    __slots__ = ("exact", "suffix", "prefix", "regex")

    def __init__(self, items: Iterable[tuple[int, bool, str, "str | Glob | None"]]) -> None:
        exact: dict[str, tuple[int, bool]] = {}
        suffix: list[tuple[str, int, bool]] = []
        prefix: list[tuple[str, int, bool]] = []
        rest: list[tuple[int, bool, str]] = []
        for line, white, glob, seg in items:
            if type(seg) is str:
                if seg not in exact or exact[seg][0] < line:
                    exact[seg] = (line, white)
                continue
            body = glob[1:]
            if seg is not None and glob.startswith("*") and body and _literal(body) == body:
                suffix.append((body, line, white))
            elif seg is not None and glob.endswith("*") and glob[:-1] and _literal(glob[:-1]) == glob[:-1]:
                prefix.append((glob[:-1], line, white))
            else:
                rest.append((line, white, seg.pattern if seg is not None else ".*"))  # type: ignore[union-attr]
        self.exact = exact
        self.suffix = (tuple(s for s, _, _ in suffix), tuple(suffix)) if suffix else None
        self.prefix = (tuple(p for p, _, _ in prefix), tuple(prefix)) if prefix else None
        self.regex = None
        if rest:
            rest.sort(key=lambda r: r[0], reverse=True)
            import re  # a glob neither a name, a *suffix nor a prefix* (see Glob)

            rx = re.compile("|".join(f"({p})" for _, _, p in rest), re.DOTALL)
            self.regex = (rx, ((-1, False),) + tuple((ln, w) for ln, w, _ in rest))

    def __bool__(self) -> bool:
        return bool(self.exact or self.suffix or self.prefix or self.regex)

    def best(self, name: str) -> tuple[int, bool] | None:
        """(line, whitelist) of the highest matching rule, or None."""
        hit = self.exact.get(name)
        if self.suffix is not None and name.endswith(self.suffix[0]):
            for s, line, white in self.suffix[1]:
                if (hit is None or line > hit[0]) and name.endswith(s):
                    hit = (line, white)
        if self.prefix is not None and name.startswith(self.prefix[0]):
            for p, line, white in self.prefix[1]:
                if (hit is None or line > hit[0]) and name.startswith(p):
                    hit = (line, white)
        if self.regex is not None:
            m = self.regex[0].fullmatch(name)
            if m is not None:
                cand = self.regex[1][m.lastindex or 0]
                if hit is None or cand[0] > hit[0]:
                    hit = cand
        return hit


def _name_rules(items: list[tuple[int, bool, bool, str, "str | Glob | None"]]
                ) -> tuple[NameRules | None, NameRules | None]:
    """(rules for files, rules for folders) from ``(line, white, dir_only, glob, seg)`` items."""
    if not items:
        return None, None
    files = NameRules((ln, w, g, s) for ln, w, d, g, s in items if not d)
    dirs = NameRules((ln, w, g, s) for ln, w, d, g, s in items)
    return (files or None), (dirs or None)


# ---------------------------------------------------------------------------------------------
# Compiled files and per-directory views


class IgnoreFile:
    """One ignore file (or glob list), compiled: floating rules by name, anchored rules as NFAs."""

    __slots__ = ("path", "rules", "positional", "float_file", "float_dir", "has_floating", "has_whitelist",
                 "start", "nfc")

    def __init__(self, rules: Sequence[Rule], path: str = "", nfc: bool = False) -> None:
        self.path = path
        self.nfc = nfc  # names are matched in Unicode NFC (deny globs: see glob_file)
        self.rules = tuple(rules)
        floating = [r for r in self.rules if r.floating]
        self.positional = tuple(r for r in self.rules if not r.floating)
        self.has_floating = bool(floating)
        self.has_whitelist = any(r.whitelist for r in self.rules)
        self.float_file, self.float_dir = _name_rules(
            [(r.line, r.whitelist, r.dir_only, r.globs[-1], r.segs[-1]) for r in floating])
        self.start = tuple((i, _closure(r.segs, frozenset((0,)))) for i, r in enumerate(self.positional))

    def __bool__(self) -> bool:
        return bool(self.rules)

    def view(self) -> "FileView | None":
        """The view for entries directly inside the folder this file is rooted at."""
        return FileView(self, self.start) if self.rules else None


def _closure(segs: tuple, states: frozenset[int]) -> frozenset[int]:
    out = set(states)
    for i in sorted(states):
        while i < len(segs) and segs[i] is None:
            i += 1
            out.add(i)
    return frozenset(out)


def _step(segs: tuple, states: frozenset[int], name: str) -> frozenset[int]:
    n = len(segs)
    nxt: set[int] = set()
    for i in states:
        if i >= n:
            continue
        seg = segs[i]
        if seg is None:
            nxt.add(i)
        elif _seg_match(seg, name):
            nxt.add(i + 1)
    return _closure(segs, frozenset(nxt)) if nxt else frozenset()


class FileView:
    """An ignore file as seen from one folder: which anchored rules can still match, and how."""

    __slots__ = ("file", "states", "here_file", "here_dir", "float_file", "float_dir")

    def __init__(self, file: IgnoreFile, states: tuple[tuple[int, frozenset[int]], ...]) -> None:
        self.file = file
        self.states = states
        self.float_file, self.float_dir = file.float_file, file.float_dir
        here: list[tuple[int, bool, bool, str, "str | Glob | None"]] = []
        for ri, st in states:
            rule = file.positional[ri]
            segs = rule.segs
            n = len(segs)
            for i in st:
                if i >= n:
                    continue
                if segs[i] is None:
                    if all(s is None for s in segs[i:]):
                        here.append((rule.line, rule.whitelist, rule.dir_only, "**", None))
                elif i == n - 1:
                    here.append((rule.line, rule.whitelist, rule.dir_only, rule.globs[i], segs[i]))
        self.here_file, self.here_dir = _name_rules(here)

    def child(self, name: str) -> "FileView | None":
        """The view from sub-folder ``name``; None when no rule of the file can match below it."""
        if not self.states:
            return self if self.file.has_floating else None
        if self.file.nfc and not name.isascii():
            name = _nfc(name)
        positional = self.file.positional
        states = []
        for ri, st in self.states:
            nst = _step(positional[ri].segs, st, name)
            if nst:
                states.append((ri, nst))
        if not states and not self.file.has_floating:
            return None
        return FileView(self.file, tuple(states))

    def match(self, name: str, is_dir: bool) -> bool | None:
        """True: ignored; False: whitelisted; None: no rule of this file matches ``name``."""
        if self.file.nfc and not name.isascii():
            name = _nfc(name)
        if is_dir:
            fl, here = self.float_dir, self.here_dir
        else:
            fl, here = self.float_file, self.here_file
        hit = fl.best(name) if fl is not None else None
        if here is not None:
            other = here.best(name)
            if other is not None and (hit is None or other[0] > hit[0]):
                hit = other
        return None if hit is None else not hit[1]


def caseless_glob(glob: str) -> str:
    """The glob with each letter as a class of both cases (``*.html`` → ``*.[hH][tT][mM][lL]``): rg's
    ``--iglob`` and ``--ignore-file-case-insensitive``. Letters in a class or escaped stay as they are."""
    out, in_class, i = [], False, 0
    while i < len(glob):
        ch = glob[i]
        if ch == "\\" and i + 1 < len(glob):
            out.append(glob[i:i + 2])
            i += 2
            continue
        if ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        out.append(f"[{ch.lower()}{ch.upper()}]" if ch.isalpha() and not in_class and ch.lower() != ch.upper()
                   else ch)
        i += 1
    return "".join(out)


_FILE_CACHE: dict[tuple[str, bool], tuple[tuple[int, int, int], IgnoreFile | None]] = {}
_FILE_CACHE_MAX = 4096


def read_ignore_file(path: str, caseless: bool = False) -> IgnoreFile | None:
    """Compile the ignore file at ``path``; None when it is missing, unreadable or has no rules.
    ``caseless``: its globs match either case (rg ``--ignore-file-case-insensitive``).

    Compiled files are kept per process, keyed by inode, size and mtime, so the many walks of one
    tree (searches, subtree walks in pool workers, the index) compile each file once."""
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            key = (st.st_ino, st.st_size, st.st_mtime_ns)
            hit = _FILE_CACHE.get((path, caseless))
            if hit is not None and hit[0] == key:
                return hit[1]
            data = fh.read()
    except OSError:
        return None
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    rules = parse_lines([caseless_glob(line) for line in lines] if caseless else lines)
    compiled = IgnoreFile(rules, path) if rules else None
    if len(_FILE_CACHE) >= _FILE_CACHE_MAX:
        _FILE_CACHE.clear()
    _FILE_CACHE[(path, caseless)] = (key, compiled)
    return compiled


def glob_file(globs: Iterable[str], *, override: bool) -> IgnoreFile | None:
    """Compile ``-g``-style globs. With ``override``, a plain glob whitelists and ``!glob`` ignores
    (rg's overrides); without it the globs read like ignore-file lines (deny globs).

    Deny globs are matched in Unicode NFC on both sides: ``café/**`` must deny the folder whether
    its name on disk is composed (Linux, Windows) or decomposed (made on macOS), because on a
    file system that does not normalise names the two spellings are different folders that look
    the same to the person who wrote the glob. A deny rule fails closed."""
    rules: list[Rule] = []
    for no, glob in enumerate(globs):
        if not override:
            rules.extend(parse_line(_nfc(glob), no))
        elif glob.startswith("!"):
            rules.extend(parse_line(glob[1:], no))
        else:
            for rule in parse_line(glob, no):
                rule.whitelist = True
                rules.append(rule)
    return IgnoreFile(rules, "<globs>", nfc=not override) if rules else None
