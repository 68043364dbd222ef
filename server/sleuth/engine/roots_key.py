"""The hash that names a set of workspace roots: the index store's folder and the warm door's socket.

Light (no ``hashlib``: the interpreter's own SHA-256 gives the same digest without loading OpenSSL,
~2-5 ms): the warm CLI's client and the cold CLI's look for a store both compute it on every call.
"""

from __future__ import annotations

try:
    from _sha2 import sha256  # 3.12+
except ImportError:  # pragma: no cover - by version
    try:
        from _sha256 import sha256  # type: ignore[no-redef]  # 3.11
    except ImportError:
        from hashlib import sha256

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the warm client's budget)
if TYPE_CHECKING:
    from typing import Iterable

__all__ = ["roots_key"]


def roots_key(roots: Iterable[str]) -> str:
    """16 hex digits of the SHA-256 of the sorted roots joined by NUL."""
    return sha256("\0".join(sorted(roots)).encode("utf-8", "surrogateescape")).hexdigest()[:16]
