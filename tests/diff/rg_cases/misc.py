"""ripgrep 15.2's tests/misc.rs as data: each case is a tree, a command line and a cwd; rg is the oracle."""

from tests.diff.rg_cases.hay import SHERLOCK, SHERLOCK_CRLF, data  # noqa: F401

CASES = [
    {
        "name": 'single_file',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['Sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'dir',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['Sherlock'],
        "check": 'stdout',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'line_numbers',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-n', 'Sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('1:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '3:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'columns',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--column', 'Sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('1:57:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '3:49:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'with_filename',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-H', 'Sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'with_heading',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--with-filename', '--heading', 'Sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('sherlock\n'
     'For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'with_heading_default',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'foo', 'Sherlock Holmes lives on Baker Street.'),
        ],
        "args": ['-j1', '--heading', 'Sherlock'],
        "check": 'stdout',
        "sort": True,
        "expected": ('\n'
     'For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'Sherlock Holmes lives on Baker Street.\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'
     'foo\n'
     'sherlock\n'),
    },
    {
        "name": 'inverted',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-v', 'Sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('Holmeses, success in the province of detective work must always\n'
     'can extract a clew from a wisp of straw or a flake of cigar ash;\n'
     'but Doctor Watson has to have it taken out for him and dusted,\n'
     'and exhibited clearly, with a label attached.\n'),
    },
    {
        "name": 'inverted_line_numbers',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-n', '-v', 'Sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('2:Holmeses, success in the province of detective work must always\n'
     '4:can extract a clew from a wisp of straw or a flake of cigar ash;\n'
     '5:but Doctor Watson has to have it taken out for him and dusted,\n'
     '6:and exhibited clearly, with a label attached.\n'),
    },
    {
        "name": 'case_insensitive',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-i', 'sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'word',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-w', 'as', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'),
    },
    {
        "name": 'word_period',
        "ops": [
            ('file', 'haystack', '...'),
        ],
        "args": ['-ow', '.', 'haystack'],
        "check": 'stdout',
        "expected": '.\n.\n.\n',
    },
    {
        "name": 'line',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-x', 'Watson|and exhibited clearly, with a label attached.', 'sherlock'],
        "check": 'stdout',
        "expected": 'and exhibited clearly, with a label attached.\n',
    },
    {
        "name": 'literal',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file', 'blib\n()\nblab\n'),
        ],
        "args": ['-F', '()', 'file'],
        "check": 'stdout',
        "expected": '()\n',
    },
    {
        "name": 'quiet',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-q', 'Sherlock', 'sherlock'],
        "check": 'stdout',
    },
    {
        "name": 'replace',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-r', 'FooBar', 'Sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the FooBar\n'
     'be, to a very large extent, the result of luck. FooBar Holmes\n'),
    },
    {
        "name": 'replace_groups',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-r', '$2, $1', '([A-Z][a-z]+) ([A-Z][a-z]+)', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Watsons, Doctor of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Holmes, Sherlock\n'
     'but Watson, Doctor has to have it taken out for him and dusted,\n'),
    },
    {
        "name": 'replace_named_groups',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-r', '$last, $first', '(?P<first>[A-Z][a-z]+) (?P<last>[A-Z][a-z]+)', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Watsons, Doctor of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Holmes, Sherlock\n'
     'but Watson, Doctor has to have it taken out for him and dusted,\n'),
    },
    {
        "name": 'replace_with_only_matching',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-o', '-r', '$1', 'of (\\w+)', 'sherlock'],
        "check": 'stdout',
        "expected": 'this\ndetective\nluck\nstraw\ncigar\n',
    },
    {
        "name": 'file_types',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file.py', 'Sherlock'),
            ('file', 'file.rs', 'Sherlock'),
        ],
        "args": ['-t', 'rust', 'Sherlock'],
        "check": 'stdout',
        "expected": 'file.rs:Sherlock\n',
    },
    {
        "name": 'file_types_all',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file.py', 'Sherlock'),
        ],
        "args": ['-t', 'all', 'Sherlock'],
        "check": 'stdout',
        "expected": 'file.py:Sherlock\n',
    },
    {
        "name": 'file_types_negate',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('remove', 'sherlock'),
            ('file', 'file.py', 'Sherlock'),
            ('file', 'file.rs', 'Sherlock'),
        ],
        "args": ['-T', 'rust', 'Sherlock'],
        "check": 'stdout',
        "expected": 'file.py:Sherlock\n',
    },
    {
        "name": 'file_types_negate_all',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file.py', 'Sherlock'),
        ],
        "args": ['-T', 'all', 'Sherlock'],
        "check": 'stdout',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'file_type_clear',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file.py', 'Sherlock'),
            ('file', 'file.rs', 'Sherlock'),
        ],
        "args": ['--type-clear', 'rust', '-t', 'rust', 'Sherlock'],
        "check": 'stderr',
    },
    {
        "name": 'file_type_add',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file.py', 'Sherlock'),
            ('file', 'file.rs', 'Sherlock'),
            ('file', 'file.wat', 'Sherlock'),
        ],
        "args": ['--type-add', 'wat:*.wat', '-t', 'wat', 'Sherlock'],
        "check": 'stdout',
        "expected": 'file.wat:Sherlock\n',
    },
    {
        "name": 'file_type_add_compose',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file.py', 'Sherlock'),
            ('file', 'file.rs', 'Sherlock'),
            ('file', 'file.wat', 'Sherlock'),
        ],
        "args": ['--type-add', 'wat:*.wat', '--type-add', 'combo:include:wat,py', '-t', 'combo', 'Sherlock'],
        "check": 'stdout',
        "sort": True,
        "expected": 'file.py:Sherlock\nfile.wat:Sherlock\n',
    },
    {
        "name": 'glob',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file.py', 'Sherlock'),
            ('file', 'file.rs', 'Sherlock'),
        ],
        "args": ['-g', '*.rs', 'Sherlock'],
        "check": 'stdout',
        "expected": 'file.rs:Sherlock\n',
    },
    {
        "name": 'glob_negate',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('remove', 'sherlock'),
            ('file', 'file.py', 'Sherlock'),
            ('file', 'file.rs', 'Sherlock'),
        ],
        "args": ['-g', '!*.rs', 'Sherlock'],
        "check": 'stdout',
        "expected": 'file.py:Sherlock\n',
    },
    {
        "name": 'glob_case_insensitive',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file.HTML', 'Sherlock'),
        ],
        "args": ['--iglob', '*.html', 'Sherlock'],
        "check": 'stdout',
        "expected": 'file.HTML:Sherlock\n',
    },
    {
        "name": 'glob_case_sensitive',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file1.HTML', 'Sherlock'),
            ('file', 'file2.html', 'Sherlock'),
        ],
        "args": ['--glob', '*.html', 'Sherlock'],
        "check": 'stdout',
        "expected": 'file2.html:Sherlock\n',
    },
    {
        "name": 'glob_always_case_insensitive',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file.HTML', 'Sherlock'),
        ],
        "args": ['--glob-case-insensitive', '--glob', '*.html', 'Sherlock'],
        "check": 'stdout',
        "expected": 'file.HTML:Sherlock\n',
    },
    {
        "name": 'byte_offset_only_matching',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-b', '-o', 'Sherlock'],
        "check": 'stdout',
        "expected": 'sherlock:56:Sherlock\nsherlock:177:Sherlock\n',
    },
    {
        "name": 'count',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--count', 'Sherlock'],
        "check": 'stdout',
        "expected": 'sherlock:2\n',
    },
    {
        "name": 'count_matches',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--count-matches', 'the'],
        "check": 'stdout',
        "expected": 'sherlock:4\n',
    },
    {
        "name": 'count_matches_inverted',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--count-matches', '--invert-match', 'Sherlock'],
        "check": 'stdout',
        "expected": 'sherlock:4\n',
    },
    {
        "name": 'count_matches_via_only',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--count', '--only-matching', 'the'],
        "check": 'stdout',
        "expected": 'sherlock:4\n',
    },
    {
        "name": 'include_zero#1',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--count', '--include-zero', 'nada'],
        "check": 'err',
    },
    {
        "name": 'include_zero#2',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--count', '--include-zero', 'nada'],
        "check": 'any',
        "expected": 'sherlock:0\n',
    },
    {
        "name": 'include_zero_override#1',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--count', '--include-zero', '--no-include-zero', 'nada'],
        "check": 'err',
    },
    {
        "name": 'include_zero_override#2',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--count', '--include-zero', '--no-include-zero', 'nada'],
        "check": 'any',
    },
    {
        "name": 'files_with_matches',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--files-with-matches', 'Sherlock'],
        "check": 'stdout',
        "expected": 'sherlock\n',
    },
    {
        "name": 'files_without_match',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file.py', 'foo'),
        ],
        "args": ['--files-without-match', 'Sherlock'],
        "check": 'stdout',
        "expected": 'file.py\n',
    },
    {
        "name": 'after_context',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-A', '1', 'Sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'Holmeses, success in the province of detective work must always\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'
     'can extract a clew from a wisp of straw or a flake of cigar ash;\n'),
    },
    {
        "name": 'after_context_line_numbers',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-A', '1', '-n', 'Sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('1:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '2-Holmeses, success in the province of detective work must always\n'
     '3:be, to a very large extent, the result of luck. Sherlock Holmes\n'
     '4-can extract a clew from a wisp of straw or a flake of cigar ash;\n'),
    },
    {
        "name": 'before_context',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-B', '1', 'Sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'Holmeses, success in the province of detective work must always\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'before_context_line_numbers',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-B', '1', '-n', 'Sherlock', 'sherlock'],
        "check": 'stdout',
        "expected": ('1:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '2-Holmeses, success in the province of detective work must always\n'
     '3:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'context',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-C', '1', 'world|attached', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'Holmeses, success in the province of detective work must always\n'
     '--\n'
     'but Doctor Watson has to have it taken out for him and dusted,\n'
     'and exhibited clearly, with a label attached.\n'),
    },
    {
        "name": 'context_line_numbers',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-C', '1', '-n', 'world|attached', 'sherlock'],
        "check": 'stdout',
        "expected": ('1:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '2-Holmeses, success in the province of detective work must always\n'
     '--\n'
     '5-but Doctor Watson has to have it taken out for him and dusted,\n'
     '6:and exhibited clearly, with a label attached.\n'),
    },
    {
        "name": 'max_filesize_parse_no_suffix',
        "ops": [
            ('size', 'foo', 40),
            ('size', 'bar', 60),
        ],
        "args": ['--max-filesize', '50', '--files'],
        "check": 'stdout',
        "expected": 'foo\n',
    },
    {
        "name": 'max_filesize_parse_k_suffix',
        "ops": [
            ('size', 'foo', 3048),
            ('size', 'bar', 4100),
        ],
        "args": ['--max-filesize', '4K', '--files'],
        "check": 'stdout',
        "expected": 'foo\n',
    },
    {
        "name": 'max_filesize_parse_m_suffix',
        "ops": [
            ('size', 'foo', 1000000),
            ('size', 'bar', 1400000),
        ],
        "args": ['--max-filesize', '1M', '--files'],
        "check": 'stdout',
        "expected": 'foo\n',
    },
    {
        "name": 'max_filesize_suffix_overflow',
        "ops": [
            ('size', 'foo', 1000000),
        ],
        "args": ['--max-filesize', '34359738368G', '--files'],
        "check": 'stderr',
    },
    {
        "name": 'ignore_hidden',
        "ops": [
            ('file', '.sherlock', SHERLOCK),
        ],
        "args": ['Sherlock'],
        "check": 'err',
    },
    {
        "name": 'no_ignore_hidden',
        "ops": [
            ('file', '.sherlock', SHERLOCK),
        ],
        "args": ['--hidden', 'Sherlock'],
        "check": 'stdout',
        "expected": ('.sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '.sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'ignore_git',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('dir', '.git'),
            ('file', '.gitignore', 'sherlock\n'),
        ],
        "args": ['Sherlock'],
        "check": 'err',
    },
    {
        "name": 'ignore_generic',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', '.ignore', 'sherlock\n'),
        ],
        "args": ['Sherlock'],
        "check": 'err',
    },
    {
        "name": 'ignore_ripgrep',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', '.rgignore', 'sherlock\n'),
        ],
        "args": ['Sherlock'],
        "check": 'err',
    },
    {
        "name": 'no_ignore',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', '.gitignore', 'sherlock\n'),
        ],
        "args": ['--no-ignore', 'Sherlock'],
        "check": 'stdout',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'ignore_git_parent',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'sherlock\n'),
            ('dir', 'foo'),
            ('file', 'foo/sherlock', SHERLOCK),
        ],
        "args": ['Sherlock'],
        "cwd": 'foo',
        "check": 'err',
    },
    {
        "name": 'ignore_git_parent_stop',
        "ops": [
            ('file', '.gitignore', 'sherlock\n'),
            ('dir', 'foo'),
            ('dir', 'foo/.git'),
            ('dir', 'foo/bar'),
            ('file', 'foo/bar/sherlock', SHERLOCK),
        ],
        "args": ['Sherlock'],
        "cwd": 'foo/bar',
        "check": 'stdout',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'ignore_git_parent_stop_file',
        "ops": [
            ('file', '.gitignore', 'sherlock\n'),
            ('dir', 'foo'),
            ('file', 'foo/.git', ''),
            ('dir', 'foo/bar'),
            ('file', 'foo/bar/sherlock', SHERLOCK),
        ],
        "args": ['Sherlock'],
        "cwd": 'foo/bar',
        "check": 'stdout',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'ignore_ripgrep_parent_no_stop',
        "ops": [
            ('file', '.rgignore', 'sherlock\n'),
            ('dir', 'foo'),
            ('dir', 'foo/.git'),
            ('dir', 'foo/bar'),
            ('file', 'foo/bar/sherlock', SHERLOCK),
        ],
        "args": ['Sherlock'],
        "cwd": 'foo/bar',
        "check": 'err',
    },
    {
        "name": 'no_parent_ignore_git',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'sherlock\n'),
            ('dir', 'foo'),
            ('file', 'foo/.gitignore', 'watson\n'),
            ('file', 'foo/sherlock', SHERLOCK),
            ('file', 'foo/watson', SHERLOCK),
        ],
        "args": ['--no-ignore-parent', 'Sherlock'],
        "cwd": 'foo',
        "check": 'stdout',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'symlink_nofollow',
        "ops": [
            ('dir', 'foo'),
            ('dir', 'foo/bar'),
            ('link', 'foo/baz', 'foo/bar/baz'),
            ('dir', 'foo/baz'),
            ('file', 'foo/baz/sherlock', SHERLOCK),
        ],
        "args": ['Sherlock'],
        "cwd": 'foo/bar',
        "check": 'err',
    },
    {
        "name": 'symlink_follow',
        "ops": [
            ('dir', 'foo'),
            ('dir', 'foo/bar'),
            ('dir', 'foo/baz'),
            ('file', 'foo/baz/sherlock', SHERLOCK),
            ('link', 'foo/baz', 'foo/bar/baz'),
        ],
        "args": ['-L', 'Sherlock'],
        "cwd": 'foo/bar',
        "check": 'stdout',
        "expected": ('baz/sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'baz/sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'unrestricted1',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', '.gitignore', 'sherlock\n'),
        ],
        "args": ['-u', 'Sherlock'],
        "check": 'stdout',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'unrestricted2',
        "ops": [
            ('file', '.sherlock', SHERLOCK),
        ],
        "args": ['-uu', 'Sherlock'],
        "check": 'stdout',
        "expected": ('.sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '.sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'unrestricted3',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'hay', 'foo\x00bar\nfoo\x00baz\n'),
        ],
        "args": ['-uuu', 'foo'],
        "check": 'stdout',
        "expected": 'hay: binary file matches (found "\\0" byte around offset 3)\n',
    },
    {
        "name": 'vimgrep',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--vimgrep', 'Sherlock|Watson'],
        "check": 'stdout',
        "expected": ('sherlock:1:16:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:1:57:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:3:49:be, to a very large extent, the result of luck. Sherlock Holmes\n'
     'sherlock:5:12:but Doctor Watson has to have it taken out for him and dusted,\n'),
    },
    {
        "name": 'vimgrep_no_line',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--vimgrep', '-N', 'Sherlock|Watson'],
        "check": 'stdout',
        "expected": ('sherlock:16:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:57:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:49:be, to a very large extent, the result of luck. Sherlock Holmes\n'
     'sherlock:12:but Doctor Watson has to have it taken out for him and dusted,\n'),
    },
    {
        "name": 'vimgrep_no_line_no_column',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--vimgrep', '-N', '--no-column', 'Sherlock|Watson'],
        "check": 'stdout',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'
     'sherlock:but Doctor Watson has to have it taken out for him and dusted,\n'),
    },
    {
        "name": 'preprocessing',
        "ops": [
            ('file', 'sherlock.xz', data('sherlock.xz')),
        ],
        "args": ['--pre', 'xzcat', 'Sherlock', 'sherlock.xz'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'preprocessing_glob',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'sherlock.xz', data('sherlock.xz')),
        ],
        "args": ['--pre', 'xzcat', '--pre-glob', '*.xz', 'Sherlock'],
        "check": 'stdout',
        "sort": True,
        "expected": ('sherlock.xz:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock.xz:be, to a very large extent, the result of luck. Sherlock Holmes\n'
     'sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'compressed_gzip',
        "ops": [
            ('file', 'sherlock.gz', data('sherlock.gz')),
        ],
        "args": ['-z', 'Sherlock', 'sherlock.gz'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'compressed_bzip2',
        "ops": [
            ('file', 'sherlock.bz2', data('sherlock.bz2')),
        ],
        "args": ['-z', 'Sherlock', 'sherlock.bz2'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'compressed_xz',
        "ops": [
            ('file', 'sherlock.xz', data('sherlock.xz')),
        ],
        "args": ['-z', 'Sherlock', 'sherlock.xz'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'compressed_lz4',
        "ops": [
            ('file', 'sherlock.lz4', data('sherlock.lz4')),
        ],
        "args": ['-z', 'Sherlock', 'sherlock.lz4'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'compressed_lzma',
        "ops": [
            ('file', 'sherlock.lzma', data('sherlock.lzma')),
        ],
        "args": ['-z', 'Sherlock', 'sherlock.lzma'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'compressed_brotli',
        "ops": [
            ('file', 'sherlock.br', data('sherlock.br')),
        ],
        "args": ['-z', 'Sherlock', 'sherlock.br'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'compressed_zstd',
        "ops": [
            ('file', 'sherlock.zst', data('sherlock.zst')),
        ],
        "args": ['-z', 'Sherlock', 'sherlock.zst'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'compressed_uncompress',
        "ops": [
            ('file', 'sherlock.Z', data('sherlock.Z')),
        ],
        "args": ['-z', 'Sherlock', 'sherlock.Z'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'compressed_failing_gzip',
        "ops": [
            ('file', 'sherlock.gz', SHERLOCK),
        ],
        "args": ['-z', 'Sherlock', 'sherlock.gz'],
        "check": 'stderr',
    },
    {
        "name": 'binary_convert',
        "ops": [
            ('file', 'file', 'foo\x00bar\nfoo\x00baz\n'),
        ],
        "args": ['--no-mmap', 'foo', 'file'],
        "check": 'stdout',
        "expected": 'binary file matches (found "\\0" byte around offset 3)\n',
    },
    {
        "name": 'binary_convert_mmap',
        "ops": [
            ('file', 'file', 'foo\x00bar\nfoo\x00baz\n'),
        ],
        "args": ['--mmap', 'foo', 'file'],
        "check": 'stdout',
        "expected": 'binary file matches (found "\\0" byte around offset 3)\n',
    },
    {
        "name": 'binary_quit',
        "ops": [
            ('file', 'file', 'foo\x00bar\nfoo\x00baz\n'),
        ],
        "args": ['--no-mmap', 'foo', '-gfile'],
        "check": 'err',
    },
    {
        "name": 'binary_quit_mmap',
        "ops": [
            ('file', 'file', 'foo\x00bar\nfoo\x00baz\n'),
        ],
        "args": ['--mmap', 'foo', '-gfile'],
        "check": 'err',
    },
    {
        "name": 'binary_search_mmap',
        "ops": [
            ('file', 'file', 'foo\x00bar\nfoo\x00baz\n'),
        ],
        "args": ['-a', '--mmap', 'foo', 'file'],
        "check": 'stdout',
        "expected": 'foo\x00bar\nfoo\x00baz\n',
    },
    {
        "name": 'binary_search_no_mmap',
        "ops": [
            ('file', 'file', 'foo\x00bar\nfoo\x00baz\n'),
        ],
        "args": ['-a', '--no-mmap', 'foo', 'file'],
        "check": 'stdout',
        "expected": 'foo\x00bar\nfoo\x00baz\n',
    },
    {
        "name": 'files',
        "ops": [
            ('file', 'file', ''),
            ('dir', 'dir'),
            ('file', 'dir/file', ''),
        ],
        "args": ['--files'],
        "check": 'stdout',
        "sort": True,
        "expected": 'dir/file\nfile\n',
    },
    {
        "name": 'sort_files',
        "ops": [
            ('file', 'a', 'test'),
            ('dir', 'dir'),
            ('file', 'dir/c', 'test'),
            ('file', 'b', 'test'),
            ('file', 'dir/d', 'test'),
        ],
        "args": ['--sort', 'path', 'test'],
        "check": 'stdout',
        "expected": 'a:test\nb:test\ndir/c:test\ndir/d:test\n',
    },
    {
        "name": 'sort_accessed',
        "ops": [
            ('file', 'a', 'test'),
            ('dir', 'dir'),
            ('file', 'dir/c', 'test'),
            ('file', 'b', 'test'),
            ('file', 'dir/d', 'test'),
        ],
        "args": ['--sort', 'accessed', 'test'],
        "check": 'stdout',
        "expected": 'a:test\ndir/c:test\nb:test\ndir/d:test\n',
    },
    {
        "name": 'sortr_accessed',
        "ops": [
            ('file', 'a', 'test'),
            ('dir', 'dir'),
            ('file', 'dir/c', 'test'),
            ('file', 'b', 'test'),
            ('file', 'dir/d', 'test'),
        ],
        "args": ['--sortr', 'accessed', 'test'],
        "check": 'stdout',
        "expected": 'dir/d:test\nb:test\ndir/c:test\na:test\n',
    },
    # -- new in ripgrep 15.2 (tests/misc.rs at tag 15.2.0): parent ignore files with several roots -----
    *[{
        "name": f'ignore_git_multi_root_order#{i}',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'src/invalid\n'),
            ('dir', 'src'),
            ('dir', 'tests'),
            ('file', 'src/invalid', 'this\n'),
            ('file', 'src/valid', 'this\n'),
            ('file', 'tests/valid', 'this\n'),
        ],
        "args": ['--files-with-matches', 'this', *roots],
        "check": 'stdout',
        "sort": True,
        "expected": 'src/valid\ntests/valid\n',
    } for i, roots in enumerate([['src', 'tests'], ['tests', 'src']], 1)],
    *[{
        "name": f'ignore_rgignore_multi_root_order#{i}',
        "ops": [
            ('file', '.rgignore', 'beta/**/*.svg\n'),
            ('dir', 'alpha'),
            ('dir', 'beta'),
            ('file', 'alpha/a.txt', 'AWS\n'),
            ('file', 'beta/x.svg', 'AWS\n'),
        ],
        "args": ['--files-with-matches', 'AWS', *roots],
        "check": 'stdout',
        "sort": True,
        "expected": 'alpha/a.txt\n',
    } for i, roots in enumerate([['alpha', 'beta'], ['beta', 'alpha']], 1)],
]
