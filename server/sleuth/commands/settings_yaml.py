"""Reading a settings file safely and fast (issue 28): a hostile file costs milliseconds and a message.

Why a module of its own: ``yaml.safe_load`` on a repository's file was both slow and unbounded.

* **Slow**: pure-Python PyYAML took 6-8 s on a 973 KiB ``.agent/config.yml`` (a file shared with other
  tools, mostly theirs). Here libyaml's C loader (``yaml.CSafeLoader``) is used where present, and only
  Sleuth's part of a shared file is parsed: the top-level ``sleuth:`` and ``tools: search:`` entries of a
  block mapping are cut out by a byte search (no Python work per line) before any YAML is parsed.
* **Unbounded**: the bytes read are capped (:data:`MAX_FILE_BYTES`), the text parsed is capped
  (:data:`MAX_PARSED_BYTES`, ~10 ms of libyaml at worst), and aliases are expanded under a budget
  (:data:`MAX_VALUES` values, :data:`MAX_DEPTH` levels) counted on the composed node graph *before*
  anything is constructed, so a 782-byte anchor bomb (10^7 keys once expanded) is refused in
  microseconds instead of hanging every reader after it.

A file over a cap or broken is a :class:`SettingsFileError` whose message says what to fix; the caller
reports it and applies nothing from that file.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms of a cold call: issue 30)
if TYPE_CHECKING:
    import re
    from typing import Any

__all__ = ["SettingsFileError", "read_settings_file", "MAX_FILE_BYTES", "MAX_PARSED_BYTES", "MAX_VALUES",
           "MAX_DEPTH"]

MAX_FILE_BYTES = 1 << 20  # a shared config file bigger than this is not a config file
MAX_PARSED_BYTES = 16 << 10  # Sleuth's part of it: ~10 ms of libyaml for the densest shape
MAX_VALUES = 5000  # keys, items and scalars once aliases are expanded
MAX_DEPTH = 64

Section = tuple[str, ...]


class SettingsFileError(ValueError):
    """A settings file that is not read (too big, not YAML, too many values); the message says why."""


def read_settings_file(path: str, sections: Sequence[Section] | None = None) -> dict[str, object] | None:
    """The settings in YAML file ``path``: the whole top-level mapping, or with ``sections`` only those
    entries (each a key path such as ``("tools", "search")``) merged in order. None when the file does
    not exist; :class:`SettingsFileError` when it is not read."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise SettingsFileError(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    if len(raw) > MAX_FILE_BYTES:
        raise SettingsFileError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB; not read. Keep Sleuth's "
                                "settings file small (its settings are a few lines).")
    if sections is not None and len(raw) > MAX_PARSED_BYTES:
        raw = _cut_sections(raw, sections)
    if len(raw) > MAX_PARSED_BYTES:
        what = "Sleuth's part of it (sleuth: and tools: search:)" if sections is not None else "it"
        raise SettingsFileError(f"{path}: {what} is larger than {MAX_PARSED_BYTES >> 10} KiB; not read. "
                                "Sleuth's settings are a few lines: shorten it.")
    return _load(path, raw, sections)


# -- Sleuth's part of a big shared file, without parsing the rest ---------------------------------
# (``re`` is imported here only: a file this big is rare, and ``re`` with ``enum`` is ~3 ms of a cold
# call that reads no settings file, issue 30; ``re`` keeps the compiled patterns)

_NEXT_TOP = rb"^[^\s#]"  # (multiline) the next top-level entry (or document marker) of a block mapping
# The first entry of a block mapping at column 0 (after blank and comment lines): a plain key and a colon.
_FIRST_ENTRY = rb"(?:[ \t]*(?:#[^\n]*)?\r?\n)*[A-Za-z_][\w .-]*:(?:[ \t]|\r?\n)"


def _last_header(text: bytes, key: str, indent: bytes = b"") -> re.Match[bytes] | None:
    """The last line ``<indent>key:`` in ``text`` (YAML keeps the last of a repeated key), found with
    ``rfind`` (memchr speed: a regex anchored on every line start costs ~6 ms a MiB)."""
    import re

    name = re.escape(key.encode())
    header = re.compile(re.escape(indent) + rb"(?:" + name + rb"|\"" + name + rb"\"|'" + name +
                        rb"')[ \t]*:(?=[ \t\r\n]|$)")
    best: re.Match[bytes] | None = None
    for spelled in (key.encode(), b'"' + key.encode() + b'"', b"'" + key.encode() + b"'"):
        needle = b"\n" + indent + spelled
        end = len(text)
        while True:
            at = text.rfind(needle, 0, end)
            start = at + 1 if at >= 0 else (0 if text.startswith(indent + spelled) else -1)
            if start < 0:
                break
            match = header.match(text, start)
            if match:
                if best is None or match.start() > best.start():
                    best = match
                break
            if at < 0:
                break
            end = at + len(needle) - 1
    return best


def _block(raw: bytes, key: str) -> bytes:
    """The top-level entry ``key:`` of a block mapping with everything indented below it (b"" if none)."""
    import re

    match = _last_header(raw, key)
    return raw[match.start():_end_of(raw, match.end(), re.compile(_NEXT_TOP, re.M))] if match else b""


def _child(block: bytes, key: str) -> bytes:
    """Inside a cut-out ``parent:`` block, its entry ``key:`` with what is indented below it."""
    import re

    newline = block.find(b"\n")
    body = block[newline + 1:] if newline >= 0 else b""
    first = re.search(rb"^([ \t]+)[^\s#]", body, re.M)
    if not first:
        return b""
    indent = first.group(1)
    sibling = re.compile(rb"^[ \t]{0,%d}[^ \t\r\n#]" % len(indent), re.M)  # same level or above: the end
    match = _last_header(body, key, indent)
    return body[match.start():_end_of(body, match.end(), sibling)] if match else b""


def _end_of(text: bytes, header_end: int, next_entry: re.Pattern[bytes]) -> int:
    """Where an entry whose header line ends at ``header_end`` ends: the next entry at its level or above."""
    newline = text.find(b"\n", header_end)
    if newline < 0:
        return len(text)
    found = next_entry.search(text, newline + 1)
    return found.start() if found else len(text)


def _cut_sections(raw: bytes, sections: Sequence[Section]) -> bytes:
    """A smaller document with only the top-level entries ``sections`` name: exact for a block mapping
    (the shape of every shared config file seen); any other shape stays whole and meets the cap."""
    parts: list[bytes] = []
    for head in dict.fromkeys(section[0] for section in sections):
        block = _block(raw, head)
        if len(block) > MAX_PARSED_BYTES:  # e.g. `tools:` holding every tool's settings: keep only ours
            children = [_child(block, s[1]) for s in sections if s[0] == head and len(s) == 2]
            if children and b"\n" in block:
                block = block[:block.find(b"\n") + 1] + b"".join(children)
        if block:
            parts.append(block if block.endswith(b"\n") else block + b"\n")
    if parts:
        return b"".join(parts)
    import re

    return b"" if re.match(_FIRST_ENTRY, raw) else raw  # a block mapping without Sleuth's entries: nothing of ours


# -- parsing under a budget --------------------------------------------------------------------------

def _load(path: str, raw: bytes, sections: Sequence[Section] | None) -> dict[str, object]:
    import yaml  # only when a file exists: keeps CLI start-up lean

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(raw)
    collecting = gc.isenabled()
    try:
        try:
            gc.disable()  # thousands of node objects, none cyclic garbage: collections cost ~2x the parse
            root = loader.get_single_node()
        except yaml.YAMLError as exc:
            raise SettingsFileError(f"{path}: invalid YAML ({_one_line(exc)}); fix it or delete it.") from None
        finally:
            if collecting:
                gc.enable()
        if root is None:
            return {}
        if not isinstance(root, yaml.MappingNode):
            raise SettingsFileError(f"{path}: expected a mapping at the top level.")
        picked = [root] if sections is None else [n for s in sections for n in _find(root, s)]
        _check_budget(path, picked)
        merged: dict[str, object] = {}
        for node in picked:
            try:
                value = loader.construct_document(node)
            except (yaml.YAMLError, RecursionError, TypeError) as exc:
                raise SettingsFileError(f"{path}: invalid YAML ({_one_line(exc)}); fix it or delete it.") from None
            if isinstance(value, dict):
                merged.update(value)
        return merged
    finally:
        loader.dispose()


def _find(root: Any, section: Section) -> list[Any]:
    """The mapping nodes at key path ``section`` (plain scalar keys compared as written)."""
    import yaml

    nodes = [root]
    for key in section:
        nodes = [value for node in nodes if isinstance(node, yaml.MappingNode)
                 for k, value in node.value if isinstance(k, yaml.ScalarNode) and k.value == key]
        nodes = nodes[-1:]  # a repeated key: the last one, as YAML's constructor keeps
    return [n for n in nodes if isinstance(n, yaml.MappingNode)]


def _check_budget(path: str, nodes: list[Any]) -> None:
    """Walk ``nodes`` as the constructor will (aliases and merge keys expanded); refuse the file past
    :data:`MAX_VALUES` values or :data:`MAX_DEPTH` levels before any value is built."""
    import yaml

    stack = [(node, 1) for node in nodes]
    seen = 0
    while stack:
        node, depth = stack.pop()
        seen += 1
        if seen > MAX_VALUES or depth > MAX_DEPTH:
            raise SettingsFileError(
                f"{path}: Sleuth's settings there expand to more than {MAX_VALUES} values or {MAX_DEPTH} levels "
                "(YAML aliases?); not read. Write the settings out without anchors and aliases.")
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append((key, depth + 1))
                stack.append((value, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, depth + 1) for item in node.value)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]
