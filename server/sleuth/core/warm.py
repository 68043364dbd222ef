"""The warm CLI's door: a running server answers ``sleuth grep|files|text`` over a private UNIX socket.

A server (``sleuth serve``, ``sleuth mcp``) listens on ``<dir>/<key>.sock``, where ``key`` is the
hash of its roots (the index store's key, :func:`roots_key`) and ``dir`` is ``$XDG_RUNTIME_DIR/sleuth``
or, without it, ``<cache dir>/sleuth-run`` (beside the index stores, not among them): a ``0700``
folder of the user's. The CLI computes the same path for its own roots, sends one request line and
reads one answer line. Nothing else listens and
nothing is started on demand: without a server the CLI runs cold, as before.

The socket is an attack surface, so the server answers only when:

* the peer is the same user (``SO_PEERCRED``; the folder's mode already keeps others out, this
  holds even if it did not);
* the command is one of :data:`WARM_COMMANDS` (the read-only searches, nothing that writes);
* the client's roots, canonicalised, are exactly the server's (same folders, same order), and the
  command runs in a sandbox built from them, so every path argument meets the same sandbox check
  as in the cold CLI and nothing outside the server's folders is reachable;
* the client's safeguards and index-shaping settings (:data:`GUARD_FIELDS`, from its own
  ``config.yml`` and ``.agent/config.yml``) equal the server's, so the server neither weakens its
  deny globs or redaction for the client nor answers from an index built under other rules;
* for ``sleuth.text`` and ``sleuth.symbols``, the server's index is ready (the cold CLI waits for it; a scan would say
  ``source: "scan"``).

Otherwise it answers ``{"refused": why}`` and the CLI runs cold. This module holds what both ends share
(the CLI imports only it); the server's side is :mod:`sleuth.core.warm_listener`. The command runs with
:func:`sleuth.commands.config.cli_settings` of the server's settings (equal, by the check above, to the
CLI's own), the CLI's workspace object and no open editor buffers, so the result object, and the
lines the CLI renders from it, are the cold path's. A client that disconnects cancels the search.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import struct
from typing import Any, Sequence

__all__ = ["WARM_COMMANDS", "GUARD_FIELDS", "PROTOCOL", "roots_key", "socket_dir", "socket_path", "private_dir",
           "peer_uid", "guards", "MAX_REQUEST_BYTES"]

try:  # the interpreter's own SHA-256: the same digest as hashlib's, without loading OpenSSL (~2-5 ms of
    from _sha2 import sha256  # every warm CLI start); 3.12+
except ImportError:  # pragma: no cover - by version
    try:
        from _sha256 import sha256  # type: ignore[no-redef]  # 3.11
    except ImportError:
        from hashlib import sha256

PROTOCOL = 1
WARM_COMMANDS = frozenset({"sleuth.grep", "sleuth.files", "sleuth.text", "sleuth.symbols"})
# Settings that shape what a search may read or what the index holds: must match to answer warm.
GUARD_FIELDS = ("deny_globs", "redaction", "backend", "index_path", "index_enabled", "follow",
                "respect_gitignore", "max_file_size_bytes")
MAX_REQUEST_BYTES = 64 << 20  # 10,000 long -e patterns fit; a runaway client does not
_SUN_PATH_MAX = 107


def roots_key(roots: Sequence[str]) -> str:
    """The hash that names a set of roots: the same as the index store's directory
    (:func:`sleuth.engine.index.store.store_dir`), so one server, one store, one socket per workspace."""
    return sha256("\0".join(sorted(roots)).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def socket_dir() -> str:
    """``$XDG_RUNTIME_DIR/sleuth`` (per-user, tmpfs), else ``$XDG_CACHE_HOME/sleuth-run`` (``~/.cache``)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, "sleuth")
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "sleuth-run")


def socket_path(roots: Sequence[str]) -> str | None:
    """Where the server of ``roots`` listens; None when the path would be too long for a UNIX socket."""
    path = os.path.join(socket_dir(), roots_key(roots) + ".sock")
    return path if len(os.fsencode(path)) <= _SUN_PATH_MAX else None


def private_dir(path: str, create: bool = False) -> bool:
    """Whether ``path`` is a real folder (not a link) of this user that nobody else may enter;
    with ``create``, made ``0700`` first when missing."""
    if create:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
        except OSError:
            return False
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & (stat.S_IRWXG | stat.S_IRWXO))


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end (``SO_PEERCRED``, Linux); None where unavailable."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return None
    _pid, uid, _gid = struct.unpack("3i", raw)
    return uid


def guards(settings: Any) -> dict[str, Any]:
    """The :data:`GUARD_FIELDS` of a :class:`~sleuth.commands.config.Settings`, JSON-shaped for comparison."""
    return json.loads(json.dumps({name: getattr(settings, name) for name in GUARD_FIELDS}))
