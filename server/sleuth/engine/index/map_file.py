"""The mapped catalogue's file (``catalog.map``): its format and checks, and the freshness columns read
from it without numpy.

Why apart from :mod:`.catalogue_map`: a cold call forks its freshness check (a ``stat`` of every file,
:mod:`.early_check`) before it imports its index stack, so that the child's ~0.2 s of ``stat`` runs
while the parent imports numpy and the rest (~0.15 CPU-s on the Linux tree's call). The child needs only
the paths, sizes, times and first rows: here they are views of the mapped file (``memoryview``), after
the same checks :func:`.catalogue_map.read` makes (magic, version, the catalogue's id and epoch, size,
CRC-32), which it makes through :func:`verified_body` too.

The file is replaced, never rewritten in place (``os.replace``), so its ``(device, inode, size, time)``
(:func:`source_of`) names one content: a parent and its child that mapped the same source read the
same columns.
"""

from __future__ import annotations

import json
import mmap
import os
import sqlite3
import struct
import sys
import zlib
from typing import Container, Iterator, Mapping, Protocol, Sequence

__all__ = ["FILE_NAME", "MAGIC", "VERSION", "HEAD", "ARRAYS", "Source", "StatColumns", "StatMapping", "MappedStat",
           "identity", "verified_body", "crc_holds", "header_files", "mapped", "source_of", "decode_paths", "stat_columns",
           "PathList"]

FILE_NAME = "catalog.map"
MAGIC = b"SLTHCMAP"
VERSION = 1
HEAD = struct.Struct("<8sII")  # magic, version, length of the JSON header that follows

# (name, dtype) of the arrays, in file order. ``bounds``: where each file's chunk offsets start in
# ``offsets``/``lines`` (n + 1 entries); ``display_at``: the same for the displays' blob. ``paths``: the
# encoded paths joined by NUL (no path holds one), decoded and split in one call each.
ARRAYS: tuple[tuple[str, str], ...] = (
    ("ids", "<i8"), ("sizes", "<i8"), ("mtimes", "<i8"), ("shards", "<i8"), ("firsts", "<i8"),
    ("wide", "|b1"), ("plain", "|b1"), ("bounds", "<i8"), ("offsets", "<i8"), ("lines", "<i8"),
    ("paths", "|u1"), ("display_at", "<i8"), ("displays", "|u1"),
)

Source = tuple[int, int, int, int]  # (st_dev, st_ino, st_size, st_mtime_ns) of a mapped file


class StatColumns(Protocol):
    """What a freshness check reads of the catalogue's columns (numpy arrays or int64 memoryviews)."""

    paths: Sequence[str]

    @property
    def sizes(self) -> Sequence[int]: ...

    @property
    def mtimes(self) -> Sequence[int]: ...

    @property
    def firsts(self) -> Sequence[int]: ...

    def path_bytes(self) -> object: ...


def identity(conn: sqlite3.Connection) -> tuple[str, int] | None:
    """The catalogue's (id, epoch) when it counts its writes (:func:`.catalogue_map.seal` ran), else None."""
    try:
        found = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('catalogue_id', 'catalogue_epoch')"))
    except sqlite3.Error:
        return None
    if "catalogue_id" not in found or "catalogue_epoch" not in found:
        return None
    return str(found["catalogue_id"]), int(found["catalogue_epoch"])


def verified_body(view: memoryview, ident: tuple[str, int], crc: bool = True) -> tuple[dict[str, object], memoryview] | None:
    """The file's JSON header and its columns' bytes when the file is of this format, of the catalogue
    ``ident`` and intact (its length and, unless ``crc`` is False, CRC-32: :func:`crc_holds` later),
    else None. Raises ValueError/KeyError/struct.error on a file too damaged to parse."""
    magic, version, length = HEAD.unpack_from(view)
    if magic != MAGIC or version != VERSION:
        return None
    header = json.loads(bytes(view[HEAD.size:HEAD.size + length]))
    body = view[HEAD.size + length:]
    if (header["id"], header["epoch"]) != ident or len(body) != header["body"] or (crc and not crc_holds(view)):
        return None
    if [stored for stored, _, _ in header["arrays"]] != [name for name, _ in ARRAYS]:
        return None
    return header, body


def crc_holds(view: memoryview) -> bool:
    """Whether the mapped file's columns still have the CRC-32 its header records (~20 ms on the Linux
    tree's 15.7 MB: a cold call whose forked check verified the same file skips it, :mod:`.early_check`)."""
    try:
        _, _, length = HEAD.unpack_from(view)
        header = json.loads(bytes(view[HEAD.size:HEAD.size + length]))
        return zlib.crc32(view[HEAD.size + length:]) == header["crc"]
    except (ValueError, KeyError, TypeError, struct.error):
        return False


def header_files(gen: str) -> int | None:
    """How many files generation ``gen``'s ``catalog.map`` says it holds (its header only: a few hundred
    bytes read), or None without a readable map. Unchecked against the catalogue: an estimate, for
    whether opening the store is worth it at all."""
    try:
        with open(os.path.join(gen, FILE_NAME), "rb") as handle:
            magic, version, length = HEAD.unpack(handle.read(HEAD.size))
            if magic != MAGIC or version != VERSION:
                return None
            return int(json.loads(handle.read(length))["files"])
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None


def source_of(fd: int) -> Source:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def decode_paths(blob: memoryview, n: int) -> list[str]:
    """The ``n`` NUL-joined paths, decoded in one call (as :meth:`Catalogue.paths_of`: one per path costs ~10x)."""
    if n == 0:
        return []
    paths = bytes(blob).decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()).split("\0")
    if len(paths) != n:
        raise ValueError("another number of paths than of files")
    return paths


class PathList(Sequence[str]):
    """The ``n`` NUL-joined paths of a mapped file, each decoded when it is asked for: a cold call asks for
    a few (its candidates', what its check found changed), and decoding all 78,000 of the Linux tree's
    up front cost ~15 ms of its open, in the parent and again in its forked check. Where each path starts
    is given (``starts``: n + 1 offsets, the last one past the blob's end) or, without them, the first
    path asked for decodes them all at once (:func:`decode_paths`), as iterating does."""

    __slots__ = ("_blob", "_n", "_starts", "_all")

    def __init__(self, blob: memoryview, n: int, starts: Sequence[int] | None = None) -> None:
        self._blob, self._n, self._starts = blob, n, starts
        self._all: list[str] | None = None

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, at: int) -> str:  # type: ignore[override]
        if self._all is not None or self._starts is None or not isinstance(at, int):
            return self.decoded()[at]
        if at < 0:
            at += self._n
        if not 0 <= at < self._n:
            raise IndexError(at)
        low, high = int(self._starts[at]), int(self._starts[at + 1]) - 1
        return bytes(self._blob[low:high]).decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())

    def __iter__(self) -> Iterator[str]:
        return iter(self.decoded())

    def decoded(self) -> list[str]:
        """Every path, decoded once (in one call: one a path costs ~10x)."""
        if self._all is None:
            self._all = decode_paths(self._blob, self._n)
        return self._all


class MappedStat:
    """The freshness columns of a mapped ``catalog.map``, as int64 memoryviews (no numpy)."""

    def __init__(self, body: memoryview, header: dict[str, object], source: Source, view: memoryview | None = None) -> None:
        table = {name: (offset, size) for name, offset, size in header["arrays"]}  # type: ignore[attr-defined]
        n = int(header["files"])  # type: ignore[call-overload]

        def column(name: str) -> memoryview:
            offset, size = table[name]
            view = body[offset:offset + size].cast("q")
            if len(view) != n:
                raise ValueError(f"{name}: another number of values than of files")
            return view

        if sys.byteorder != "little":
            raise ValueError("the file's integers are little-endian")
        self.sizes, self.mtimes, self.firsts = column("sizes"), column("mtimes"), column("firsts")
        offset, size = table["paths"]
        self._path_bytes = body[offset:offset + size]
        self.paths: Sequence[str] = PathList(self._path_bytes, n)  # (decoded only if the check needs a path)
        self.source = source
        self._view = view

    def path_bytes(self) -> memoryview:
        return self._path_bytes

    def crc_holds(self) -> bool:
        """:func:`crc_holds` of the whole mapped file, for columns read with ``crc=False`` (:func:`stat_columns`)."""
        return self._view is not None and crc_holds(self._view)


def mapped(gen: str, conn: sqlite3.Connection) -> tuple[memoryview, tuple[str, int], Source] | None:
    """Generation ``gen``'s ``catalog.map`` mapped, with the identity of ``conn``'s catalogue it must
    carry and the file's source; None when the catalogue counts no writes or the file is missing or
    empty (an empty file cannot be mapped)."""
    ident = identity(conn)
    if ident is None:
        return None
    try:
        with open(os.path.join(gen, FILE_NAME), "rb") as handle:
            source = source_of(handle.fileno())
            return memoryview(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)), ident, source
    except (OSError, ValueError):
        return None


def stat_columns(gen: str, conn: sqlite3.Connection, crc: bool = True) -> MappedStat | None:
    """Generation ``gen``'s freshness columns from its ``catalog.map`` when it is there and provably
    this catalogue's (:func:`verified_body`), else None. ``crc=False``: all checks but the CRC-32, which
    the caller makes later (:meth:`MappedStat.crc_holds`) and before it trusts any answer read from them:
    a freshness check starts its ``stat`` of every file first (:mod:`.early_check`)."""
    found = mapped(gen, conn)
    if found is None:
        return None
    view, ident, source = found
    try:
        verified = verified_body(view, ident, crc)
        return None if verified is None else MappedStat(verified[1], verified[0], source, view)
    except (ValueError, KeyError, TypeError, struct.error, UnicodeError):
        return None


class StatMapping(Mapping[str, tuple[int, int, bool]]):
    """``path -> (size, mtime_ns, indexed)`` of the columns, made per path as it is asked for: a cold
    call's freshness check asks for a few paths (those the stat found changed) and iterates the paths
    once, and building the whole dict of 78,000 tuples cost it ~0.1 s on its critical path (the Linux tree)."""

    __slots__ = ("_cols", "_index", "_lists")

    def __init__(self, cols: StatColumns) -> None:
        self._cols = cols
        self._index: dict[str, int] | None = None
        self._lists: tuple[list[int], list[int], list[int]] | None = None

    def __len__(self) -> int:
        return len(self._cols.paths)

    def __iter__(self) -> Iterator[str]:
        return iter(self._cols.paths)

    def __contains__(self, path: object) -> bool:
        return path in self._where()

    def __getitem__(self, path: str) -> tuple[int, int, bool]:
        at = self._where()[path]
        if self._lists is None:
            cols = self._cols
            self._lists = list(cols.sizes), list(cols.mtimes), list(cols.firsts)
        sizes, mtimes, firsts = self._lists
        return int(sizes[at]), int(mtimes[at]), bool(firsts[at] >= 0)

    @property
    def cols(self) -> StatColumns:
        return self._cols

    def strays(self, stamped: Container[str]) -> list[str] | None:
        """The paths whose folder (``rpartition(os.sep)[0] or os.sep``) is not in ``stamped``, in column
        order, each folder looked up once a run of paths sharing it (:data:`.native.folder_runs`); None
        without the compiled loop (the caller looks up each path's)."""
        from sleuth.engine.index import native

        if native.folder_runs is None:
            return None
        n = len(self._cols.paths)
        try:
            runs = native.folder_runs(self._cols.path_bytes(), n)
        except (ValueError, TypeError, MemoryError):
            return None
        enc, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
        paths, found = self._cols.paths, []
        for k, (folder, first) in enumerate(runs):
            if folder.decode(enc, errors) not in stamped:
                end = runs[k + 1][1] if k + 1 < len(runs) else n
                found.extend(paths[at] for at in range(first, end))
        return found

    def _where(self) -> dict[str, int]:
        if self._index is None:
            self._index = {path: at for at, path in enumerate(self._cols.paths)}
        return self._index
