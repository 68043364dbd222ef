"""The one test hook that adds commands to a server: ``SLEUTH_TEST_COMMANDS=<module name>``.

The end-to-end tests start the installed ``sleuth serve`` / ``sleuth mcp`` as users do, so they cannot
hand the server their plumbing commands (hold a worker, count the running ones) in process. Before the
server builds its session, this module imports the module the variable names and adds its ``COMMANDS``
({name: run}) and ``STREAM_KEYS`` to the session's extra commands; the doors only read
``Session.extra``, never the environment.

Only an importable module name is taken, never a file path: an environment could otherwise make a
server execute any ``.py`` file it names. A name reaches only code already on the interpreter's path,
which whoever sets the environment controls anyway (``PYTHONPATH``); the tests put the checkout's root
there. A path, or a name that does not import, is logged and ignored: the server starts without extras.
Unset in normal use: :func:`load` returns no commands.
"""

from __future__ import annotations

import importlib
import logging
import os
import re
from typing import Mapping

from sleuth.core.registry import STREAM_KEYS, Runner

__all__ = ["TEST_COMMANDS_ENV", "load"]

logger = logging.getLogger(__name__)

TEST_COMMANDS_ENV = "SLEUTH_TEST_COMMANDS"
_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def load(environ: Mapping[str, str] = os.environ) -> dict[str, Runner]:
    """The commands of the module ``$SLEUTH_TEST_COMMANDS`` names (none when unset or refused); its
    ``STREAM_KEYS`` join the registry's so the doors stream their lists."""
    spec = environ.get(TEST_COMMANDS_ENV, "")
    if not spec:
        return {}
    if not _MODULE_NAME.fullmatch(spec):
        logger.warning("%s=%r ignored: it takes a module name, not a file path", TEST_COMMANDS_ENV, spec)
        return {}
    try:
        module = importlib.import_module(spec)
    except ImportError as exc:
        logger.warning("%s=%r ignored: %s", TEST_COMMANDS_ENV, spec, exc)
        return {}
    STREAM_KEYS.update(getattr(module, "STREAM_KEYS", {}))
    return dict(getattr(module, "COMMANDS", {}))
