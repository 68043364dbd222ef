"""``may_match`` for a pattern without a required literal: one Hyperscan pass on ASCII buffers.

A pattern such as ``\\w{5}\\s+\\w{5}\\s+\\w{5}\\s+\\w{5}\\s+\\w{5}`` has no literal the literal
prefilter (:mod:`sleuth.engine.match.prefilter`) could look for, so the whole question "can this
buffer match" is one automaton run over every byte of every file — on the Linux tree 1.3 GB, about
two thirds of the scan's CPU (the rest is reading). Hyperscan runs the same program restricted to
ASCII (the matchers' own ``ascii_text`` form, :func:`sleuth.engine.match.emit.to_re2`) with less
CPU than RE2's DFA: one thread over the Linux tree, 4% less for ``linux_no_literal``, 16-27% for
shapes such as ``[A-Z][a-z]+[A-Z][a-z]+…`` (``bench/scan_vs_rg.py --engine``).

Soundness (a False must mean "no match possible"): Hyperscan sees bytes, RE2 sees UTF-8, and the
ASCII program is exact only on ASCII text. So a buffer holding any byte >= 0x80 — found by a second,
tiny Hyperscan database (a SIMD byte-class scan, ~8 GB/s) — is asked of the exact RE2 program
instead; an ASCII buffer's "no" from Hyperscan is then the ASCII program's "no". Hyperscan reads
the program text RE2 reads (``(?m:^)``, ``(?i:…)``, ``[…]`` with ``\\x{…}``, ``{n,m}``); a pattern
it cannot compile (one that matches the empty string, too large a repeat) keeps the RE2 check.
"""

from __future__ import annotations

import _thread  # threading.Lock and threading.local are _thread's: no threading for a cold grep (issue 30)

from sleuth.engine.match.prefilter import Prefilter, hyperscan_available, hyperscan_module

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ascii_regex_check", "ascii_only_check", "MAX_PROGRAM_CHARS"]

MAX_PROGRAM_CHARS = 4096  # a longer program (thousands of -e patterns) keeps RE2: Hyperscan's compile grows with it

_WIDE: list[Any] = []  # the database of one byte >= 0x80, compiled once per process


def _stop(_id: int, _start: int, _end: int, _flags: int, _context: object) -> bool:
    return True  # the first match settles it


def _database(expression: bytes) -> Any:
    hs = hyperscan_module()
    db = hs.Database(mode=hs.HS_MODE_BLOCK)
    db.compile(expressions=[expression], ids=[0], elements=1, flags=[hs.HS_FLAG_SINGLEMATCH])
    return db


def _wide() -> Any:
    if not _WIDE:
        _WIDE.append(_database(rb"[\x80-\xff]"))
    return _WIDE[0]


def ascii_regex_check(ascii_program: str, exact: Prefilter) -> Prefilter:
    """``exact`` (the RE2 program's own check, right on any buffer), made faster on ASCII buffers by
    Hyperscan running ``ascii_program`` (RE2 syntax, exact on ASCII text). ``exact`` itself when
    Hyperscan is not usable here or cannot compile the program."""
    if not hyperscan_available() or len(ascii_program) > MAX_PROGRAM_CHARS or "\x00" in ascii_program:
        return exact  # the binding reads expressions as C strings
    hs = hyperscan_module()
    try:
        program, wide = _database(ascii_program.encode("utf-8")), _wide()
    except Exception:  # noqa: BLE001 - Hyperscan refuses it (empty match, size): RE2 decides alone
        return exact
    local = _thread._local()  # a scratch space per thread and database (a scratch is single-user)
    scan_program, scan_wide, terminated, scratch_for = program.scan, wide.scan, hs.ScanTerminated, hs.Scratch

    def may_match(data: bytes) -> bool:
        # One closure, both scans inline: it runs once per file of a scan (78,000 on the Linux tree).
        try:
            scratches = local.scratches
        except AttributeError:
            scratches = local.scratches = (scratch_for(wide), scratch_for(program))
        try:
            scan_wide(data, match_event_handler=_stop, scratch=scratches[0])
        except terminated:
            return exact(data)  # a byte >= 0x80: the ASCII program is not exact here
        try:
            scan_program(data, match_event_handler=_stop, scratch=scratches[1])
        except terminated:
            return True
        return False

    return may_match


def _may(_data: bytes) -> bool:
    return True


def ascii_only_check(ascii_program: str) -> Prefilter | None:
    """The check of a pattern whose only RE2 program is exact on ASCII text alone (a Unicode ``\\b``:
    RE2's is ASCII, so another buffer goes to the ``regex`` module): Hyperscan's "no" on an ASCII
    buffer, "may match" on any other. None when Hyperscan cannot serve: finding the non-ASCII buffers
    would then cost the RE2 pass it saves. The view's ``\\b\\d{4,}\\b`` ran RE2 over every file (20,000
    in the e2e fixture) with no check at all."""
    check = ascii_regex_check(ascii_program, _may)
    return None if check is _may else check

