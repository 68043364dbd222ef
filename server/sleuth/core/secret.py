"""The person's secret for Sleuth's network doors: one token in a file only its owner can read.

``sleuth serve --tcp/--ws`` and ``sleuth mcp --http`` listen on loopback, which every local user
(and, through DNS rebinding, web pages) can reach; the token admits only the person who can read
the file. Shared by every transport, so one token file serves them all.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
import stat

from sleuth.engine.platform import owned_privately

__all__ = ["default_token_path", "load_or_create_token", "is_loopback", "bearer_matches"]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def default_token_path() -> str:
    """``$XDG_RUNTIME_DIR/sleuth/token`` (a per-user, private folder), else ``$XDG_CONFIG_HOME/sleuth/token``."""
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("XDG_CONFIG_HOME") or os.path.join(
        os.path.expanduser("~"), ".config")
    return os.path.join(base, "sleuth", "token")


def load_or_create_token(path: str) -> str:
    """The token in ``path``, created (random, ``0600``, in a ``0700`` folder) when absent.

    An existing file that others may read or that another user owns is refused (ValueError): a
    secret the whole machine can read admits the whole machine.
    """
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        os.makedirs(folder, mode=0o700, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(32) + "\n")
    info = os.stat(path)
    if not owned_privately(info.st_uid, info.st_mode):
        raise ValueError(f"{path} may be read by others (mode {stat.filemode(info.st_mode)}); "
                         f"make it yours alone: chmod 600 {path}")
    with open(path, encoding="utf-8") as handle:
        token = handle.read().strip()
    if len(token) < 16:
        raise ValueError(f"{path} holds no usable token (16 characters or more); delete it to get a new one.")
    return token


def bearer_matches(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``Bearer <token>`` (compared in constant time)."""
    if not header or not header.lower().startswith("bearer "):
        return False
    return hmac.compare_digest(header[7:].strip().encode(), token.encode())
