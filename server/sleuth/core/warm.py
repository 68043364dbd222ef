"""The warm CLI's door: a running server answers ``sleuth grep|files|text|symbols`` over a private UNIX socket.

A server (``sleuth serve``, ``sleuth mcp``) listens on ``<dir>/<key>.sock``, where ``key`` is the
hash of its roots (the index store's key, :func:`roots_key`) and ``dir`` is ``$XDG_RUNTIME_DIR/sleuth``
or, without it, ``<cache dir>/sleuth-run`` (beside the index stores, not among them): a ``0700``
folder of the user's. The CLI computes the same path for its own roots, sends one request line and
reads one answer line; a request with ``"stream": true`` (``sleuth grep``'s) first gets the result's
items in ``{"partial": [...]}`` lines as the search finds them, and the answer's list leaves them
out, so the CLI prints as the server searches. Nothing else listens and
nothing is started on demand: without a server the CLI runs cold, as before.

The socket is an attack surface, so the server answers only when:

* the peer is the same user (``SO_PEERCRED``, ``LOCAL_PEERCRED`` on macOS; the folder's mode already
  keeps others out, this holds even if it did not); where a UNIX socket cannot name its peer
  (:func:`sleuth.engine.platform.warm_door`), the door listens on 127.0.0.1 instead and the request
  must carry the token of the private file ``<key>.tcp`` (:func:`bind_loopback`), which only the
  user can read;
* the command is one of :data:`WARM_COMMANDS` (the read-only searches, nothing that writes);
* the client's roots, canonicalised, are exactly the server's (same folders, same order), and the
  command runs in a sandbox built from them, so every path argument meets the same sandbox check
  as in the cold CLI and nothing outside the server's folders is reachable;
* the client's safeguards and index-shaping settings (:data:`GUARD_FIELDS`, from its own
  ``config.yml`` and ``.agent/config.yml``) equal the server's, so the server neither weakens its
  deny globs or redaction for the client nor answers from an index built under other rules;
* the client's environment resolves to the server's wherever the cold CLI reads it for an answer
  (:func:`environment`: the home folder, git's global excludes file, the settings file, the
  decompressors ``-z`` runs), so a call never gets the server's ``~`` or global gitignore;
* for ``sleuth.text`` and ``sleuth.symbols``, the server's index is ready (the cold CLI waits for it; a scan would say
  ``source: "scan"``).

Otherwise it answers ``{"refused": why}`` and the CLI runs cold. This module holds what both ends share
(the CLI imports only it); the server's side is :mod:`sleuth.core.warm_listener`. The command runs with
:func:`sleuth.commands.config.cli_settings` of the server's settings (equal, by the check above, to the
CLI's own), the CLI's workspace object, no open editor buffers and no index size
(``files_in_workspace``: the cold CLI has no index to count), so the result object, and the lines
the CLI renders from it, are the cold path's. A client that disconnects cancels the search.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import socket
from typing import Any, Sequence

from sleuth.core.warm_paths import (fork_socket_path, loopback_path, peer_uid, private_dir, read_loopback, roots_key,
                                    socket_dir, socket_path)
from sleuth.engine.platform import warm_door
from sleuth.searches import SEARCHES

__all__ = ["WARM_COMMANDS", "GUARD_FIELDS", "PROTOCOL", "roots_key", "socket_dir", "socket_path", "private_dir",
           "peer_uid", "guards", "environment", "bind_private", "MAX_REQUEST_BYTES", "fork_socket_path",
           "loopback_path", "read_loopback", "bind_loopback", "token_matches", "connect", "DOOR_COMMANDS"]

PROTOCOL = 2  # 2: the request carries the client's environment(); a server of 1 would ignore it, so it must refuse
WARM_COMMANDS = frozenset(search.command for search in SEARCHES if search.warm)
# Settings that shape what a search may read or what the index holds: must match to answer warm.
GUARD_FIELDS = ("deny_globs", "redaction", "backend", "index_path", "index_enabled", "follow",
                "respect_gitignore", "max_file_size_bytes")
# What a guest door (a second ``sleuth serve``/``sleuth mcp`` on the same roots, :mod:`sleuth.core.engine_guest`)
# asks the engine's host to run: everything that reads or drives the engine. ``sleuth.tools.list`` and
# ``sleuth.metrics`` stay with the door (its own profiles, its own counts), as do a door's test commands.
DOOR_COMMANDS = WARM_COMMANDS | frozenset({"sleuth.index.status", "sleuth.index.build", "sleuth.tools.call"})
MAX_REQUEST_BYTES = 64 << 20  # 10,000 long -e patterns fit; a runaway client does not

logger = logging.getLogger(__name__)


def environment(args: dict[str, Any]) -> dict[str, Any]:
    """What this process's environment makes of a search with ``args``, as the cold CLI reads it: the
    warm door answers only a client whose values equal its own, JSON-shaped for comparison.

    Every environment read on the cold path, and why it is here or not:

    * ``HOME`` (and the password database without it): ``~`` in a path argument, the global
      gitignore's places -> ``home``;
    * ``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_SYSTEM``, ``XDG_CONFIG_HOME`` and the ``core.excludesFile``
      those configs name -> ``git_excludes``, the file :func:`~sleuth.engine.ignore.global_excludes_path`
      resolves (``GIT_CONFIG_NOSYSTEM`` changes nothing: rg 15.2 reads the system config regardless);
    * ``XDG_CONFIG_HOME`` for Sleuth's own ``config.yml`` -> ``user_config`` (its values are
      compared as :func:`guards` too);
    * ``PATH``, only for ``-z``: the decompressors found -> ``decompressors`` (otherwise a client's
      ``PATH``, which a virtualenv changes, would make every call cold for nothing);
    * ``SLEUTH_NO_SERVER`` is the client's own choice to run cold; the test hook of
      :mod:`sleuth.core.test_commands` adds commands to a server, none of these searches;
      ``SLEUTH_TEST_*_GATE`` hold a search for a test (when it ends, never what it finds); ``XDG_RUNTIME_DIR``/``XDG_CACHE_HOME`` say where sockets
      and index stores live, not what a search finds; ``RIPGREP_CONFIG_PATH`` is not honoured (the
      CLI reads rg's flags from its command line only);
    * the locale and ``PYTHON*`` variables shape only the client's own streams and file names,
      which the CLI renders itself (the fork server compares its interpreter's, see
      :func:`sleuth.cli.fork_client.installation`).
    """
    from sleuth.commands.config import user_config_path
    from sleuth.engine.ignore import global_excludes_path

    env: dict[str, Any] = {"home": os.path.expanduser("~"), "git_excludes": global_excludes_path(),
                           "user_config": user_config_path()}
    if args.get("search_zip"):
        from sleuth.engine.decompress import programs

        env["decompressors"] = programs()
    return json.loads(json.dumps(env))


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


def bind_loopback(path: str) -> tuple[socket.socket, str] | None:
    """Listen on 127.0.0.1 (a free port) and write ``port token`` to ``path`` (``0600``, in a private
    folder): the warm door where a UNIX socket cannot name its peer. A live door already named by
    ``path`` is left to its owner and None returned, as on any error."""
    found = read_loopback(path)
    if found is not None:
        try:
            socket.create_connection(("127.0.0.1", found[0]), timeout=1.0).close()
        except OSError:
            pass  # stale: replaced below
        else:
            logger.info("another Sleuth process already listens for %s", path)
            return None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    token = secrets.token_hex(32)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(f"{sock.getsockname()[1]} {token}\n")
        os.replace(tmp, path)
    except OSError as exc:
        sock.close()
        try:
            os.unlink(tmp)
        except OSError:
            pass
        logger.warning("loopback warm door not offered (%s): %s", path, exc)
        return None
    return sock, token


def token_matches(given: object, token: str) -> bool:
    """Whether a request's ``token`` is the door's (compared in constant time)."""
    return isinstance(given, str) and hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("ascii"))


_CONNECT_TIMEOUT_S = 1.0


def connect(roots: Sequence[str]) -> tuple[socket.socket, str | None] | None:
    """A connection to the warm door of ``roots`` (:func:`sleuth.engine.platform.warm_door`'s kind)
    and the token its requests carry (None on a UNIX socket, whose peer must be this user); None: no
    live door of this user's (the CLI then runs cold, a server door starts its own engine)."""
    if not private_dir(socket_dir()):
        return None
    if warm_door() == "loopback":
        found = read_loopback(loopback_path(roots))
        if found is None:
            return None
        try:
            return socket.create_connection(("127.0.0.1", found[0]), timeout=_CONNECT_TIMEOUT_S), found[1]
        except OSError:
            return None  # a stale file
    path = socket_path(roots)
    if path is None:
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(_CONNECT_TIMEOUT_S)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        return None  # no server (or a stale socket)
    if peer_uid(sock) != os.getuid():
        sock.close()
        return None
    return sock, None
