"""Ranking quality judged independently of the implementation: MRR@10 per query style, and latency.

Usage (the index store is reused, as ``bench.py --reuse`` would; wrap timing runs in the shared lock)::

    flock /tmp/sleuth-bench.lock python bench/quality.py [--only defs|files] [--per-style 100] [--misses 5]

``bench/queries.py`` judges definition queries with the index's own definition patterns and
writes Quick-Open queries in one style; both share assumptions with the code they measure. Here:

- **Definition queries** (``sleuth.text``) are judged by universal-ctags (``apt-get install
  universal-ctags``; a benchmark-only tool, never a test dependency). A random sample of source
  files gives identifiers of the kinds function, struct (union, class), macro, enum, typedef and
  variable; each becomes queries in the ways people type them: all parts (``pm runtime resume``),
  the distinctive parts only (the first part dropped: ``runtime resume``), the identifier verbatim
  (``pm_runtime_resume``, ``getUserById``) and verbatim lower-cased (``pm_resume`` for
  ``PM_RESUME``). Relevant: every file where ctags (over the whole tree, cached) says the name is
  defined with one of those kinds. Words are split by this module's own rule, not the index's.
- **Quick-Open queries** (``sleuth.files``) for a random path, in six styles: ``fzf`` (ordered
  fragments of folders and name, no spaces), ``vscode`` (name prefix, then folder words, spaced),
  ``basename`` (the whole file name), ``partial_ext`` (the stem and part of the extension),
  ``initials`` (first letters of the name's words, when no file name holds them as they are) and ``slash`` (``folder/name-prefix``). A folder
  hint is added, as a person would, when the file name is not unique in the tree.

Printed per style: MRR@10, how many were first, and p50/p95 latency of the command (in this
process, with the real :class:`IndexService`, as ``bench/bench.py`` runs it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from typing import Any, Callable, Iterable, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from queries import quick_open_queries as bench_quick_open  # noqa: E402

from sleuth.commands import get_command  # noqa: E402
from sleuth.commands.config import Settings  # noqa: E402
from sleuth.commands.context import CommandContext, Services  # noqa: E402
from sleuth.engine.index import IndexService  # noqa: E402
from sleuth.engine.workspace import Workspace  # noqa: E402

KINDS = {"function": "function", "subroutine": "function", "struct": "struct", "union": "struct",
         "class": "struct", "macro": "macro", "enum": "enum", "typedef": "typedef", "variable": "variable"}
SOURCE_EXTS = (".c", ".h", ".py", ".rs", ".sh", ".pl", ".pm")
_VOWELS = set("aeiou")


# -- words, by this module's own rule ----------------------------------------------------------------
def words_of(name: str) -> list[str]:
    """Words of an identifier or file stem as people type them: split at separators and camelCase
    humps; digits stay with their letters (``a3xx``, ``crtc3``, ``v4l2``); lower-cased."""
    out: list[str] = []
    for piece in re.split(r"[^A-Za-z0-9]+", name):
        out.extend(w.lower() for w in re.sub(r"(?<=[A-Za-z0-9])(?=[A-Z][a-z])|(?<=[a-z])(?=[A-Z])", " ", piece).split())
    return out


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else 0.0


# -- ctags ------------------------------------------------------------------------------------------
def _ctags(corpus: str, paths: Iterable[str]) -> Iterable[tuple[str, str, str]]:
    """``(name, kind group, path)`` for the definitions ctags finds in ``paths`` (relative to corpus)."""
    listing = "\n".join(paths) + "\n"
    proc = subprocess.run(["ctags", "-x", "--_xformat=%N\t%K\t%F", "--langmap=C:+.h",
                           "--languages=C,Python,Rust,Sh,Perl", "-L", "-"], cwd=corpus, input=listing.encode(),
                          capture_output=True)
    for raw in proc.stdout.decode("utf-8", "replace").splitlines():
        parts = raw.split("\t")
        if len(parts) == 3 and parts[1] in KINDS:
            yield parts[0], KINDS[parts[1]], parts[2]


def tree_tags(corpus: str, sources: Sequence[str], cache: str) -> str:
    """Path of a cached ``name\\tkind\\tpath`` file covering every source file (made once, ~2 minutes)."""
    digest = hashlib.sha256("\n".join(sources).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    out = os.path.join(cache, f"ctags-{digest}.tsv")
    if not os.path.exists(out):
        print(f"running ctags over {len(sources)} source files (cached in {out}) ...", flush=True)
        with open(out + ".tmp", "w") as handle:
            for name, kind, path in _ctags(corpus, sources):
                handle.write(f"{name}\t{kind}\t{path}\n")
        os.replace(out + ".tmp", out)
    return out


def _unique_run(parts: list[str], others: dict[tuple[str, ...], int]) -> list[str] | None:
    """The shortest run of 2+ consecutive ``parts`` (not all of them) that no other defined name contains."""
    for size in range(2, len(parts)):
        for start in range(len(parts) - size, -1, -1):  # later parts first: prefixes are what people drop
            run = tuple(parts[start:start + size])
            if others.get(run, 0) == 1:
                return list(run)
    return None


def definition_queries(corpus: str, sources: Sequence[str], tags_file: str, per_style: int,
                       seed: int) -> dict[str, list[tuple[str, str, str, set[str]]]]:
    """Style -> ``[(query, name, kind, relevant paths)]``; kinds are taken in turn for balance."""
    rng = random.Random(seed)
    picks: list[tuple[str, str]] = []  # (name, kind)
    seen: set[str] = set()
    kinds = ["function", "struct", "macro", "enum", "typedef", "variable"]
    while len(picks) < per_style:
        sample = rng.sample(list(sources), min(200, len(sources)))
        by_kind: dict[str, list[str]] = defaultdict(list)
        for name, kind, _ in _ctags(corpus, sample):
            if len(words_of(name)) >= 2 and name not in seen and not name.startswith("_"):
                by_kind[kind].append(name)
        progressed = False
        for kind in kinds:
            if by_kind[kind] and len(picks) < per_style:
                name = rng.choice(by_kind[kind])
                seen.add(name)
                picks.append((name, kind))
                progressed = True
        if not progressed:
            break
    wanted = {name for name, _ in picks}
    runs = {tuple(words_of(name)[i:i + k]) for name in wanted for k in range(2, len(words_of(name)))
            for i in range(len(words_of(name)) - k + 1)}
    relevant: dict[str, set[str]] = defaultdict(set)
    containing: dict[tuple[str, ...], int] = Counter()  # run of parts -> how many distinct names contain it
    names_seen: set[str] = set()
    with open(tags_file) as handle:
        for line in handle:
            name, _, path = line.rstrip("\n").split("\t")
            if name in wanted:
                relevant[name].add(path)
            if name in names_seen:
                continue
            names_seen.add(name)
            parts = words_of(name)
            found = {tuple(parts[i:i + k]) for k in range(2, len(parts) + 1) for i in range(len(parts) - k + 1)}
            for run in found & runs:
                containing[run] += 1
    styles: dict[str, list[tuple[str, str, str, set[str]]]] = defaultdict(list)
    for name, kind in picks:
        parts = words_of(name)
        rel = relevant[name]
        styles["parts"].append((" ".join(parts), name, kind, rel))
        some = _unique_run(parts, containing)
        if some:
            styles["some_parts"].append((" ".join(some), name, kind, rel))
        styles["verbatim"].append((name, name, kind, rel))
        styles["lower"].append((name.lower(), name, kind, rel))
    return styles


# -- workspace symbols ------------------------------------------------------------------------------
SYMBOL_KINDS = {"function", "struct", "union", "enum", "enumerator", "member", "macro", "typedef", "variable",
                "class", "method", "namespace", "subroutine"}  # ctags' default definition kinds (no prototypes)


def symbol_tags(corpus: str, sources: Sequence[str], cache: str) -> str:
    """Path of a cached ``name\tkind\tpath\tline`` file of every definition ctags finds (members and
    enumerators too: Ctrl+T finds those), made once over every source file."""
    digest = hashlib.sha256("\n".join(sources).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    out = os.path.join(cache, f"ctags-symbols-{digest}.tsv")
    if not os.path.exists(out):
        print(f"running ctags over {len(sources)} source files (cached in {out}) ...", flush=True)
        proc = subprocess.run(["ctags", "-x", "--_xformat=%N\t%K\t%F\t%n", "--langmap=C:+.h",
                               "--languages=C,C++,Python,Rust,Sh,Perl", "-L", "-"], cwd=corpus,
                              input=("\n".join(sources) + "\n").encode(), capture_output=True)
        with open(out + ".tmp", "w") as handle:
            for raw in proc.stdout.decode("utf-8", "replace").splitlines():
                parts = raw.split("\t")
                if len(parts) == 4 and parts[1] in SYMBOL_KINDS:
                    handle.write(raw + "\n")
        os.replace(out + ".tmp", out)
    return out


def symbol_queries(tags_file: str, count: int, seed: int) -> list[tuple[str, str, str, int]]:
    """``[(name, kind, path, line)]``: a seeded sample of names whose only definition ctags finds."""
    seen: Counter[str] = Counter()
    where: dict[str, tuple[str, str, int]] = {}
    with open(tags_file) as handle:
        for line in handle:
            name, kind, path, number = line.rstrip("\n").split("\t")
            seen[name] += 1
            where[name] = (kind, path, int(number))
    unique = sorted(n for n, c in seen.items() if c == 1 and len(n) >= 4 and re.fullmatch(r"\w+", n)
                    and not n.startswith("__anon"))  # ctags' names for anonymous aggregates: nobody types them
    picked = random.Random(seed).sample(unique, min(count, len(unique)))
    return [(n, *where[n]) for n in picked]


# -- Quick-Open -------------------------------------------------------------------------------------
def _prefix(word: str, rng: random.Random, low: int = 2, high: int = 5) -> str:
    return word if len(word) <= low else word[:rng.randint(low, min(high, len(word)))]


def _split_name(path: str) -> tuple[list[str], str, str, str]:
    folders = path.split("/")[:-1]
    base = path.rsplit("/", 1)[-1]
    stem, dot, ext = base[1:].rpartition(".") if "." in base[1:] else (base[1:], "", "")
    stem = base[0] + stem if dot else base
    return folders, base, stem, ext if dot else ""


def _distinguishing(path: str, twins: Sequence[str]) -> str:
    """The folder of ``path`` that the fewest other same-named paths share (nearest wins ties): the
    folder a person adds to tell ``arch/arm64/include/asm/device.h`` from the other ``device.h``."""
    folders = path.split("/")[:-1]
    best, best_count = folders[-1] if folders else "", None
    for folder in reversed(folders):
        count = sum(1 for other in twins if other != path and f"/{folder}/" in f"/{other}")
        if best_count is None or count < best_count:
            best, best_count = folder, count
    return best


def quick_open_queries(paths: Sequence[str], per_style: int, seed: int) -> dict[str, list[tuple[str, str]]]:
    """Style -> ``[(query, path)]``."""
    rng = random.Random(seed)
    by_name: dict[str, list[str]] = defaultdict(list)
    for p in paths:
        by_name[p.rsplit("/", 1)[-1]].append(p)
    styles: dict[str, list[tuple[str, str]]] = defaultdict(list)

    def hint(path: str) -> str:
        """The folder a person adds: the distinguishing one when the name repeats, else the parent."""
        twins = by_name[path.rsplit("/", 1)[-1]]
        folder = _distinguishing(path, twins) if len(twins) > 1 else path.split("/")[-2] if "/" in path else ""
        return folder if rng.random() < 0.5 else _prefix(folder, rng, 4, 8)

    def fzf(path: str) -> str | None:  # fragments of the folders and of the name's words, no spaces
        folders, base, stem, ext = _split_name(path)
        words = words_of(stem)
        if not words:
            return None
        head = ""
        if folders and (len(by_name[base]) > 1 or rng.random() < 0.5):
            head = "".join(_prefix(w, rng, 2, 4) for w in words_of(hint(path))[:2])
        keep = words if len(words) <= 3 else words[:1] + sorted(rng.sample(words[1:], 2), key=words.index)
        return head + "".join(_prefix(w, rng, 2, 4) for w in keep)

    def vscode(path: str) -> str | None:  # the name's words spaced, folder words before or after
        folders, base, stem, ext = _split_name(path)
        words = [w.lower() for w in re.split(r"[^A-Za-z0-9]+", stem) if w]  # camel humps and digits stay
        if len(stem) < 3 or not folders or not words:
            return None
        name = [_prefix(w, rng, 3, 6) for w in words[:3]]
        hints = [hint(path).lower()] if len(by_name[base]) > 1 or rng.random() < 0.5 else []
        return " ".join(hints + name if rng.random() < 0.5 else name + hints)

    def basename(path: str) -> str | None:
        folders, base, stem, ext = _split_name(path)
        return base if len(base) >= 3 else None

    def partial_ext(path: str) -> str | None:
        folders, base, stem, ext = _split_name(path)
        return stem + "." + ext[:rng.randint(1, len(ext) - 1)] if len(ext) >= 2 else None

    lowered_names = "\n".join(by_name).lower()

    def initials(path: str) -> str | None:  # only where no file name holds them contiguously (else: ambiguous)
        folders, base, stem, ext = _split_name(path)
        words = words_of(stem)
        query = "".join(w[0] for w in words)
        return query if len(words) >= 3 and query not in lowered_names else None

    def slash(path: str) -> str | None:  # folder/name-prefix, the prefix typed until no other name under
        folders, base, stem, ext = _split_name(path)  # that folder starts with it (people type until it shows)
        if not folders or len(stem) < 3:
            return None
        folder = hint(path)
        under = [p.rsplit("/", 1)[-1].lower() for p in paths
                 if p != path and any(f.startswith(folder) for f in p.split("/")[:-1])]
        size = rng.randint(3, 6)
        while size < len(stem) and any(other.startswith(stem[:size].lower()) for other in under):
            size += 1
        return folder + "/" + stem[:size]

    makers: dict[str, Callable[[str], str | None]] = {
        "fzf": fzf, "vscode": vscode, "basename": basename, "partial_ext": partial_ext,
        "initials": initials, "slash": slash}
    for style, make in makers.items():
        tries = 0
        while len(styles[style]) < per_style and tries < per_style * 50:
            tries += 1
            path = rng.choice(paths)
            query = make(path)
            if not query or len(query.replace(" ", "")) < (3 if style == "initials" else 4):
                continue  # people type at least a few characters before they look
            base = path.rsplit("/", 1)[-1]
            if len(by_name[base]) > 1 and style in ("basename", "partial_ext", "initials") and "/" in path:
                query = hint(path) + " " + query
            styles[style].append((query, path))
    styles["bench_py"] = bench_quick_open(paths, per_style, 7)  # bench.py's own set: not held out
    return styles


# -- running ----------------------------------------------------------------------------------------
def _rank_of(ranked: list[str], relevant: set[str]) -> int | None:
    return next((i + 1 for i, p in enumerate(ranked[:10]) if p in relevant), None)


def _report(label: str, rows: list[tuple[str, int | None, float, str]], misses: int) -> dict[str, Any]:
    mrr = statistics.mean(1.0 / r if r else 0.0 for _, r, _, _ in rows) if rows else 0.0
    lat = [t for _, _, t, _ in rows]
    first = sum(1 for _, r, _, _ in rows if r == 1)
    print(f"  {label:14} n={len(rows):4}  MRR@10 {mrr:.3f}  first {first:4}  p50 {_pct(lat, .5) * 1000:6.1f} ms"
          f"  p95 {_pct(lat, .95) * 1000:6.1f} ms  max {max(lat, default=0) * 1000:7.1f} ms", flush=True)
    shown = 0
    for query, rank, _, note in rows:
        if shown < misses and rank != 1:
            print(f"      miss rank={rank}  {query!r}  -> {note}")
            shown += 1
    return {"n": len(rows), "mrr10": round(mrr, 3), "first": first,
            "p50_ms": round(_pct(lat, .5) * 1000, 1), "p95_ms": round(_pct(lat, .95) * 1000, 1),
            "max_ms": round(max(lat, default=0) * 1000, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.path.expanduser("~/.cache/sleuth-bench/linux"))
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/sleuth-bench/index"))
    parser.add_argument("--tags", default=os.path.expanduser("~/.cache/sleuth-bench"),
                        help="folder of the cached ctags output")
    parser.add_argument("--per-style", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--only", choices=("defs", "files", "symbols"))
    parser.add_argument("--lsp", action="store_true", help="symbols: also time workspace/symbol over LSP")
    parser.add_argument("--misses", type=int, default=0, help="print this many misses per style")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    corpus = os.path.realpath(args.corpus)
    workspace = Workspace([corpus])
    settings = Settings()
    service = IndexService(workspace, settings.index_config(), cache_dir=args.cache)
    started = time.perf_counter()
    service.start()
    service.wait_ready()
    service.wait_idle(120)
    print(f"index ready in {time.perf_counter() - started:.1f} s: {service.status()['files']} files", flush=True)
    services = Services(index=service)
    _SERVICE[:] = [service]
    entries = service.catalogue_entries(workspace, None, None) or []
    paths = [e.display for e in entries]
    report: dict[str, Any] = {"corpus": corpus, "files": len(paths), "seed": args.seed}

    def run(name: str, call: dict[str, Any]) -> tuple[dict[str, Any], float]:
        begun = time.perf_counter()
        out = get_command(name)(call, CommandContext(workspace, settings, services=services))
        return out, time.perf_counter() - begun

    if args.only in (None, "symbols"):
        report["symbols"] = symbols_quality(corpus, paths, args, run)
    if args.only in (None, "defs"):
        sources = [p for p in paths if p.endswith(SOURCE_EXTS)]
        tags = tree_tags(corpus, sources, args.tags)
        styles = definition_queries(corpus, sources, tags, args.per_style, args.seed)
        run("sleuth.text", {"query": "warm up", "max_results": 20, "context_lines": 0})  # lazy imports, first pages
        print(f"definition queries (sleuth.text), judged by ctags (load average {os.getloadavg()[0]:.2f}):")
        all_rows = []
        by_kind: dict[str, list[tuple[str, int | None, float, str]]] = defaultdict(list)
        report["definitions"] = {}
        for style, items in styles.items():
            rows = []
            for query, name, kind, relevant in items:
                result, took = run("sleuth.text", {"query": query, "max_results": 20, "context_lines": 0})
                files: list[str] = []
                for item in result["results"]:
                    if item["path"] not in files:
                        files.append(item["path"])
                rank = _rank_of(files, relevant)
                row = (query, rank, took, f"{kind} {name} in {sorted(relevant)[:2]}, got {files[:3]}")
                rows.append(row)
                by_kind[kind].append(row)
            report["definitions"][style] = _report(style, rows, args.misses)
            all_rows += rows
        report["definitions"]["all"] = _report("all", all_rows, 0)
        print(" by kind:")
        for kind, rows in sorted(by_kind.items()):
            report["definitions"]["kind_" + kind] = _report(kind, rows, 0)

    if args.only in (None, "files"):
        print("Quick-Open queries (sleuth.files):")
        report["quick_open"] = {}
        all_rows = []
        for style, items in quick_open_queries(paths, args.per_style, args.seed).items():
            rows = []
            for query, target in items:
                result, took = run("sleuth.files", {"query": query, "max_results": 10})
                ranked = [item["path"] for item in result["items"]]
                rows.append((query, _rank_of(ranked, {target}), took, f"{target}, got {ranked[:3]}"))
            report["quick_open"][style] = _report(style, rows, args.misses)
            all_rows += rows
        report["quick_open"]["all"] = _report("all", all_rows, 0)
    service.stop()
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(report, handle, indent=2)
    return 0


_SERVICE: list[Any] = []  # the index service of this run (the symbols warm-up waits on its vocabulary)


def symbols_quality(corpus: str, paths: Sequence[str], args: argparse.Namespace,
                    run: Callable[[str, dict[str, Any]], tuple[dict[str, Any], float]]) -> dict[str, Any]:
    """``sleuth.symbols`` judged by ctags: exact names whose only ctags definition is one place -> top-1
    rate; the same names lower-cased without ``_`` -> MRR@10; latency in process (and over LSP)."""
    sources = [p for p in paths if p.endswith(SOURCE_EXTS + (".cc", ".cpp", ".hpp"))]
    picks = symbol_queries(symbol_tags(corpus, sources, args.tags), args.per_style * 3, args.seed)
    print(f"symbol queries (sleuth.symbols), judged by ctags: {len(picks)} names defined once")
    out: dict[str, Any] = {}
    begun = time.perf_counter()  # a warm server: the in-order keys are read once in the background
    run("sleuth.symbols", {"query": "zqxjv", "max_results": 10})
    from sleuth.engine.symbols.search import _store

    loaded = _store(_SERVICE[0]).wait_loaded(600)
    print(f"  in-order key vocabulary loaded: {loaded} in {time.perf_counter() - begun:.1f} s")
    styles = {"exact": lambda n: n, "relaxed": lambda n: n.lower().replace("_", "")}
    for style, make in styles.items():
        rows = []
        lines_ok = 0
        for name, kind, path, line in picks:
            result, took = run("sleuth.symbols", {"query": make(name), "max_results": 10})
            got = [(r["name"], r["path"]) for r in result["results"]]
            rank = next((i + 1 for i, g in enumerate(got) if g == (name, path)), None)
            lines_ok += bool(rank and result["results"][rank - 1]["line"] == line)
            rows.append((make(name), rank, took, f"{kind} {name} in {path}:{line}, got {got[:3]}"))
        out[style] = _report(style, rows, args.misses)
        out[style]["top1_rate"] = round(out[style]["first"] / max(len(rows), 1), 3)
        out[style]["same_line_as_ctags"] = lines_ok
        print(f"    top-1 rate {out[style]['top1_rate']:.3f}; found on ctags' line: {lines_ok}")
    if args.lsp:
        out["lsp"] = _symbols_over_lsp(corpus, args.cache, [make(n) for n, *_ in picks for make in styles.values()])
    return out


def serve(corpus: str, cache: str, argv: list[str] | None = None, env: dict[str, str] | None = None) -> Any:
    """A real ``sleuth serve`` (``argv``; the installed one by default) initialized on ``corpus`` with
    VS Code's capabilities and the store in ``cache``, once its index is ready (an ``LspProcess``)."""
    from lsp_client import SLEUTH, LspProcess, vscode_capabilities

    lsp = LspProcess(argv or [SLEUTH, "serve"], cwd=corpus, env=env)
    uri = "file://" + corpus
    lsp.request("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": vscode_capabilities(),
                               "workspaceFolders": [{"uri": uri, "name": "linux"}],
                               "initializationOptions": {"cacheDir": cache}}, 120)
    lsp.notify("initialized", {})
    deadline = time.time() + 600
    while lsp.execute("sleuth.index.status", {}, 30).result.get("state") != "ready" and time.time() < deadline:
        time.sleep(0.1)
    return lsp


def _symbols_over_lsp(corpus: str, cache: str, queries: list[str]) -> dict[str, Any]:
    """``workspace/symbol`` round trips on a real ``sleuth serve`` (VS Code's capabilities), same store."""
    lsp = serve(corpus, cache)
    times = []
    for query in queries:
        times.append(lsp.request("workspace/symbol", {"query": query}, 60).seconds)
    lsp.request("shutdown", None, 30)
    lsp.notify("exit")
    figures = {"n": len(times), "p50_ms": round(_pct(times, .5) * 1000, 1), "p95_ms": round(_pct(times, .95) * 1000, 1)}
    print(f"  workspace/symbol over LSP: n={figures['n']}  p50 {figures['p50_ms']} ms  p95 {figures['p95_ms']} ms")
    return figures


if __name__ == "__main__":
    sys.exit(main())
