"""ripgrep 15.2's integration tests (tests/regression.rs, feature.rs, misc.rs, multiline.rs, binary.rs,
json.rs) as data, for ``tests/diff/test_rg_suite.py``.

Each case is what one command of an rg test does, not what it expects: ``ops`` builds the tree (in
order: ``("file", path, content)``, ``("dir", path)``, ``("size", path, bytes)``, ``("link", target,
name)``, ``("remove", path)``; ``{DIR}`` in a file's text is the test's folder), ``args`` is the
command line after rg's own ``--path-separator /`` (``{DIR}`` stands for the test's folder), ``cwd``
the folder it runs in, relative to the test's, ``stdin`` what is piped in and ``env`` the variables
it sets. rg 15.2 is the oracle: its output and exit code are what ``sleuth grep`` must print.
``check`` is what rg's test checked (``stdout``: exit 0 and the output; ``err``: a non-zero exit;
``exit``: exit code ``exit``; ``stderr``: a message; ``any``: only the output), and ``expected`` the
output it expected where it said so, by which a case rg 15.2 itself fails is told apart. ``sort``:
rg's order is unspecified (its test sorted the lines). ``bytes_searched``: the case is about
``--stats``' count of bytes searched (compared; other byte counts are not).

The cases new or changed in ripgrep 15.0-15.2 come last in each module, under a comment that says so.
"""

from __future__ import annotations

from typing import Any

from tests.diff.rg_cases import binary, feature, json, misc, multiline, regression

__all__ = ["ALL_CASES"]

ALL_CASES: list[dict[str, Any]] = [
    dict(case, name=f"{module.__name__.rsplit('.', 1)[1]}::{case['name']}")
    for module in (regression, feature, misc, multiline, binary, json)
    for case in module.CASES
]
