"""An index's few hundred candidates are searched in the caller's process, not shipped to the pool."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from sleuth.commands import get_command
from sleuth.commands.args import parse_args
from sleuth.commands.grep import GREP_ARGS, build_request
from sleuth.engine.cancel import CancelToken
from sleuth.engine.grep import loop
from tests.fixtures import context


def test_a_few_hundred_candidates_skip_the_pool_a_plain_list_does_not(tmp_path: Path, kit: SimpleNamespace,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      pool_as_in_a_server: None) -> None:
    files = 300  # over the walk's limit (IN_PROCESS_FILES), under the candidates' (IN_PROCESS_CANDIDATES)
    root = tmp_path / "ws"
    kit.write_tree(root, {f"f{n:04}.c": f"int pm_resume_{n};\n" for n in range(files)} | {"other.c": "nothing\n"})
    service = kit.start(root, tmp_path / "cache")
    pooled: list[int] = []
    real = loop._in_pool

    def in_pool(*args, **kwargs):  # type: ignore[no-untyped-def]
        pooled.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(loop, "_in_pool", in_pool)
    try:
        ctx = context(service.workspace, index=service)
        args = {"pattern": "PM_RESUME", "case": "insensitive", "max_results": 10_000}
        result = get_command("sleuth.grep")(args, ctx)
        assert result["files_scanned"] == files and result["count"] == files
        assert not pooled
        assert result["matches"] == get_command("sleuth.grep")(args, context(root))["matches"]
        request = build_request(parse_args("sleuth.grep", args, GREP_ARGS, ctx.settings), ctx)
        candidates = service.candidate_entries(service.workspace, request)
        assert candidates is not None and candidates.narrowed and len(candidates) == files
        plain = loop.run_grep(service.workspace, request, CancelToken(), entries=list(candidates))
        assert pooled and plain.files_scanned == files  # the same files as a plain list: the pool
    finally:
        service.stop()
