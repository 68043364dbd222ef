"""The fixture texts of ripgrep's tests (tests/hay.rs and tests/data/), shared by the case modules."""

from __future__ import annotations

from pathlib import Path

__all__ = ["SHERLOCK", "SHERLOCK_CRLF", "data"]

SHERLOCK = 'For the Doctor Watsons of this world, as opposed to the Sherlock\nHolmeses, success in the province of detective work must always\nbe, to a very large extent, the result of luck. Sherlock Holmes\ncan extract a clew from a wisp of straw or a flake of cigar ash;\nbut Doctor Watson has to have it taken out for him and dusted,\nand exhibited clearly, with a label attached.\n'

SHERLOCK_CRLF = 'For the Doctor Watsons of this world, as opposed to the Sherlock\r\nHolmeses, success in the province of detective work must always\r\nbe, to a very large extent, the result of luck. Sherlock Holmes\r\ncan extract a clew from a wisp of straw or a flake of cigar ash;\r\nbut Doctor Watson has to have it taken out for him and dusted,\r\nand exhibited clearly, with a label attached.\r\n'

_DATA = Path(__file__).parent / "data"


def data(name: str) -> bytes:
    """A fixture file of rg's tests/data/ (the compressed sherlocks, sherlock-nul.txt)."""
    return (_DATA / name).read_bytes()
