"""ripgrep 14.1's tests/binary.rs as data: each case is a tree, a command line and a cwd; rg is the oracle."""

from tests.diff.rg_cases.hay import SHERLOCK, SHERLOCK_CRLF, data  # noqa: F401

CASES = [
    {
        "name": 'after_match1_implicit',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', 'Project Gutenberg EBook', '-g', 'hay'],
        "check": 'stdout',
        "expected": ('hay:1:The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n'
     'hay: WARNING: stopped searching binary file after match (found "\\0" byte around offset 77041)\n'),
    },
    {
        "name": 'after_match1_explicit',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', 'Project Gutenberg EBook', 'hay'],
        "check": 'stdout',
        "expected": ('1:The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n'
     'binary file matches (found "\\0" byte around offset 77041)\n'),
    },
    {
        "name": 'after_match1_implicit_binary',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', '--binary', 'Project Gutenberg EBook', '-g', 'hay'],
        "check": 'stdout',
        "expected": ('hay:1:The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n'
     'hay: binary file matches (found "\\0" byte around offset 77041)\n'),
    },
    {
        "name": 'after_match1_implicit_text',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', '--text', 'Project Gutenberg EBook', '-g', 'hay'],
        "check": 'stdout',
        "expected": ('hay:1:The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n'),
    },
    {
        "name": 'after_match1_explicit_text',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', '--text', 'Project Gutenberg EBook', 'hay'],
        "check": 'stdout',
        "expected": ('1:The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n'),
    },
    {
        "name": 'after_match1_implicit_path',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-l', 'Project Gutenberg EBook', '-g', 'hay'],
        "check": 'stdout',
        "expected": 'hay\n',
    },
    {
        "name": 'after_match1_implicit_quiet',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-q', 'Project Gutenberg EBook', '-g', 'hay'],
        "check": 'stdout',
    },
    {
        "name": 'after_match1_implicit_count',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-c', 'Project Gutenberg EBook', '-g', 'hay'],
        "check": 'err',
    },
    {
        "name": 'after_match1_implicit_count_binary',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-c', '--binary', 'Project Gutenberg EBook', '-g', 'hay'],
        "check": 'stdout',
        "expected": 'hay:1\n',
    },
    {
        "name": 'after_match1_explicit_count',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-c', 'Project Gutenberg EBook', 'hay'],
        "check": 'stdout',
        "expected": '1\n',
    },
    {
        "name": 'after_match2_implicit',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', 'Project Gutenberg EBook|a medical student', '-g', 'hay'],
        "check": 'stdout',
        "expected": ('hay:1:The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n'
     'hay: WARNING: stopped searching binary file after match (found "\\0" byte around offset 77041)\n'),
    },
    {
        "name": 'after_match2_implicit_text',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', '--text', 'Project Gutenberg EBook|a medical student', '-g', 'hay'],
        "check": 'stdout',
        "expected": ('hay:1:The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n'
     'hay:1867:"And yet you say he is not a medical student?"\n'),
    },
    {
        "name": 'before_match1_implicit',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', 'Heaven', '-g', 'hay'],
        "check": 'err',
    },
    {
        "name": 'before_match1_explicit',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', 'Heaven', 'hay'],
        "check": 'stdout',
        "expected": 'binary file matches (found "\\0" byte around offset 77041)\n',
    },
    {
        "name": 'before_match1_implicit_binary',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', '--binary', 'Heaven', '-g', 'hay'],
        "check": 'stdout',
        "expected": ('hay: binary file matches (found "\\0" byte around offset 77041)\n'),
    },
    {
        "name": 'before_match1_implicit_text',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', '--text', 'Heaven', '-g', 'hay'],
        "check": 'stdout',
        "expected": ('hay:1871:"No. Heaven knows what the objects of his studies are. But here we\n'),
    },
    {
        "name": 'before_match2_implicit',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', 'a medical student', '-g', 'hay'],
        "check": 'err',
    },
    {
        "name": 'before_match2_explicit',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', 'a medical student', 'hay'],
        "check": 'stdout',
        "expected": 'binary file matches (found "\\0" byte around offset 77041)\n',
    },
    {
        "name": 'before_match2_implicit_text',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--no-mmap', '-n', '--text', 'a medical student', '-g', 'hay'],
        "check": 'stdout',
        "expected": 'hay:1867:"And yet you say he is not a medical student?"\n',
    },
]
