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
import logging
import os
import socket
from typing import Any

from sleuth.core.warm_paths import fork_socket_path, peer_uid, private_dir, roots_key, socket_dir, socket_path

__all__ = ["WARM_COMMANDS", "GUARD_FIELDS", "PROTOCOL", "roots_key", "socket_dir", "socket_path", "private_dir",
           "peer_uid", "guards", "bind_private", "MAX_REQUEST_BYTES", "fork_socket_path"]

PROTOCOL = 1
WARM_COMMANDS = frozenset({"sleuth.grep", "sleuth.files", "sleuth.text", "sleuth.symbols"})
# Settings that shape what a search may read or what the index holds: must match to answer warm.
GUARD_FIELDS = ("deny_globs", "redaction", "backend", "index_path", "index_enabled", "follow",
                "respect_gitignore", "max_file_size_bytes")
MAX_REQUEST_BYTES = 64 << 20  # 10,000 long -e patterns fit; a runaway client does not

logger = logging.getLogger(__name__)


def guards(settings: Any) -> dict[str, Any]:
    """The :data:`GUARD_FIELDS` of a :class:`~sleuth.commands.config.Settings`, JSON-shaped for comparison."""
    return json.loads(json.dumps({name: getattr(settings, name) for name in GUARD_FIELDS}))


def bind_private(path: str) -> socket.socket | None:
    """Listen at ``path`` (in a private folder; the socket itself ``0600``). A stale socket (nobody
    answers) is replaced; a live one is left to its owner and None returned, as on any error."""
    if os.path.lexists(path):
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(path)
        except OSError:
            try:
                os.unlink(path)
            except OSError:
                return None
        else:
            logger.info("another Sleuth process already listens at %s", path)
            return None
        finally:
            probe.close()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        old = os.umask(0o177)
        try:
            sock.bind(path)
        finally:
            os.umask(old)
        sock.listen(16)
    except OSError as exc:
        sock.close()
        logger.warning("socket not offered (%s): %s", path, exc)
        return None
    return sock
