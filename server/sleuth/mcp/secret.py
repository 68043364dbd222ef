"""The bearer token of ``sleuth mcp --http``: random, kept in a file only its owner can read.

A loopback port is reachable by every local user and, through DNS rebinding, by web pages; the
Host/Origin checks stop the pages, the token stops the other users. The token file is created
with mode 0600 inside a directory of mode 0700 (``$XDG_RUNTIME_DIR/sleuth`` when set, else
``~/.cache/sleuth``); an existing file is reused only when it is a regular file owned by this user
and unreadable by others, so a client configured once keeps working across restarts.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat

__all__ = ["default_token_path", "load_or_create_token", "token_matches"]


def default_token_path() -> str:
    base = os.environ.get("XDG_RUNTIME_DIR") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "sleuth", "mcp-token")


def _private(info: os.stat_result) -> bool:
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def load_or_create_token(path: str | None = None) -> tuple[str, str]:
    """(token, path): the file's token when the file is private, else a new token written there."""
    path = os.path.abspath(os.path.expanduser(path or default_token_path()))
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None:
        if _private(info):
            with open(path, encoding="ascii") as handle:
                token = handle.read().strip()
            if len(token) >= 32:
                return token, path
        os.unlink(path)  # not ours, readable by others, or too short: replace it
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(token + "\n")
    return token, path


def token_matches(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``Bearer <token>`` (compared in constant time)."""
    if not header or not header.lower().startswith("bearer "):
        return False
    return hmac.compare_digest(header[7:].strip().encode(), token.encode())
