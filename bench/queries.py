"""Query sets for the benchmark, generated reproducibly (seeded) from the corpus itself.

- :func:`definition_queries`: identifiers defined in randomly chosen files, written as their parts
  (``pm_runtime_resume`` -> ``pm runtime resume``); the relevant files are every file with a
  definition-shaped line for that exact name (so a name defined in several places has several).
- :func:`quick_open_queries`: Quick-Open-style abbreviations of randomly chosen paths, the way people
  type them: word prefixes of the file name (``i915_gem_object.c`` -> ``i9gemobj``), consonant
  skeletons (``controller`` -> ``ctrl``-like), with a parent-folder hint when the file name is not
  unique. The relevant result is that one path.
"""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from typing import Sequence

from sleuth.engine.definitions.defs import definitions, split_identifier

BENCHSUITE = [  # ripgrep's benchsuite names on the Linux tree: (name, rg flags, pattern)
    ("linux_literal", [], "PM_RESUME"),
    ("linux_literal_casei", ["-i"], "PM_RESUME"),
    ("linux_word", ["-w"], "PM_RESUME"),
    ("linux_re_literal_suffix", [], "[A-Z]+_RESUME"),
    ("linux_alternates", [], "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT"),
    ("linux_alternates_casei", ["-i"], "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT"),
    ("linux_unicode_word", [], r"\wAh"),
    ("linux_no_literal", [], r"\w{5}\s+\w{5}\s+\w{5}\s+\w{5}\s+\w{5}"),
]

_VOWELS = set("aeiou")


def definition_queries(root: str, paths: Sequence[str], count: int, seed: int = 4) -> list[tuple[str, str]]:
    """``(query, name)`` pairs: a definition found in a random source file, as space-separated parts."""
    rng = random.Random(seed)
    sources = [p for p in paths if p.endswith((".c", ".h", ".py", ".rs", ".go", ".sh", ".pl"))]
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    while len(out) < count and sources:
        path = rng.choice(sources)
        try:
            with open(os.path.join(root, path), "rb") as handle:
                data = handle.read(1 << 20)
        except OSError:
            continue
        names = [n for n, _, kind in definitions(data) if kind != "tdef"]
        names = [n for n in names if len(split_identifier(n)) >= 2 and not n.startswith("_") and n not in seen]
        if not names:
            continue
        name = rng.choice(names)
        seen.add(name)
        out.append((" ".join(split_identifier(name)), name))
    return out


def _words(stem: str) -> list[str]:
    """Words of a file name: separators, camelCase humps and letter/digit boundaries split."""
    return [w for w in re.split(r"[_\-., ]+|(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])", stem) if w]


def _abbrev_word(word: str, rng: random.Random) -> str:
    word = word.lower()
    if len(word) <= 4 or word.isdigit():
        return word
    style = rng.random()
    if style < 0.5:
        return word[:rng.randint(3, min(5, len(word)))]
    skeleton = word[0] + "".join(c for c in word[1:] if c not in _VOWELS)
    return skeleton[:rng.randint(3, min(4, len(skeleton)))] if len(skeleton) >= 3 else word[:3]


def quick_open_queries(paths: Sequence[str], count: int, seed: int = 7) -> list[tuple[str, str]]:
    """``(query, path)`` pairs of abbreviations; a parent hint is added when the file name repeats."""
    rng = random.Random(seed)
    names = Counter(p.rsplit("/", 1)[-1] for p in paths)
    out: list[tuple[str, str]] = []
    while len(out) < count:
        path = rng.choice(paths)
        base = path.rsplit("/", 1)[-1]
        stem = base.split(".", 1)[0] if not base.startswith(".") else base
        words = _words(stem)
        if not words or len(stem) < 4:
            continue
        query = "".join(_abbrev_word(w, rng) for w in words)
        if names[base] > 1 and "/" in path:
            parent = path.rsplit("/", 2)[-2]
            query = _abbrev_word(parent, rng) + query
        if len(query) < 3:
            continue
        out.append((query, path))
    return out
