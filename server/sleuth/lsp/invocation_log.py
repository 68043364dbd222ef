"""The invocation log line (:mod:`sleuth.core.logline`, shared by every transport) as LSP sends it:
``window/logMessage`` with the message type of its severity."""

from __future__ import annotations

from lsprotocol import types

from sleuth.core.logline import MAX_QUERY_CHARS, enabled, query_of, result_count, sanitise, severity, summary

__all__ = ["sanitise", "query_of", "result_count", "summary", "severity", "message_type", "enabled", "MAX_QUERY_CHARS"]

_TYPES = {1: types.MessageType.Error, 2: types.MessageType.Warning, 3: types.MessageType.Info, 4: types.MessageType.Log}


def message_type(level: int) -> types.MessageType:
    return _TYPES.get(level, types.MessageType.Log)
