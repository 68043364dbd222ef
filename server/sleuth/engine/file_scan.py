"""Read files from disk and hand their bytes to the searcher (:mod:`sleuth.engine.search`): one file
(:func:`search_path`: an open editor buffer, a compressed file, a file that changed while read), or
the scan's hot loop over many (:func:`search_files`: reused read buffers, folder-relative opens, the
literal prefilter before any copy). Apart from the searcher because the two change for different
reasons: this one for system calls and memory, that one for rg's semantics of a buffer.
"""

from __future__ import annotations

import os
import _thread  # threading.Lock and threading.local are _thread's: no threading for a cold grep (issue 30)
import time
from collections.abc import Callable, Iterable

from sleuth.engine.decode import BINARY_BLOCK
from sleuth.engine.decompress import DecompressError, compressed_kind, decompress
from sleuth.engine.errors import describe_os_error
from sleuth.engine.match.base import Matcher
from sleuth.engine.search import BINARY, TOO_LARGE, FileResult, search_data
from sleuth.engine.types import SearchOptions
from sleuth.engine.values import Record, replace

__all__ = ["read_file", "search_path", "search_files", "FolderOpener", "BatchStats"]


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)


def read_file(path: str, max_size: int | None = None) -> bytes | None:
    """The whole file: one open, one fstat, one read of exactly its size (no over-allocation).
    None when the file is larger than ``max_size`` (checked on the open descriptor, so no extra stat)."""
    fd = os.open(path, _READ_FLAGS)
    try:
        size = os.fstat(fd).st_size
        if max_size is not None and size > max_size:
            return None
        data = os.read(fd, size + 1) if size else b""
        if len(data) != size or not size:
            # Grew while we read it, handed over in pieces (some network file systems), or a
            # pseudo-file reporting size 0: read to the end.
            chunks = [data]
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            data = b"".join(chunks)
        return data
    finally:
        os.close(fd)


def search_path(path: str, display: str, matcher: Matcher, options: SearchOptions,
                text: str | None = None, max_size: int | None = None) -> FileResult:
    """Read (or take the open buffer ``text``), decode and search one file; problems become ``error``."""
    try:
        data = text.encode("utf-8", "surrogatepass") if text is not None else read_file(path, max_size)
    except OSError as exc:
        return FileResult(display, error=describe_os_error(exc))
    if data is not None and text is None and options.search_zip:
        kind = compressed_kind(path)
        if kind is not None:
            try:
                data = decompress(data, kind, max_size)
            except DecompressError as exc:
                return FileResult(display, error=str(exc))
    if data is None:
        return FileResult(display, skipped=TOO_LARGE)
    if text is not None and options.encoding is not None:
        options = replace(options, encoding=None)  # an open buffer is text already: never re-decoded
    return search_data(data, display, matcher, options)



# A folder descriptor that can only anchor relative opens (Linux's O_PATH needs no read permission).
_FOLDER_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_OPEN_RELATIVE = os.open in os.supports_dir_fd


class FolderOpener:
    """Opens files for reading by name, relative to their folder's descriptor, which it keeps while
    consecutive files share the folder (a scan visits files folder by folder). The kernel then
    resolves one path component instead of a dozen, whose lookups miss the caches between two
    files' reads: 13% of open+close in a tight loop over the Linux tree, more in a real scan. A
    folder that cannot be opened (or a platform without ``openat``) falls back to full paths.
    :meth:`close` when done."""

    __slots__ = ("folder", "fd")

    def __init__(self) -> None:
        self.folder: str | None = None
        self.fd = -1

    def open(self, path: str) -> int:
        head, _, name = path.rpartition(os.sep)
        if head != self.folder:
            self.close()
            self.folder = head
            if _OPEN_RELATIVE and head:
                try:
                    self.fd = os.open(head, _FOLDER_FLAGS)
                except OSError:
                    pass
        return os.open(name, _READ_FLAGS, dir_fd=self.fd) if self.fd >= 0 else os.open(path, _READ_FLAGS)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
        self.fd = -1


class BatchStats(Record):
    """Counters of a :func:`search_files` batch; ``searched``: bytes searched, as rg's ``--stats`` counts them."""

    __slots__ = ("scanned", "binary", "too_large", "searched")

    def __init__(self, scanned: int = 0, binary: int = 0, too_large: int = 0, searched: int = 0) -> None:
        self.scanned = scanned
        self.binary = binary
        self.too_large = too_large
        self.searched = searched


_UTF16_FIRST = (0xFE, 0xFF)  # first byte of a UTF-16 BOM: such files must be transcoded before matching


POLL_INTERVAL_S = 0.02
READ_BUFFER_BYTES = 1 << 20  # files smaller than this are read into a buffer reused file after file
FIRST_READ_BYTES = 64 << 10  # that buffer's first size, doubled as a file needs more (see _read_buffer)
_LOCAL = _thread._local()  # one read buffer per thread: the server searches from several threads


def _read_buffer(need: int = 0) -> tuple[bytearray, memoryview]:
    """This thread's reusable read buffer and a view of it, of at least ``need`` bytes (one byte more than
    the largest file it takes): :data:`FIRST_READ_BYTES` at first, doubled up to :data:`READ_BUFFER_BYTES`
    as files need. Made at full size at once, its 1 MiB was ~0.4 ms of a cold grep in a small folder
    whose files fit in 64 KiB: pages the kernel zeroed and mapped for nothing (issue 30)."""
    held = getattr(_LOCAL, "buffer", None)
    if held is None or len(held[0]) < need:
        size = FIRST_READ_BYTES
        while size + 1 < need:
            size *= 2
        buffer = bytearray(min(size, READ_BUFFER_BYTES) + 1)
        held = _LOCAL.buffer = (buffer, memoryview(buffer))
    return held


BIG_BUFFER_BYTES = 32 << 20  # files from READ_BUFFER_BYTES up to this size share a second buffer, grown on demand


def _big_buffer(size: int) -> tuple[bytearray, memoryview]:
    """This thread's buffer for files over ``READ_BUFFER_BYTES``, at least ``size`` bytes. A fresh
    ``bytes`` per big file cost a worker ~0.1 s of page faults on the Linux tree's 84 files over
    1 MiB (351 MB, most of them generated amdgpu headers): memory the kernel must zero and map."""
    held = getattr(_LOCAL, "big", None)
    if held is None or len(held[0]) < size:
        buffer = bytearray(-(-size // READ_BUFFER_BYTES) * READ_BUFFER_BYTES)
        held = _LOCAL.big = (buffer, memoryview(buffer))
    return held


def _read_before_quitting(held: bytes | bytearray, nul: int) -> int:
    """The bytes rg searches of a binary file it quits on (``--stats``): the lines before the 64 KiB
    block that holds its first NUL (:func:`sleuth.engine.search.search_data`'s model of rg's reads)."""
    block = nul - nul % BINARY_BLOCK
    return held.rfind(b"\n", 0, block) + 1 if block else 0


def search_files(files: Iterable[tuple[str, str, str | None]], matcher: Matcher,
                 options: SearchOptions, max_size: int | None, should_stop: Callable[[], bool],
                 results: list[FileResult], stats: BatchStats) -> bool:
    """Search many files, appending to ``results`` only those with matches or errors (and, for
    ``files_without_match``, those without a match that were not passed over); False when stopped.

    The hot loop of a scan: most files do not match, so reading and the literal prefilter are
    inlined, and the full :func:`search_path` machinery runs only for files that may match.
    Per file that is one ``open``, a ``read`` into this thread's reused buffer, a ``read`` that
    finds the end (a network file system may hand a file over in pieces), one ``close`` and one
    ``may_match`` on a view of the buffer: only a file that may match is copied out, and only a
    file that fills the buffer is ``fstat``-ed (and read into a second reused buffer, see
    :func:`_big_buffer`). (A fresh ``bytes`` per file cost a third of the
    reading's CPU on the Linux tree, allocating and first-touching memory; the ``fstat`` another
    ~10%, more than the read that finds the end.) Files are opened by a :class:`FolderOpener`.
    ``should_stop`` is polled every 16 files, after each file with results (its matches may fill a
    capped answer), and after a file the matcher ran on once
    ``POLL_INTERVAL_S`` passed since the last such poll: the caller publishes results there
    (:mod:`sleuth.engine.grep.unit_search`), and 16 files of a slow pattern took 300 ms. Items are ``(path, display, open-buffer text or None)``;
    an index's candidate pieces are searched before, by :func:`sleuth.engine.pieces.search_pieces`.
    """
    may_match = matcher.may_match
    invert = options.invert
    counts_binary = options.binary != "text"
    quits = options.binary == "quit"
    without = options.output == "files_without_match"  # files with no match are the answer (a result each)
    passthru = options.passthru  # every file's lines are shown
    zipped = options.search_zip
    transcoding = options.encoding not in (None, "none")  # the prefilter cannot judge the raw bytes then
    fstat, read, readv, pread, preadv, close = os.fstat, os.read, os.readv, os.pread, os.preadv, os.close
    buffer, view = _read_buffer()
    fits = len(buffer) - 1
    opener = FolderOpener()
    open_file = opener.open
    monotonic = time.monotonic
    next_poll = 0.0
    try:
        for path, display, text in files:
            if not stats.scanned & 15 and should_stop():
                return False
            stats.scanned += 1
            if text is not None or (zipped and compressed_kind(path)):
                result = search_path(path, display, matcher, options, text, max_size)
            else:
                try:
                    fd = open_file(path)
                    try:
                        length = readv(fd, [view])
                        if length <= fits and not (length and read(fd, 1)):
                            size = length  # all of it: the next read found the end
                            if max_size is not None and size > max_size:
                                stats.too_large += 1
                                continue
                            held: bytes | bytearray = buffer
                            data: bytes | memoryview = view[:length]
                        else:  # bigger than the buffer, or handed over in pieces
                            size = fstat(fd).st_size
                            if max_size is not None and size > max_size:
                                stats.too_large += 1
                                continue
                            if fits < size < READ_BUFFER_BYTES:  # the reused buffer grows to take it
                                buffer, view = _read_buffer(size + 1)
                                fits = len(buffer) - 1
                                held = buffer
                                length = preadv(fd, [view[:size + 1]], 0)
                                data = view[:length]
                            elif size < BIG_BUFFER_BYTES:
                                held, whole = _big_buffer(size + 1)
                                length = preadv(fd, [whole[:size + 1]], 0)
                                data = whole[:length]
                            else:
                                held = data = pread(fd, size + 1, 0)
                                length = len(data)
                    finally:
                        close(fd)
                except OSError as exc:
                    results.append(FileResult(display, error=describe_os_error(exc)))
                    continue
                if length != size:  # changed while read, or a pseudo-file whose size says 0: the careful way
                    result = search_path(path, display, matcher, options, None, max_size)
                elif invert or transcoding or (length and held[0] in _UTF16_FIRST):
                    result = search_data(bytes(data), display, matcher, options)
                elif not passthru and not may_match(data):
                    # No match possible (dropping a UTF-8 BOM cannot create one); only binary-ness is left to count.
                    nul = held.find(b"\x00", 0, length) if counts_binary else -1
                    if nul >= 0:
                        stats.binary += 1
                    stats.searched += length if nul < 0 or not quits else _read_before_quitting(held, nul)
                    if without and (nul < 0 or not quits):  # (a binary file its search quits on is neither)
                        results.append(FileResult(display, searched=length))
                    continue
                else:
                    result = search_data(bytes(data), display, matcher, options, checked=True)
            stats.searched += result.searched or 0
            if result.skipped == BINARY:
                stats.binary += 1
            elif result.skipped == TOO_LARGE:
                stats.too_large += 1
            elif result.matched_lines or result.error or without or result.events:
                results.append(result)
                if should_stop():  # a file that used up the search's time, or whose matches filled a capped
                    return False  # answer: stop now, not 15 files later (an error "took too long" for each)
            now = monotonic()  # a file the matcher ran on can take long (a back-reference: ~10 ms)
            if now >= next_poll:
                next_poll = now + POLL_INTERVAL_S
                if should_stop():
                    return False
    finally:
        opener.close()
    return True
