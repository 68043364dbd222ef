"""ripgrep 15.2's tests/binary.rs as data: each case is a tree, a command line and a cwd; rg is the oracle."""

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
    # -- new in ripgrep 15.0 (tests/binary.rs at tag 15.2.0): binary files read through a memory map ---
    *[{
        "name": f'mmap_{name}',
        "ops": [
            ('file', 'hay', data('sherlock-nul.txt')),
        ],
        "args": ['--mmap', *args],
        "check": 'stdout',
        "expected": expected,
    } for name, args, expected in [
        ('match_implicit', ['-n', 'Project Gutenberg EBook', '-g', 'hay'],
         'hay:1:The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n'),
        ('match_explicit', ['-n', 'Project Gutenberg EBook', 'hay'],
         '1:The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n'),
        ('match_near_nul', ['-n', 'abcdef', 'hay'], 'binary file matches (found "\\0" byte around offset 77041)\n'),
        ('match_count', ['-c', 'Project Gutenberg EBook|Heaven', 'hay'], '2\n'),
        ('match_multiple', ['-n', 'Project Gutenberg EBook|Heaven', 'hay'],
         '1:The Project Gutenberg EBook of A Study In Scarlet, by Arthur Conan Doyle\n'
         '1871:"No. Heaven knows what the objects of his studies are. But here we\n'),
        ('binary_flag', ['-n', '--binary', 'Heaven', '-g', 'hay'],
         'hay:1871:"No. Heaven knows what the objects of his studies are. But here we\n'),
        ('text_flag', ['-n', '--text', 'Heaven', '-g', 'hay'],
         'hay:1871:"No. Heaven knows what the objects of his studies are. But here we\n'),
        ('after_nul_match', ['-n', 'medical student', 'hay'],
         ''.join(f'{n}:"A medical student, I suppose?" said I.\n'
                 for n in (176, 409, 642, 875, 1108, 1341, 1574, 1807))
         + '1867:"And yet you say he is not a medical student?"\n'),
    ]],
    *[{
        "name": f'matching_files_inconsistent_with_count#{i}',
        "ops": [
            ('file', 'file1.txt', 'cat here\n' + 'padding line\n' * 150_000 + '\x00'),
            ('file', 'file2.txt', 'cat here'),
        ],
        "args": ['--sort=path', *args, 'cat', *more],
        "check": 'stdout',
        "expected": expected,
    } for i, (args, more, expected) in enumerate([
        (['-l'], [], 'file1.txt\nfile2.txt\n'),
        (['-c'], [], 'file2.txt:1\n'),
        (['-c'], ['--binary'], 'file1.txt:1\nfile2.txt:1\n'),
        (['-c'], ['--text'], 'file1.txt:1\nfile2.txt:1\n'),
    ], 1)],
]
