"""ripgrep 15.2's tests/json.rs as data: each case is a tree, a command line and a cwd; rg is the oracle."""

from tests.diff.rg_cases.hay import SHERLOCK, SHERLOCK_CRLF, data  # noqa: F401

CASES = [
    {
        "name": 'basic',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--json', '-B1', 'Sherlock Holmes', 'sherlock'],
        "check": 'stdout',
    },
    {
        "name": 'quiet_stats',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--json', '--quiet', '--stats', 'Sherlock Holmes', 'sherlock'],
        "check": 'stdout',
    },
    {
        "name": 'crlf',
        "ops": [
            ('file', 'sherlock', SHERLOCK_CRLF),
        ],
        "args": ['--json', '--crlf', 'Sherlock$', 'sherlock'],
        "check": 'stdout',
    },
    {
        "name": 'r1095_missing_crlf',
        "ops": [
            ('file', 'foo', 'test\r\n'),
        ],
        "args": ['--json', 'test'],
        "check": 'stdout',
    },
    {
        "name": 'r1095_crlf_empty_match',
        "ops": [
            ('file', 'foo', 'test\r\n\n'),
        ],
        "args": ['-U', '--json', '\n'],
        "check": 'stdout',
    },
    # -- new in ripgrep 15.0 (tests/json.rs at tag 15.2.0): -r with --json ------------------------------
    {
        "name": 'replacement',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--json', '-B1', 'Sherlock Holmes', '-r', 'John Watson', 'sherlock'],
        "check": 'stdout',
    },
]
