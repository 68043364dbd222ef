"""Regression: ``sleuth grep``, ``sleuth files`` and ``sleuth text`` ran with built-in settings only,
so the workspace's ``deny_globs`` (``.agent/config.yml``) did not apply on the command line: a
denied file was read, printed and indexed (``sleuth tools call`` honoured them).

Guarded: docs/SPEC.md §3 — denied files are never read or listed, whatever the transport.
"""

from __future__ import annotations


import pytest

from tests.conftest import run_sleuth


sleuth = run_sleuth


@pytest.fixture
def tree(make_tree):
    return make_tree({
        ".agent/config.yml": "tools:\n  search:\n    deny_globs:\n      - secrets.txt\n",
        "secrets.txt": "needle token=hunter2\n",
        "ok.txt": "needle\n",
    })


def test_cli_grep_skips_denied_files(tree):
    proc = sleuth(tree, "grep", "needle")
    assert proc.returncode == 0
    assert proc.stdout == "ok.txt:needle\n"


def test_cli_files_does_not_list_denied_files(tree):
    proc = sleuth(tree, "files", "*.txt")
    assert proc.stdout.split() == ["ok.txt"]


def test_cli_text_does_not_index_denied_files(tree):
    proc = sleuth(tree, "text", "needle")
    assert proc.returncode == 0, proc.stderr
    assert "secrets.txt" not in proc.stdout and "ok.txt" in proc.stdout
