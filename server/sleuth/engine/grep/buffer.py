"""A grep over one buffer that is no file: standard input (``sleuth grep PAT < file``, ``-`` as a path).

The buffer is searched as rg searches an explicitly named file (binary detection "convert": a NUL
marks the events, it does not drop them) and collected like one file of a scan, so the outcome has
the shape of any other grep's.
"""

from __future__ import annotations

from sleuth.engine.cancel import CancelToken
from sleuth.engine.collect import Collector
from sleuth.engine.grep.request import GrepOutcome, GrepRequest
from sleuth.engine.grep.unit_search import matcher_for
from sleuth.engine.search import search_data
from sleuth.engine.types import FileError, SkipCounts
from sleuth.engine.values import replace

__all__ = ["grep_buffer", "STDIN_DISPLAY"]

STDIN_DISPLAY = "<stdin>"  # what rg calls standard input in its output


def grep_buffer(request: GrepRequest, data: bytes, token: CancelToken, display: str = STDIN_DISPLAY) -> GrepOutcome:
    """Search ``data`` with ``request``'s match and search options (its targets and walk are unused)."""
    from sleuth.engine.match.engines import search_deadline

    search = request.search
    if search.binary == "quit":
        search = replace(search, binary="convert")
    collector = Collector(search.max_results, search.output, None)
    skipped, errors = SkipCounts(), []
    with search_deadline(token.deadline):
        result = search_data(data, display, matcher_for(request.match, token), search)
    if result.skipped is not None:
        skipped.binary += 1
    if result.error:
        errors.append(FileError(display, result.error))
    collector.add(result)
    return GrepOutcome(items=collector.items, truncated=collector.truncated,
                       truncated_reason=collector.truncated_reason, timed_out=False, files_scanned=1,
                       files_matched=collector.files_matched, match_events=collector.match_events, streamed=0,
                       skipped=skipped, errors=errors, bytes_searched=result.searched or 0)
