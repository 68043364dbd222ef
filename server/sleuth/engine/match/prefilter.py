"""The literal prefilter behind ``Matcher.may_match``: can this buffer hold a match at all?

Most files of a search hold no match, so a scan's speed is the speed of this question. It is
answered from the pattern's required literals (:func:`sleuth.engine.match.literals.required_literals`,
an AND/OR tree) by one of two scanners:

* **Hyperscan** (an optional dependency, x86-64 wheels): every literal of an OR, case-sensitive or
  not, in one pass of its SIMD literal matchers. Measured on 400 MB of the Linux tree (one core,
  the files as separate buffers): ripgrep's four ``alternates`` 0.27 s as four RE2 scans -> 0.086 s;
  case-insensitively 0.58 s -> 0.14 s; one case-insensitive literal 0.14 s -> 0.067 s; a single
  case-sensitive literal is a tie (RE2 memchr's a rare byte).
* **RE2** literal scans (the portable fallback): one scan per literal, started at the literal's
  rarest byte so RE2's ``memchr`` skips fast; above :data:`_MAX_SCANS` ORed literals one RE2
  alternation (a DFA pass) beats N scans.

Soundness (a False must mean "no match possible"): Hyperscan's caseless mode folds ASCII only,
while the matchers fold Unicode simple case, under which three non-ASCII characters are case
variants of ASCII letters: KELVIN SIGN (k), LATIN SMALL LETTER LONG S (s) and, in the ``regex``
module, LATIN CAPITAL LETTER I WITH DOT ABOVE (i). A case-insensitive literal holding one of those
letters adds that character as an extra trigger (a buffer holding it goes to the matcher; RE2's
own caseless scan knows the first two, not the third), and a
case-insensitive literal with non-ASCII characters, or any literal with a NUL byte (the binding
reads literals as C strings), is scanned by RE2 instead.
"""

from __future__ import annotations

import _thread  # threading.Lock and threading.local are _thread's: no threading for a cold grep (issue 30)
from collections.abc import Callable, Sequence

from sleuth.engine.match.engines import re2_compile, re2_module
from sleuth.engine.match.literals import LiteralQuery
from sleuth.engine.platform import hyperscan_allowed

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any

_HS: list[Any] = []  # the hyperscan module, or None where it is not installed: imported on first use


def _hyperscan() -> Any:
    """Hyperscan (optional: a compiled extension with x86-64 wheels; without it RE2 scans the literals),
    imported when a prefilter first asks: a search that needs none (a cold grep of a plain literal) never
    loads it."""
    if not _HS:
        try:
            import hyperscan
        except ImportError:  # pragma: no cover - exercised where the wheel is absent
            _HS.append(None)
        else:
            _HS.append(hyperscan)
    return _HS[0]

__all__ = ["Prefilter", "compile_prefilter", "program_check", "rare_substring", "hyperscan_available",
           "hyperscan_module"]

Prefilter = Callable[[bytes], bool]

# Printable ASCII by falling frequency in source code (measured on the Linux tree); bytes not
# listed (controls, non-ASCII) count as rarest. Used to start literal scans at a rare byte.
_BYTE_ORDER = (" etsr_i0noa,cxdlfu*p;)(bmhg-E/=k>FASCy2TDv8RBIN.LwO6479135{}&UP\"MzGq:#+X!<[]H|K%VjY'WZ@Q?J~$^`"
               "\t\n")
_BYTE_RANK = {ord(ch): len(_BYTE_ORDER) - i for i, ch in enumerate(_BYTE_ORDER)}
_MIN_SCAN = 4
_MAX_SCANS = 6  # above this many ORed literals one RE2 alternation (a DFA pass) beats N memchr scans

# Non-ASCII characters that fold to an ASCII letter (checked over all code points for RE2's and the
# regex module's case-insensitive matching; tests/engine/match/test_prefilter.py repeats the check).
_FOLDS_INTO_ASCII = {
    "k": "\u212a",  # KELVIN SIGN
    "s": "\u017f",  # LATIN SMALL LETTER LONG S
    "i": "\u0130",  # LATIN CAPITAL LETTER I WITH DOT ABOVE (regex module only)
}


hyperscan_module = _hyperscan  # for the other Hyperscan users of the match layer (regex_check)


def hyperscan_available() -> bool:
    """True when the Hyperscan scanner is installed and usable on this CPU."""
    return hyperscan_allowed() and _hyperscan() is not None and _hyperscan_works()


_HS_WORKS: list[bool] = []


def _hyperscan_works() -> bool:
    """Hyperscan refuses CPUs without SSSE3 at compile time; probe once and remember."""
    if not _HS_WORKS:
        try:
            _hyperscan_set([(b"probe", False)])
            _HS_WORKS.append(True)
        except Exception:  # noqa: BLE001 - any failure means "use RE2"
            _HS_WORKS.append(False)
    return _HS_WORKS[0]


def rare_substring(lit: bytes) -> bytes:
    """The part of ``lit`` from its rarest byte on (keeping two thirds of it): RE2 finds a literal
    by ``memchr`` on its first byte, so ``_RESUME`` is scanned as ``RESUME`` (3x faster)."""
    keep = max(_MIN_SCAN, (2 * len(lit) + 2) // 3)  # a much shorter literal lets too many files through
    if len(lit) <= keep:
        return lit
    best = min(range(len(lit) - keep + 1), key=lambda i: (_BYTE_RANK.get(lit[i], 0), i))
    return lit[best:]


def _hyperscan_set(leaves: Sequence[tuple[bytes, bool]]) -> Prefilter:
    """Does a buffer contain any of these literals? One Hyperscan block-mode database; a scratch
    space per thread (the server searches from several threads, and a scratch is single-user).

    A closure, not an object with ``__call__``: it runs once per file of a scan, and the method call
    cost 0.6 us of the 2.8 us a check of an 8 KB file takes (78,000 files: ~50 ms of CPU)."""
    _hs = _hyperscan()
    expressions: list[bytes] = []
    flags: list[int] = []
    for lit, casefold in leaves:
        expressions.append(lit)
        flags.append(_hs.HS_FLAG_SINGLEMATCH | (_hs.HS_FLAG_CASELESS if casefold else 0))
    db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
    db.compile(expressions=expressions, ids=list(range(len(expressions))), elements=len(expressions),
               flags=flags, literal=True)
    local = _thread._local()
    scan, terminated = db.scan, _hs.ScanTerminated

    def has(data: bytes) -> bool:
        try:
            scratch = local.scratch
        except AttributeError:
            scratch = local.scratch = _hs.Scratch(db)
        try:
            scan(data, match_event_handler=_stop, scratch=scratch)
        except terminated:
            return True
        return False

    return has


def literal_ends(literals: Sequence[bytes]) -> Callable[[bytes | memoryview], list[int]] | None:
    """Where each occurrence of any of ``literals`` (case-sensitive) ends in a buffer, ascending, found
    in one Hyperscan pass; None without Hyperscan. Finding an alternation's candidate lines with one
    ``bytes.find`` pass per literal cost a cold ``ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT`` scan
    0.12 CPU-s in the big generated headers that hold one of them."""
    if not literals or not hyperscan_available() or any(b"\x00" in lit for lit in literals):
        return None  # the binding's literal mode stops a pattern at a NUL byte
    _hs = _hyperscan()
    db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
    db.compile(expressions=list(literals), ids=list(range(len(literals))), elements=len(literals),
               flags=[0] * len(literals), literal=True)
    local = _thread._local()
    scan = db.scan

    def ends(data: bytes | memoryview) -> list[int]:
        try:
            scratch = local.scratch
        except AttributeError:
            scratch = local.scratch = _hs.Scratch(db)
        found: list[int] = []
        add = found.append
        scan(data, match_event_handler=lambda _id, _start, end, _flags, _context: add(end), scratch=scratch)
        return found

    return ends


def _stop(_id: int, _start: int, _end: int, _flags: int, _context: object) -> bool:
    return True  # the first match settles it: stop scanning


def program_check(prog) -> Prefilter:  # type: ignore[no-untyped-def]
    """Whether a low-level RE2 program matches anywhere in a buffer (any bytes-like object)."""
    match = prog.Match
    unanchored = re2_module()._re2.RE2.Anchor.UNANCHORED

    def has(data: bytes) -> bool:
        return match(unanchored, data, 0, len(data))[0][0] >= 0

    return has


def _re2_literal(lit: bytes, casefold: bool) -> Prefilter:
    # Case-insensitive scans cannot memchr a first byte, so a rare start buys nothing there.
    text = (lit if casefold else rare_substring(lit)).decode("utf-8", "surrogateescape")
    if casefold:
        return program_check(re2_compile(text, literal=True, case_sensitive=False))
    return _found_then_re2(lit, text)


FIND_FIRST = 256  # buffers a case-sensitive literal is looked for by bytes.find
_FIND_MAX_VIEW = 1 << 20  # (a read buffer's view is copied for it: up to this size)


def _found_then_re2(lit: bytes, text: str) -> Prefilter:
    """A case-sensitive literal: ``in`` (CPython's own substring search) for a search's first
    :data:`FIND_FIRST` buffers, then RE2's literal scan, as :func:`_hyperscan_later` hands over to
    Hyperscan: a small search (a cold ``sleuth grep`` in a small folder) never imports RE2 (~2 ms,
    issue 30). A read buffer's view is copied to be searched (a memoryview has no ``find``), so a big
    one is handed to RE2 at once. Checked from several threads, the switch may be made twice."""
    scan: Prefilter | None = None
    seen = 0

    def has(data: bytes) -> bool:
        nonlocal scan, seen
        if scan is None:
            seen += 1
            if type(data) is not memoryview:
                if seen <= FIND_FIRST:
                    return lit in data
            elif seen <= FIND_FIRST and len(data) <= _FIND_MAX_VIEW:
                return lit in data.tobytes()
            scan = program_check(re2_compile(text, literal=True))
        return scan(data)

    return has


def _re2_alternation(leaves: Sequence[tuple[bytes, bool]]) -> Prefilter:
    """Each literal keeps its own case mode: a caseless flag over the whole alternation made a
    case-sensitive fold trigger (LONG S) match any ``s``."""
    text = "|".join(("(?i:%s)" if casefold else "%s") % re2_module().escape(lit.decode("utf-8", "surrogateescape"))
                    for lit, casefold in leaves)
    return program_check(re2_compile(text))


def _re2_any(leaves: Sequence[tuple[bytes, bool]]) -> Prefilter:
    if len(leaves) > _MAX_SCANS:
        return _re2_alternation(leaves)  # many -e patterns: one DFA pass, not N scans
    scans = [_re2_literal(lit, casefold) for lit, casefold in leaves]
    return scans[0] if len(scans) == 1 else (lambda data: any(scan(data) for scan in scans))


def _hyperscan_can(lit: bytes, casefold: bool) -> bool:
    return b"\x00" not in lit and (not casefold or lit.isascii())


def _fold_triggers(leaves: Sequence[tuple[bytes, bool]]) -> list[tuple[bytes, bool]]:
    """The non-ASCII case variants of the ASCII letters k, s, i in caseless literals, as literals of their own."""
    # Every caseless literal, not only ASCII ones: RE2 scans the others, and its caseless mode does not
    # fold İ (which the regex module does), so "ÉI" must let a buffer holding "Éİ" through too.
    letters = {ch for lit, casefold in leaves if casefold
               for ch in lit.decode("utf-8", "surrogateescape").lower()}
    return [(_FOLDS_INTO_ASCII[ch].encode("utf-8"), False) for ch in sorted(letters) if ch in _FOLDS_INTO_ASCII]


HYPERSCAN_AFTER = 256
"""Buffers a few literals' prefilter checks with RE2's scans before Hyperscan takes over (see
:func:`_hyperscan_later`)."""


def _any_literal(leaves: Sequence[tuple[bytes, bool]], use_hyperscan: bool | None) -> Prefilter:
    """One check for "any of these literals occurs", sound for every matcher's case folding. ``None``:
    Hyperscan where it is usable, from the :data:`HYPERSCAN_AFTER`-th buffer on for a few literals."""
    leaves = list(leaves) + _fold_triggers(leaves)
    if use_hyperscan is None and len(leaves) <= _MAX_SCANS:
        return _hyperscan_later(leaves)
    if use_hyperscan is None:
        use_hyperscan = hyperscan_available()
    if not use_hyperscan:
        return _re2_any(leaves)
    return _hyperscan_any(leaves)


def _hyperscan_later(leaves: Sequence[tuple[bytes, bool]]) -> Prefilter:
    """RE2's scans for a search's first :data:`HYPERSCAN_AFTER` buffers, then Hyperscan's where it is
    usable. Hyperscan repays its start over many files (its import, with the ``typing`` module its
    package imports, ~10 ms of a cold process, a probe and a database compile), while a few literals'
    RE2 scans compile in microseconds and keep up over a few hundred files: a small search (a cold
    ``sleuth grep`` in a small folder, issue 30) never loads it, a big one switches within its first
    files. Checked from several threads, the switch may be made twice: harmless, both are exact."""
    scan = first = _re2_any(leaves)
    seen = 0

    def has(data: bytes) -> bool:
        nonlocal scan, seen
        if seen < HYPERSCAN_AFTER:
            seen += 1
            if seen == HYPERSCAN_AFTER and hyperscan_available():
                scan = _hyperscan_any(leaves)
            return first(data)
        return scan(data)

    return has


def _hyperscan_any(leaves: Sequence[tuple[bytes, bool]]) -> Prefilter:
    """Hyperscan for the literals it reads exactly, RE2 for the rest (see :func:`_hyperscan_can`)."""
    fast = [leaf for leaf in leaves if _hyperscan_can(*leaf)]
    rest = [leaf for leaf in leaves if not _hyperscan_can(*leaf)]
    if not rest:
        return _hyperscan_set(fast)
    if not fast:
        return _re2_any(rest)
    first, second = _hyperscan_set(fast), _re2_any(rest)
    return lambda data: first(data) or second(data)


_MAX_EXACT_BRANCHES = 16  # an OR with more AND/OR branches is checked by one literal of each


def _implied_literals(query: LiteralQuery) -> list[tuple[bytes, bool]] | None:
    """Literals one of which occurs wherever ``query`` holds (None: no such set): an OR gives all of
    its branches' sets, an AND the best of its parts' (fewest literals, then longest shortest one).
    Weaker than the query (an AND is judged by one of its parts), so the matcher decides the rest; but
    an OR of 10,000 ANDs is one scanner of 10,000 literals, built in linear time, not 10,000 scanners."""
    if query.op == "lit":
        return [(query.lit, query.casefold)]
    if query.op == "or":
        found: list[tuple[bytes, bool]] = []
        for child in query.children:
            part = _implied_literals(child)
            if part is None:
                return None
            found.extend(part)
        return list(dict.fromkeys(found))
    if query.op == "and":
        parts = [p for p in (_implied_literals(child) for child in query.children) if p]
        if not parts:
            return None
        return min(parts, key=lambda p: (len(p), -min(len(lit) for lit, _ in p)))
    return None


def compile_prefilter(query: LiteralQuery, *, use_hyperscan: bool | None = None) -> Prefilter | None:
    """``may_match`` from a literal query; None means no filter. The literals of an OR are scanned
    together, ANDs are all() of their parts. ``use_hyperscan`` None picks Hyperscan when usable (for a
    few literals, once the search has checked :data:`HYPERSCAN_AFTER` buffers); False forces the RE2
    scans, True Hyperscan's at once (tests compare the two)."""
    if query.op == "any":
        return None
    if query.op == "lit":
        return _any_literal([(query.lit, query.casefold)], use_hyperscan)
    if query.op == "and":
        checks = [c for c in (compile_prefilter(child, use_hyperscan=use_hyperscan) for child in query.children)
                  if c is not None]
        if not checks:
            return None
        return checks[0] if len(checks) == 1 else (lambda data: all(check(data) for check in checks))
    if sum(child.op != "lit" for child in query.children) > _MAX_EXACT_BRANCHES:
        weak = _implied_literals(query)  # 10,000 -e patterns: one scanner, not one per pattern
        return None if weak is None else _any_literal(weak, use_hyperscan)
    leaves = [(child.lit, child.casefold) for child in query.children if child.op == "lit"]
    others = [compile_prefilter(child, use_hyperscan=use_hyperscan) for child in query.children if child.op != "lit"]
    if any(other is None for other in others):
        return None  # one branch can match anything
    checks = ([_any_literal(leaves, use_hyperscan)] if leaves else []) + others
    return checks[0] if len(checks) == 1 else (lambda data: any(check(data) for check in checks))  # type: ignore[misc]
