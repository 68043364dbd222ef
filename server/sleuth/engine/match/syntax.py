"""A parser for ripgrep's regex dialect (Rust's ``regex-syntax``), producing a small AST.

Sleuth owns its parser instead of handing the pattern to an engine, because one dialect must
mean the same thing whichever engine runs it: the AST is emitted for RE2 and for the ``regex``
module (:mod:`.emit`), mined for required literals (:mod:`.literals`) and for
rg's smart-case rule, and its errors carry a 0-based character ``position`` in the pattern.

Accepted syntax is Rust's: literals and escapes (``\\x7F \\x{10FFFF} \\u00E9 \\U0001F600 \\n \\t``,
escaped punctuation), ``.``, classes with ranges, nesting, ``&& -- ~~`` and ``[:posix:]`` items,
``\\d \\s \\w \\p{..} \\P{..}``, ``^ $ \\A \\z \\b \\B \\< \\> \\b{start} \\b{end} \\b{start-half}
\\b{end-half}``, groups (``(?:`` ``(?P<n>`` ``(?<n>``), flags ``i m s x U u`` (set and scoped),
repetitions with lazy forms. Beyond rg's default engine, and like ``rg --engine auto``, look-around
(``(?=`` ``(?!`` ``(?<=`` ``(?<!``) and back-references (``\\1``, ``\\k<name>``) are accepted: they are
run by the ``regex`` module under a timeout.
"""

from __future__ import annotations

from sleuth.engine.match.charclass import (
    CharSet, UnknownProperty, case_fold, perl_class, posix_class, unicode_property,
)
from sleuth.engine.match.nodes import (
    Alt, Assert, Backref, Cls, Concat, Dot, Empty, Flags, Group, Lit, Look, Node, ParseError, Parsed, Repeat,
)

__all__ = [  # the node types are re-exported: callers read the AST from here
    "Lit", "Cls", "Dot", "Assert", "Repeat", "Group", "Concat", "Alt", "Look", "Backref", "Empty",
    "Node", "Flags", "ParseError", "Parsed", "parse", "escape",
]


_RE2_MAX_COUNT = 1000
_MAX_COUNT = 65535
_SIMPLE_ESCAPES = {"a": 7, "f": 12, "t": 9, "n": 10, "r": 13, "v": 11}
_META = set("\\.+*?()|[]{}^$#&-~")
_FLAG_CHARS = set("imsxUuR")


class _Parser:
    def __init__(self, pattern: str, case_insensitive: bool) -> None:
        self.p = pattern
        self.n = len(pattern)
        self.i = 0
        self.out = Parsed(Empty())
        self.initial = Flags(i=case_insensitive)
        self.backrefs: list[tuple[int, int]] = []  # (group number, position), checked once all groups are known

    # -- helpers -------------------------------------------------------------------------
    def error(self, message: str, pos: int | None = None) -> ParseError:
        return ParseError(message, self.i if pos is None else pos)

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.p[j] if j < self.n else ""

    def skip_ws(self, flags: Flags) -> None:
        if not flags.x:
            return
        while self.i < self.n:
            ch = self.p[self.i]
            if ch.isspace():
                self.i += 1
            elif ch == "#":
                while self.i < self.n and self.p[self.i] != "\n":
                    self.i += 1
            else:
                return

    def note_literal(self, cp: int) -> None:
        self.out.any_literal = True
        if chr(cp).isupper():
            self.out.any_uppercase = True

    # -- grammar -------------------------------------------------------------------------
    def parse(self) -> Parsed:
        node = self.parse_alternation(self.initial.copy(), depth=0)
        if self.i < self.n:  # only a ')' stops the top level early
            raise self.error("unopened group")
        for index, pos in self.backrefs:
            if index > self.out.groups:
                raise ParseError(f"back-reference to group {index}, but the pattern has {self.out.groups}", pos)
        self.out.node = node
        return self.out

    def parse_alternation(self, flags: Flags, depth: int) -> Node:
        branches: list[Node] = []
        items: list[Node] = []
        while True:
            self.skip_ws(flags)
            if self.i >= self.n or self.p[self.i] == ")":
                if self.i < self.n and depth == 0:
                    raise self.error("unopened group")
                break
            ch = self.p[self.i]
            if ch == "|":
                branches.append(_concat(items))
                items = []
                self.i += 1
                continue
            if ch == "(" and self._flag_directive(flags):
                continue
            atom = self.parse_atom(flags, depth)
            items.append(self.parse_repetitions(atom, flags))
        branches.append(_concat(items))
        return branches[0] if len(branches) == 1 else Alt(tuple(branches))

    def _flag_directive(self, flags: Flags) -> bool:
        """Handle ``(?flags)`` (no colon): it changes ``flags`` for the rest of the group."""
        if not self.p.startswith("(?", self.i):
            return False
        j = self.i + 2
        while j < self.n and (self.p[j] in _FLAG_CHARS or self.p[j] == "-"):
            j += 1
        if j >= self.n or self.p[j] != ")" or j == self.i + 2:
            return False
        self.apply_flags(self.p[self.i + 2 : j], flags, self.i + 2)
        self.i = j + 1
        return True

    def apply_flags(self, text: str, flags: Flags, start: int) -> None:
        value = True
        seen: set[str] = set()
        for k, ch in enumerate(text):
            pos = start + k
            if ch == "-":
                if not value:
                    raise ParseError("flag negation operator repeated", pos)
                value = False
                continue
            if ch not in _FLAG_CHARS:
                raise ParseError("unrecognized flag", pos)
            if ch in seen:
                raise ParseError("duplicate flag", pos)
            seen.add(ch)
            setattr(flags, ch, value)
        if text.endswith("-"):
            raise ParseError("flag negation operator not followed by a flag", start + len(text) - 1)

    def parse_atom(self, flags: Flags, depth: int) -> Node:
        ch = self.p[self.i]
        start = self.i
        if ch == "(":
            return self.parse_group(flags, depth)
        if ch == "[":
            cs, negated = self.parse_class(flags)
            return Cls(cs, negated, flags.i, start)
        if ch in "*+?{":
            raise self.error("repetition operator missing expression")
        self.i += 1
        if ch == ".":
            return Dot(flags.s, flags.R)
        if ch == "^":
            return self.line_assertion("bol", "bot", flags)
        if ch == "$":
            return self.line_assertion("eol", "eot", flags)
        if ch == "\\":
            return self.parse_escape(flags, start)
        cp = ord(ch)
        self.note_literal(cp)
        return Lit(cp, flags.i, start)

    def line_assertion(self, line: str, text: str, flags: Flags) -> Assert:
        if not flags.m:
            return Assert(text)
        if flags.R:
            self.out.needs_backtracking = True  # CRLF-aware ^/$ need look-around: the regex engine
            return Assert(line + "_crlf")
        return Assert(line)

    def parse_group(self, flags: Flags, depth: int) -> Node:
        start = self.i
        self.i += 1
        inner = flags.copy()
        index: int | None = None
        look: tuple[bool, bool] | None = None
        if self.peek() == "?":
            self.i += 1
            nxt = self.peek()
            if nxt in ("=", "!"):
                look = (False, nxt == "!")
                self.i += 1
            elif nxt == "<" and self.peek(1) in ("=", "!"):
                look = (True, self.peek(1) == "!")
                self.i += 2
            elif nxt == "P" and self.peek(1) == "<" or nxt == "<":
                self.i += 2 if nxt == "P" else 1
                index = self.named_group()
            else:
                j = self.i
                while j < self.n and self.p[j] not in ":)":
                    j += 1
                if j >= self.n:
                    raise ParseError("expected flag but got end of regex", self.n)
                if self.p[j] == ")":
                    raise ParseError("unrecognized flag", self.i)
                self.apply_flags(self.p[self.i : j], inner, self.i)
                self.i = j + 1
        else:
            self.out.groups += 1
            index = self.out.groups
        body = self.parse_alternation(inner, depth + 1)
        if self.i >= self.n:
            raise ParseError("unclosed group", start)
        self.i += 1  # ')'
        if look is not None:
            self.out.needs_backtracking = True
            return Look(body, behind=look[0], negate=look[1])
        return Group(body, index)

    def named_group(self) -> int:
        start = self.i
        end = self.p.find(">", start)
        if end < 0:
            raise ParseError("unclosed capture group name", start)
        name = self.p[start:end]
        if not name:
            raise ParseError("empty capture group name", start)
        for k, ch in enumerate(name):
            if not (ch.isalnum() or ch in "_.[]" and k > 0 or ch == "_"):
                raise ParseError("invalid capture group character", start + k)
        if name in self.out.names:
            raise ParseError("duplicate capture group name", start)
        self.out.groups += 1
        self.out.names[name] = self.out.groups
        self.i = end + 1
        return self.out.groups

    def parse_repetitions(self, atom: Node, flags: Flags) -> Node:
        while True:
            self.skip_ws(flags)
            ch = self.peek()
            if ch in ("*", "+", "?"):
                lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[ch]
                self.i += 1
            elif ch == "{":
                lo, hi = self.parse_counted()
            else:
                return atom
            greedy = True
            if self.peek() == "?":
                greedy = False
                self.i += 1
            if flags.U:
                greedy = not greedy
            atom = Repeat(atom, lo, hi, greedy)

    def parse_counted(self) -> tuple[int, int | None]:
        start = self.i
        self.i += 1
        self.skip_spaces()
        if self.i >= self.n:
            raise ParseError("unclosed counted repetition", start)
        lo = self.decimal()
        hi: int | None = lo
        self.skip_spaces()
        if self.peek() == ",":
            self.i += 1
            self.skip_spaces()
            hi = None if self.peek() == "}" else self.decimal()
            self.skip_spaces()
        if self.peek() != "}":
            raise ParseError("unclosed counted repetition", start)
        self.i += 1
        if hi is not None and lo > hi:
            raise ParseError("invalid repetition count range, the start must be <= the end", start)
        if max(lo, hi or 0) > _MAX_COUNT:
            raise ParseError(f"repetition count above {_MAX_COUNT} is not supported; use a smaller count", start)
        if max(lo, hi or 0) > _RE2_MAX_COUNT:
            self.out.needs_backtracking = True  # RE2 stops at 1000; the regex module runs it (under a timeout)
        return lo, hi

    def skip_spaces(self) -> None:
        """Rust allows spaces inside ``{n, m}``."""
        while self.i < self.n and self.p[self.i] == " ":
            self.i += 1

    def decimal(self) -> int:
        j = self.i
        while j < self.n and self.p[j].isdigit() and self.p[j].isascii():
            j += 1
        if j == self.i:
            if self.i >= self.n:
                raise ParseError("unclosed counted repetition", self.i)
            raise self.error("repetition quantifier expects a valid decimal")
        value = int(self.p[self.i : j])
        self.i = j
        return value

    # -- escapes -------------------------------------------------------------------------
    def parse_escape(self, flags: Flags, start: int) -> Node:
        """After a backslash outside a class."""
        if self.i >= self.n:
            raise ParseError("incomplete escape sequence, reached end of pattern prematurely", start)
        ch = self.p[self.i]
        if ch == "A":
            self.i += 1
            return Assert("bot")
        if ch == "z":
            self.i += 1
            return Assert("eot")
        if ch in "<>":
            self.i += 1
            self.out.needs_backtracking = True  # RE2 has no start/end-of-word assertions
            return Assert("wstart" if ch == "<" else "wend", not flags.u)
        if ch in "bB":
            self.i += 1
            special = self._word_assertion_name() if ch == "b" and self.peek() == "{" else None
            if special is not None:
                kind = special
                self.out.needs_backtracking = True
            else:  # a plain \b (a following "{1,2}" is a repetition of it, as in rg)
                kind = "wb" if ch == "b" else "nwb"
            if flags.u:
                self.out.word_boundaries = True
            return Assert(kind, not flags.u)
        if ch.isdigit() and ch != "0":
            j = self.i
            while j < self.n and self.p[j].isdigit():
                j += 1
            self.out.needs_backtracking = True
            index = int(self.p[self.i : j])
            self.i = j
            self.backrefs.append((index, start))
            return Backref(index)
        if ch == "k" and self.peek(1) == "<":
            end = self.p.find(">", self.i)
            name = self.p[self.i + 2 : end] if end > 0 else ""
            if name not in self.out.names:
                raise ParseError("back-reference to an unknown group name", start)
            self.i = end + 1
            self.out.needs_backtracking = True
            return Backref(self.out.names[name])
        item = self.escape_item(flags, start)
        if isinstance(item, int):
            self.note_literal(item)
            return Lit(item, flags.i, start)
        return Cls(item, False, flags.i, start)

    def _word_assertion_name(self) -> str | None:
        """``\\b{start}`` and friends; None (and nothing consumed) when the braces are a repetition."""
        end = self.p.find("}", self.i)
        name = self.p[self.i + 1 : end] if end > 0 else ""
        if not name or not all(c.isalpha() or c == "-" for c in name):
            return None
        kinds = {"start": "wstart", "end": "wend", "start-half": "wstart_half", "end-half": "wend_half"}
        if name not in kinds:
            raise ParseError("unrecognized word boundary assertion", self.i - 2)
        self.i = end + 1
        return kinds[name]

    def escape_item(self, flags: Flags, start: int) -> int | CharSet:
        """An escape valid both in and out of classes: a code point or a class."""
        ch = self.p[self.i]
        self.i += 1
        if ch in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[ch]
        if ch in "dswDSW":
            return perl_class(ch, flags.u)
        if ch in "pP":
            return self.unicode_class(ch == "P", start)
        if ch in "xuU":
            value = self.hex_escape(ch, start)
            if not flags.u and value > 0x7F:
                # rg reads this as one raw byte; Sleuth matches text, so say so instead of differing
                raise ParseError("raw byte escapes above \\x7F in (?-u) mode are not supported", start)
            return value
        if ch == "0":
            raise ParseError("octal escapes are not supported; use \\x{..}", start)
        if ch.isascii() and not ch.isalnum():
            return ord(ch)
        raise ParseError("unrecognized escape sequence", start)

    def hex_escape(self, kind: str, start: int) -> int:
        if self.peek() == "{":
            end = self.p.find("}", self.i)
            if end < 0:
                raise ParseError("unclosed hexadecimal literal (missing '}')", start)
            digits = self.p[self.i + 1 : end]
            if not digits:
                raise ParseError("hexadecimal literal empty", start)
            self.i = end + 1
        else:
            width = {"x": 2, "u": 4, "U": 8}[kind]
            digits = self.p[self.i : self.i + width]
            if len(digits) < width:
                raise ParseError("incomplete escape sequence, reached end of pattern prematurely", start)
            self.i += width
        if not all(c in "0123456789abcdefABCDEF" for c in digits):
            raise ParseError("invalid hexadecimal digit", start)
        value = int(digits, 16)
        if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            raise ParseError("hexadecimal literal is not a Unicode scalar value", start)
        return value

    def unicode_class(self, negated: bool, start: int) -> CharSet:
        if self.i >= self.n:
            raise ParseError("incomplete escape sequence, reached end of pattern prematurely", start)
        if self.p[self.i] == "{":
            end = self.p.find("}", self.i)
            if end < 0:
                raise ParseError("unclosed Unicode class (missing '}')", start)
            name = self.p[self.i + 1 : end]
            self.i = end + 1
        else:
            name = self.p[self.i]
            self.i += 1
        try:
            cs = unicode_property(name)
        except UnknownProperty:
            raise ParseError(f"Unicode property not found: {name!r}", start) from None
        return cs.negate() if negated else cs

    # -- classes -------------------------------------------------------------------------
    def parse_class(self, flags: Flags) -> tuple[CharSet, bool]:
        start = self.i
        self.i += 1
        negated = False
        if self.peek() == "^":
            negated = True
            self.i += 1
        result = self.class_union(flags, start, first=True)
        if flags.i:  # (?i) folds every operand before set operations and negation, as Rust does
            result = case_fold(result)
        while True:
            self.skip_ws(flags)
            if self.i >= self.n:
                raise ParseError("unclosed character class", start)
            two = self.p[self.i : self.i + 2]
            if self.p[self.i] == "]":
                self.i += 1
                return result, negated
            if two in ("&&", "--", "~~"):
                self.i += 2
                rhs = self.class_union(flags, start, first=False)
                if flags.i:
                    rhs = case_fold(rhs)
                if two == "&&":
                    result = result.intersect(rhs)
                elif two == "--":
                    result = result.difference(rhs)
                else:
                    result = result.symmetric_difference(rhs)
                continue
            raise ParseError("unclosed character class", start)  # pragma: no cover - class_union consumes the rest

    def class_union(self, flags: Flags, start: int, first: bool) -> CharSet:
        acc: list[tuple[int, int]] = []
        while True:
            self.skip_ws(flags)
            if self.i >= self.n:
                raise ParseError("unclosed character class", start)
            ch = self.p[self.i]
            if ch == "]" and not first:
                break
            if self.p[self.i : self.i + 2] in ("&&", "--", "~~") and not first:
                break
            first = False
            if ch == "[":
                posix = self.posix_item()
                if posix is None:
                    nested, neg = self.parse_class(flags)
                    posix = nested.negate() if neg else nested
                acc.extend(posix.ranges)
                continue
            item_pos = self.i
            item = self.class_item(flags)
            if isinstance(item, CharSet):
                acc.extend(item.ranges)
                continue
            # A range `a-z` unless the '-' ends the class or starts an operator.
            if self.peek() == "-" and self.peek(1) not in ("]", "-", ""):
                self.i += 1
                end_pos = self.i
                hi = self.class_item(flags)
                if isinstance(hi, CharSet):
                    raise ParseError("invalid range boundary, must be a literal", end_pos)
                if hi < item:
                    raise ParseError("invalid character class range, the start must be <= the end", item_pos)
                acc.append((item, hi))
            else:
                acc.append((item, item))
        return CharSet.of(acc)

    def posix_item(self) -> CharSet | None:
        if not self.p.startswith("[:", self.i):
            return None
        end = self.p.find(":]", self.i + 2)
        if end < 0:
            return None
        name = self.p[self.i + 2 : end]
        negated = name.startswith("^")
        cs = posix_class(name[1:] if negated else name)
        if cs is None:
            return None
        self.i = end + 2
        return cs.negate() if negated else cs

    def class_item(self, flags: Flags) -> int | CharSet:
        start = self.i
        ch = self.p[self.i]
        if ch == "\\":
            self.i += 1
            if self.i >= self.n:
                raise ParseError("incomplete escape sequence, reached end of pattern prematurely", start)
            item = self.escape_item(flags, start)
        else:
            self.i += 1
            item = ord(ch)
        if isinstance(item, int):
            self.note_literal(item)
        return item


def _concat(items: list[Node]) -> Node:
    if not items:
        return Empty()
    return items[0] if len(items) == 1 else Concat(tuple(items))


def parse(pattern: str, *, case_insensitive: bool = False) -> Parsed:
    """Parse ``pattern`` in rg's dialect; raises :class:`ParseError` with a position."""
    return _Parser(pattern, case_insensitive).parse()


def escape(text: str) -> str:
    """``text`` as a pattern matching it literally (rg ``-F``)."""
    return "".join("\\" + ch if ch in _META else ch for ch in text)
