"""ripgrep 15.2's tests/multiline.rs as data: each case is a tree, a command line and a cwd; rg is the oracle."""

from tests.diff.rg_cases.hay import SHERLOCK, SHERLOCK_CRLF, data  # noqa: F401

CASES = [
    {
        "name": 'overlap1',
        "ops": [
            ('file', 'test', 'xxx\nabc\ndefxxxabc\ndefxxx\nxxx'),
        ],
        "args": ['-n', '-U', 'abc\ndef', 'test'],
        "check": 'stdout',
        "expected": '2:abc\n3:defxxxabc\n4:defxxx\n',
    },
    {
        "name": 'overlap2',
        "ops": [
            ('file', 'test', 'xxx\nabc\ndefabc\ndefxxx\nxxx'),
        ],
        "args": ['-n', '-U', 'abc\ndef', 'test'],
        "check": 'stdout',
        "expected": '2:abc\n3:defabc\n4:defxxx\n',
    },
    {
        "name": 'dot_no_newline',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-n', '-U', 'of this world.+detective work', 'sherlock'],
        "check": 'err',
    },
    {
        "name": 'dot_all',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-n', '-U', '--multiline-dotall', 'of this world.+detective work', 'sherlock'],
        "check": 'stdout',
        "expected": ('1:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '2:Holmeses, success in the province of detective work must always\n'),
    },
    {
        "name": 'only_matching',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-n', '-U', '--only-matching', 'Watson|Sherlock\\p{Any}+?Holmes', 'sherlock'],
        "check": 'stdout',
        "expected": '1:Watson\n1:Sherlock\n2:Holmes\n3:Sherlock Holmes\n5:Watson\n',
    },
    {
        "name": 'vimgrep',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-n', '-U', '--vimgrep', 'Watson|Sherlock\\p{Any}+?Holmes', 'sherlock'],
        "check": 'stdout',
        "expected": ('sherlock:1:16:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:1:57:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:3:49:be, to a very large extent, the result of luck. Sherlock Holmes\n'
     'sherlock:5:12:but Doctor Watson has to have it taken out for him and dusted,\n'),
    },
    {
        "name": 'context',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-n', '-U', '-C1', 'detective work\\p{Any}+?result of luck', 'sherlock'],
        "check": 'stdout',
        "expected": ('1-For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '2:Holmeses, success in the province of detective work must always\n'
     '3:be, to a very large extent, the result of luck. Sherlock Holmes\n'
     '4-can extract a clew from a wisp of straw or a flake of cigar ash;\n'),
    },
]
