"""The native searches as MCP tools: schemas, a text rendering a model reads cheaply, bounded pages.

Each :class:`SearchTool` wraps one registry command (``sleuth.grep``, ``sleuth.files``,
``sleuth.text``, ``sleuth.symbols``). Its input schema is the command's argument table rendered by
:func:`sleuth.commands.args.json_schema` (the same table validates the call, so the schema cannot
drift) plus ``offset``, the paging cursor. Its answer has two forms of one page:

* ``structuredContent``: the command's result object with the page's items and the paging fields
  (``offset``, ``next_offset``, ``truncated``, ``truncated_reason``), described by ``outputSchema``;
* a text block, ``path:line: text`` per match (``path-line- text`` for context lines), then one
  line saying what was left out and how to get it (``offset=N``).

**The output budget.** Claude Code refuses a tool result over 25,000 tokens; hosts pass the
text, the structured object or both to the model. Each form is kept within ``max_tokens``
(default 10,000), estimated at 3 bytes a token (code tokenises at 3.5–4.5 bytes a token, so the
estimate errs on the safe side): both together stay under 25,000. A page is the longest prefix of
the items that fits; the rest is announced with the offset that continues it. The next page is cut
from the result held for the session (:mod:`sleuth.mcp.pages`); when there is none, the search runs
for ``offset + page`` items and ``offset`` of them are skipped: the searches' order is deterministic
(grep and files sort by path, text ranks deterministically), so pages are continuous either way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from sleuth.commands.args import json_schema
from sleuth.commands.budget import shrink_to_budget
from sleuth.commands.config import Settings
from sleuth.core.registry import COMMANDS
from sleuth.engine.errors import BadArgs, SleuthError
from sleuth.engine.events import Begin, Context, Decoder, End, Event, Match, Summary
from sleuth.searches import SEARCHES

__all__ = ["SearchTool", "SEARCH_TOOLS", "DEFAULT_MAX_TOKENS", "BYTES_PER_TOKEN", "split_offset", "page",
           "render_error", "estimate_tokens"]

DEFAULT_MAX_TOKENS = 10_000
BYTES_PER_TOKEN = 3  # a deliberately low estimate: more tokens are counted than a tokenizer would find
MAX_OFFSET = 1_000_000


def estimate_tokens(text: str) -> int:
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


class _GrepText:
    """The ``grep`` tool's text, one line per result item, as a sink of the search's typed events
    (:mod:`sleuth.engine.events`: the door reads events, never an item's ``"type"``): ``path:line: text``
    for a match (its replacement with ``replace``, as rg prints it), ``path-line- text`` for a context
    line, the path for a file of ``files_with_matches`` or ``files_without_match``, ``path: N`` for one of ``count``."""

    __slots__ = ("lines", "_shown")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._shown = False  # a line of the open file was written

    def event(self, event: Event) -> bool:
        if isinstance(event, Match):
            text = event.replacement if event.replacement is not None else event.text
            self.lines.append(f"{event.path}:{event.line}: {text}")
            self._shown = True
        elif isinstance(event, Context):
            self.lines.append(f"{event.path}-{event.line}- {event.text}")
            self._shown = True
        elif isinstance(event, Begin):
            self._shown = False
        elif isinstance(event, End) and not self._shown:  # a whole-file item (files_without_match: matched False)
            self.lines.append(event.path if event.count is None else f"{event.path}: {event.count}")
        return True

    def finish(self, summary: Summary) -> None:
        pass


def _grep_lines(items: list[dict[str, Any]]) -> list[str]:
    sink = _GrepText()
    decoder = Decoder(sink)
    decoder.items(items)
    decoder.end_file()
    return sink.lines


def _files_line(item: Mapping[str, Any]) -> str:
    return str(item["path"])


def _text_lines(item: Mapping[str, Any]) -> str:
    lines = []
    context = item.get("context") or {}
    line = int(item["line"])
    before = context.get("before") or []
    for i, text in enumerate(before):
        lines.append(f"{item['path']}-{line - len(before) + i}- {text}")
    lines.append(f"{item['path']}:{line}: {item.get('snippet', '')}")
    for i, text in enumerate(context.get("after") or []):
        lines.append(f"{item['path']}-{line + 1 + i}- {text}")
    return "\n".join(lines)


def _symbol_line(item: Mapping[str, Any]) -> str:
    container = f" in {item['container']}" if item.get("container") else ""
    return f"{item['path']}:{item['line']}: {item['kind']} {item['name']}{container}"


def _each(render: Callable[[Mapping[str, Any]], str]) -> Callable[[list[dict[str, Any]]], list[str]]:
    """A text of one line (or block) per item, from ``render`` of each."""
    return lambda items: [render(item) for item in items]


@dataclass(frozen=True)
class SearchTool:
    """One native search as an MCP tool."""

    name: str  # the MCP tool name
    command: str  # the registry command it runs
    key: str  # the result's item list
    noun: str  # what one item is, for the truncation line ("match", "file", "result")
    render_items: Callable[[list[dict[str, Any]]], list[str]]  # one line (or block) per item, in order
    page_arg: str = "max_results"  # the argument bounding how many items the command returns

    @property
    def title(self) -> str:
        return COMMANDS[self.command].title

    @property
    def description(self) -> str:
        return (COMMANDS[self.command].summary + " Results are bounded; when an answer is cut, it says so "
                "and gives the `offset` that fetches the next page.")

    def input_schema(self, settings: Settings) -> dict[str, Any]:
        spec = COMMANDS[self.command].args_spec() or {}
        schema = json_schema(spec, settings)
        schema["properties"]["offset"] = {
            "type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "default": 0,
            "description": f"Skip this many {self.noun}s: pass the next_offset of a cut answer to get its next page."}
        return schema

    def output_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                self.key: {"type": "array", "items": {"type": "object"},
                           "description": f"This page's {self.noun}s, in order."},
                "offset": {"type": "integer", "description": f"How many {self.noun}s came before this page."},
                "next_offset": {"type": ["integer", "null"],
                                "description": "Pass as offset to get the next page; null when nothing is left."},
                "truncated": {"type": "boolean", "description": "Whether the answer leaves anything out."},
                "truncated_reason": {"type": ["string", "null"],
                                     "description": "Why: max_results, output_budget, timeout, max_files ..."},
                "timed_out": {"type": "boolean"},
                "elapsed_ms": {"type": "number"},
            },
            "required": [self.key, "offset", "next_offset", "truncated"],
        }


# How a model reads one item of each search; the tools themselves are made from the list of searches.
_RENDER: dict[str, Callable[[list[dict[str, Any]]], list[str]]] = {
    "grep": _grep_lines, "files": _each(_files_line), "text": _each(_text_lines), "symbols": _each(_symbol_line)}

SEARCH_TOOLS: tuple[SearchTool, ...] = tuple(
    SearchTool(search.mcp_tool, search.command, search.stream_key, search.noun, _RENDER[search.name])
    for search in SEARCHES)


def split_offset(arguments: Mapping[str, Any], tool: SearchTool, settings: Settings) -> tuple[dict[str, Any], int, int]:
    """The command's arguments for one page, the offset, and the page size the caller asked for.

    The command is asked for ``offset + page size`` items (within the server's cap)."""
    args = dict(arguments)
    offset = args.pop("offset", 0)
    if offset is None:
        offset = 0
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= MAX_OFFSET:
        raise BadArgs(f"{tool.name}: 'offset' must be an integer from 0 to {MAX_OFFSET}; got {offset!r}.",
                      hint="Pass the next_offset of the previous answer, or omit offset for the first page.",
                      argument="offset")
    spec = COMMANDS[tool.command].args_spec() or {}
    arg = spec.get(tool.page_arg)
    requested = args.get(tool.page_arg)
    if requested is None and arg is not None:
        requested = getattr(settings, arg.default_from) if arg.default_from else arg.default
    size = requested if isinstance(requested, int) and not isinstance(requested, bool) else 0
    if offset and size:
        cap = getattr(settings, arg.cap) if arg is not None and arg.cap else None
        args[tool.page_arg] = min(offset + size, cap) if cap else offset + size
    return args, offset, size


def page(tool: SearchTool, result: Mapping[str, Any], offset: int, max_tokens: int) -> tuple[dict[str, Any], str]:
    """This page of ``result`` as (structured content, text), each within ``max_tokens``."""
    rest = list(result.get(tool.key) or [])[offset:]
    budget = max_tokens * BYTES_PER_TOKEN
    reserve = 600  # the paging fields and the truncation line
    items = rest[:_could_fit(rest, budget - reserve)]
    base = {k: v for k, v in result.items() if k != tool.key}
    lines = tool.render_items(items)

    def build_json(k: int) -> str:
        return json.dumps({**base, tool.key: items[:k]}, ensure_ascii=False, separators=(",", ":"))

    def build_text(k: int) -> str:
        return "\n".join(lines[:k])

    _, fit_json = shrink_to_budget(build_json, len(items), budget - reserve)
    _, fit_text = shrink_to_budget(build_text, len(items), budget - reserve)
    kept = min(fit_json, fit_text)
    if kept == 0 and items:
        kept = 1  # one item always goes (lines are cut at max_columns): a page never stalls the paging
    cut_by_budget = kept < len(rest)
    truncated = bool(result.get("truncated")) or cut_by_budget
    reason = "output_budget" if cut_by_budget else result.get("truncated_reason")
    if truncated and reason is None:
        reason = "max_results"
    more = cut_by_budget or reason == "max_results"
    next_offset = offset + kept if more and kept else None
    structured = {**base, tool.key: items[:kept], "offset": offset, "next_offset": next_offset,
                  "truncated": truncated, "truncated_reason": reason}
    text = build_text(kept)
    footer = _footer(tool, result, offset, kept, truncated, reason, next_offset)
    return structured, (text + "\n" + footer if text else footer)


def _could_fit(items: list[dict[str, Any]], budget: int) -> int:
    """How many leading items a page of ``budget`` bytes could hold at most: up to the first whose
    JSON, added to the JSON of those before it, is over the budget (each item's JSON is part of the
    page's, so no page holds it), or all of them. A page is cut from these alone: a big result (20,000
    matches) is neither rendered nor encoded whole, several times over, for the few hundred that fit."""
    total = 0
    for n, item in enumerate(items):
        total += len(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        if total > budget:
            return n + 1
    return len(items)


def _footer(tool: SearchTool, result: Mapping[str, Any], offset: int, kept: int, truncated: bool,
            reason: str | None, next_offset: int | None) -> str:
    total = result.get("total")
    shown = f"{tool.noun}s {offset + 1}-{offset + kept}" if kept else f"no {tool.noun}s"
    if offset == 0 and not truncated:
        count = f"{kept} {tool.noun}{'' if kept == 1 else 'es' if tool.noun == 'match' else 's'}"
        line = f"[{count}]"
    else:
        of = f" of {total}" if isinstance(total, int) and not isinstance(total, bool) else ""
        line = f"[{shown}{of}"
        if truncated:
            why = {"output_budget": "the answer reached its size budget",
                   "max_results": "max_results was reached",
                   "timeout": "the search hit its time limit",
                   "max_files": "max_files was reached", "scan_budget": "the scan budget was reached",
                   "max_output_bytes": "max_output_bytes was reached"}.get(str(reason), str(reason))
            line += f"; truncated: {why}"
        line += f"; call again with offset={next_offset} for more]" if next_offset is not None else "]"
    errors = result.get("errors") or []
    if errors:
        line += f" [{len(errors)} file(s) could not be read]"
    return line


def render_error(error: SleuthError, roots: list[str]) -> str:
    """A tool error a model can act on: what failed, where (a regex's position), what to do."""
    data = error.to_dict()
    lines = [f"Error ({error.code}): {error.message}"]
    if data.get("position") is not None and "position" not in error.message:
        lines.append(f"At position {data['position']} of the pattern.")
    if error.code == "sandbox_violation":
        lines.append("Allowed roots: " + (", ".join(roots) if roots else "(none)"))
    if error.code == "rate_limited" and "retry_after_seconds" in data:
        lines.append(f"Retry after {data['retry_after_seconds']} seconds.")
    lines.append(f"Hint: {error.hint}")
    return "\n".join(lines)
