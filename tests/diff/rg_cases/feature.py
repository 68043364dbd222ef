"""ripgrep 15.2's tests/feature.rs as data: each case is a tree, a command line and a cwd; rg is the oracle."""

from tests.diff.rg_cases.hay import SHERLOCK, SHERLOCK_CRLF, data  # noqa: F401

CASES = [
    {
        "name": 'f1_sjis',
        "ops": [
            ('file', 'foo', b'\x84Y\x84u\x84\x82\x84|\x84\x80\x84{ \x84V\x84\x80\x84|\x84}\x84\x83'),
        ],
        "args": ['-Esjis', 'Шерлок Холмс'],
        "check": 'stdout',
        "expected": 'foo:Шерлок Холмс\n',
    },
    {
        "name": 'f1_utf16_auto',
        "ops": [
            ('file', 'foo', b'\xff\xfe(\x045\x04@\x04;\x04>\x04:\x04 \x00%\x04>\x04;\x04<\x04A\x04'),
        ],
        "args": ['Шерлок Холмс'],
        "check": 'stdout',
        "expected": 'foo:Шерлок Холмс\n',
    },
    {
        "name": 'f1_utf16_explicit',
        "ops": [
            ('file', 'foo', b'\xff\xfe(\x045\x04@\x04;\x04>\x04:\x04 \x00%\x04>\x04;\x04<\x04A\x04'),
        ],
        "args": ['-Eutf-16le', 'Шерлок Холмс'],
        "check": 'stdout',
        "expected": 'foo:Шерлок Холмс\n',
    },
    {
        "name": 'f1_eucjp',
        "ops": [
            ('file', 'foo', b'\xa7\xba\xa7\xd6\xa7\xe2\xa7\xdd\xa7\xe0\xa7\xdc \xa7\xb7\xa7\xe0\xa7\xdd\xa7\xde\xa7\xe3'),
        ],
        "args": ['-Eeuc-jp', 'Шерлок Холмс'],
        "check": 'stdout',
        "expected": 'foo:Шерлок Холмс\n',
    },
    {
        "name": 'f7',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'pat', 'Sherlock\nHolmes'),
        ],
        "args": ['-fpat', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'Holmeses, success in the province of detective work must always\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'f7_stdin',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-f-'],
        "check": 'stdout',
        "stdin": b'Sherlock',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'f20_no_filename',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--no-filename', '--no-filename', 'Sherlock'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'f34_only_matching',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-o', 'Sherlock'],
        "check": 'stdout',
        "expected": 'sherlock:Sherlock\nsherlock:Sherlock\n',
    },
    {
        "name": 'f34_only_matching_line_column',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-o', '--column', '-n', 'Sherlock'],
        "check": 'stdout',
        "expected": 'sherlock:1:57:Sherlock\nsherlock:3:49:Sherlock\n',
    },
    {
        "name": 'f45_relative_cwd#1',
        "ops": [
            ('file', '.not-an-ignore', 'foo\n/bar'),
            ('dir', 'bar'),
            ('dir', 'baz/bar'),
            ('dir', 'baz/baz/bar'),
            ('file', 'bar/test', 'test'),
            ('file', 'baz/bar/test', 'test'),
            ('file', 'baz/baz/bar/test', 'test'),
            ('file', 'baz/foo', 'test'),
            ('file', 'baz/test', 'test'),
            ('file', 'foo', 'test'),
            ('file', 'test', 'test'),
        ],
        "args": ['-l', 'test'],
        "check": 'stdout',
        "sort": True,
        "expected": ('bar/test\n'
     'baz/bar/test\n'
     'baz/baz/bar/test\n'
     'baz/foo\n'
     'baz/test\n'
     'foo\n'
     'test\n'),
    },
    {
        "name": 'f45_relative_cwd#2',
        "ops": [
            ('file', '.not-an-ignore', 'foo\n/bar'),
            ('dir', 'bar'),
            ('dir', 'baz/bar'),
            ('dir', 'baz/baz/bar'),
            ('file', 'bar/test', 'test'),
            ('file', 'baz/bar/test', 'test'),
            ('file', 'baz/baz/bar/test', 'test'),
            ('file', 'baz/foo', 'test'),
            ('file', 'baz/test', 'test'),
            ('file', 'foo', 'test'),
            ('file', 'test', 'test'),
        ],
        "args": ['-l', 'test', '--ignore-file', '.not-an-ignore'],
        "check": 'stdout',
        "sort": True,
        "expected": 'baz/bar/test\nbaz/baz/bar/test\nbaz/test\ntest\n',
    },
    {
        "name": 'f45_relative_cwd#3',
        "ops": [
            ('file', '.not-an-ignore', 'foo\n/bar'),
            ('dir', 'bar'),
            ('dir', 'baz/bar'),
            ('dir', 'baz/baz/bar'),
            ('file', 'bar/test', 'test'),
            ('file', 'baz/bar/test', 'test'),
            ('file', 'baz/baz/bar/test', 'test'),
            ('file', 'baz/foo', 'test'),
            ('file', 'baz/test', 'test'),
            ('file', 'foo', 'test'),
            ('file', 'test', 'test'),
        ],
        "args": ['--ignore-file', '../.not-an-ignore', '-l', 'test'],
        "cwd": 'baz',
        "check": 'stdout',
        "sort": True,
        "expected": 'baz/bar/test\ntest\n',
    },
    {
        "name": 'f45_precedence_with_others',
        "ops": [
            ('file', '.not-an-ignore', '*.log'),
            ('file', '.ignore', '!imp.log'),
            ('file', 'imp.log', 'test'),
            ('file', 'wat.log', 'test'),
        ],
        "args": ['--ignore-file', '.not-an-ignore', 'test'],
        "check": 'stdout',
        "expected": 'imp.log:test\n',
    },
    {
        "name": 'f45_precedence_internal',
        "ops": [
            ('file', '.not-an-ignore1', '*.log'),
            ('file', '.not-an-ignore2', '!imp.log'),
            ('file', 'imp.log', 'test'),
            ('file', 'wat.log', 'test'),
        ],
        "args": ['--ignore-file', '.not-an-ignore1', '--ignore-file', '.not-an-ignore2', 'test'],
        "check": 'stdout',
        "expected": 'imp.log:test\n',
    },
    {
        "name": 'f68_no_ignore_vcs',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'foo'),
            ('file', '.ignore', 'bar'),
            ('file', 'foo', 'test'),
            ('file', 'bar', 'test'),
        ],
        "args": ['--no-ignore-vcs', 'test'],
        "check": 'stdout',
        "expected": 'foo:test\n',
    },
    {
        "name": 'f70_smart_case',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-S', 'sherlock'],
        "check": 'stdout',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'f89_files_with_matches',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--null', '--files-with-matches', 'Sherlock'],
        "check": 'stdout',
        "expected": 'sherlock\x00',
    },
    {
        "name": 'f89_files_without_match',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'file.py', 'foo'),
        ],
        "args": ['--null', '--files-without-match', 'Sherlock'],
        "check": 'stdout',
        "expected": 'file.py\x00',
    },
    {
        "name": 'f89_count',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--null', '--count', 'Sherlock'],
        "check": 'stdout',
        "expected": 'sherlock\x002\n',
    },
    {
        "name": 'f89_files',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--null', '--files'],
        "check": 'stdout',
        "expected": 'sherlock\x00',
    },
    {
        "name": 'f89_match',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--null', '-C1', 'Sherlock'],
        "check": 'stdout',
        "expected": ('sherlock\x00For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock\x00Holmeses, success in the province of detective work must always\n'
     'sherlock\x00be, to a very large extent, the result of luck. Sherlock Holmes\n'
     'sherlock\x00can extract a clew from a wisp of straw or a flake of cigar ash;\n'),
    },
    {
        "name": 'f109_max_depth',
        "ops": [
            ('dir', 'one'),
            ('file', 'one/pass', 'far'),
            ('dir', 'one/too'),
            ('file', 'one/too/many', 'far'),
        ],
        "args": ['--maxdepth', '2', 'far'],
        "check": 'stdout',
        "expected": 'one/pass:far\n',
    },
    {
        "name": 'f109_case_sensitive_part1',
        "ops": [
            ('file', 'foo', 'tEsT'),
        ],
        "args": ['--smart-case', '--case-sensitive', 'test'],
        "check": 'err',
    },
    {
        "name": 'f109_case_sensitive_part2',
        "ops": [
            ('file', 'foo', 'tEsT'),
        ],
        "args": ['--ignore-case', '--case-sensitive', 'test'],
        "check": 'err',
    },
    {
        "name": 'f129_matches',
        "ops": [
            ('file', 'foo', 'test\ntest abcdefghijklmnopqrstuvwxyz test'),
        ],
        "args": ['-M26', 'test'],
        "check": 'stdout',
        "expected": 'foo:test\nfoo:[Omitted long matching line]\n',
    },
    {
        "name": 'f129_context',
        "ops": [
            ('file', 'foo', 'test\nabcdefghijklmnopqrstuvwxyz'),
        ],
        "args": ['-M20', '-C1', 'test'],
        "check": 'stdout',
        "expected": 'foo:test\nfoo-[Omitted long context line]\n',
    },
    {
        "name": 'f129_replace',
        "ops": [
            ('file', 'foo', 'test\ntest abcdefghijklmnopqrstuvwxyz test'),
        ],
        "args": ['-M26', '-rfoo', 'test'],
        "check": 'stdout',
        "expected": 'foo:foo\nfoo:[Omitted long line with 2 matches]\n',
    },
    {
        "name": 'f159_max_count',
        "ops": [
            ('file', 'foo', 'test\ntest'),
        ],
        "args": ['-m1', 'test'],
        "check": 'stdout',
        "expected": 'foo:test\n',
    },
    {
        "name": 'f159_max_count_zero',
        "ops": [
            ('file', 'foo', 'test\ntest'),
        ],
        "args": ['-m0', 'test'],
        "check": 'err',
    },
    {
        "name": 'f243_column_line',
        "ops": [
            ('file', 'foo', 'test'),
        ],
        "args": ['--column', 'test'],
        "check": 'stdout',
        "expected": 'foo:1:1:test\n',
    },
    {
        "name": 'f263_sort_files',
        "ops": [
            ('file', 'foo', 'test'),
            ('file', 'abc', 'test'),
            ('file', 'zoo', 'test'),
            ('file', 'bar', 'test'),
        ],
        "args": ['--sort-files', 'test'],
        "check": 'stdout',
        "expected": 'abc:test\nbar:test\nfoo:test\nzoo:test\n',
    },
    {
        "name": 'f263_sort_files_reverse',
        "ops": [
            ('file', 'foo', 'test'),
            ('file', 'abc', 'test'),
            ('file', 'zoo', 'test'),
            ('file', 'bar', 'test'),
        ],
        "args": ['--sortr=path', 'test'],
        "check": 'stdout',
        "expected": 'zoo:test\nfoo:test\nbar:test\nabc:test\n',
    },
    {
        "name": 'f275_pathsep',
        "ops": [
            ('dir', 'foo'),
            ('file', 'foo/bar', 'test'),
        ],
        "args": ['test', '--path-separator', 'Z'],
        "check": 'stdout',
        "expected": 'fooZbar:test\n',
    },
    {
        "name": 'f362_dfa_size_limit',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--dfa-size-limit', '10', 'For\\s', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'),
    },
    {
        "name": 'f362_exceeds_regex_size_limit',
        "ops": [
        ],
        "args": ['--regex-size-limit', '10K', '[0-9]\\w+'],
        "check": 'err',
    },
    {
        "name": 'f362_u64_to_narrow_usize_overflow',
        "ops": [
            ('size', 'foo', 1000000),
        ],
        "args": ['--dfa-size-limit', '34359738368M', '--files'],
        "check": 'err',
    },
    {
        "name": 'f411_single_threaded_search_stats',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-j1', '--stats', 'Sherlock'],
        "check": 'stdout',
    },
    {
        "name": 'f411_parallel_search_stats',
        "ops": [
            ('file', 'sherlock_1', SHERLOCK),
            ('file', 'sherlock_2', SHERLOCK),
        ],
        "args": ['-j2', '--stats', 'Sherlock'],
        "check": 'stdout',
    },
    {
        "name": 'f411_single_threaded_quiet_search_stats',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['--quiet', '-j1', '--stats', 'Sherlock'],
        "check": 'stdout',
    },
    {
        "name": 'f411_parallel_quiet_search_stats',
        "ops": [
            ('file', 'sherlock_1', SHERLOCK),
            ('file', 'sherlock_2', SHERLOCK),
        ],
        "args": ['-j2', '--quiet', '--stats', 'Sherlock'],
        "check": 'stdout',
    },
    {
        "name": 'f416_crlf',
        "ops": [
            ('file', 'sherlock', SHERLOCK_CRLF),
        ],
        "args": ['--crlf', 'Sherlock$', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\r\n'),
    },
    {
        "name": 'f416_crlf_multiline',
        "ops": [
            ('file', 'sherlock', SHERLOCK_CRLF),
        ],
        "args": ['--crlf', '-U', 'Sherlock$', 'sherlock'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\r\n'),
    },
    {
        "name": 'f416_crlf_only_matching',
        "ops": [
            ('file', 'sherlock', SHERLOCK_CRLF),
        ],
        "args": ['--crlf', '-o', 'Sherlock$', 'sherlock'],
        "check": 'stdout',
        "expected": 'Sherlock\r\n',
    },
    {
        "name": 'f419_zero_as_shortcut_for_null',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-0', '--count', 'Sherlock'],
        "check": 'stdout',
        "expected": 'sherlock\x002\n',
    },
    {
        "name": 'f740_passthru#1',
        "ops": [
            ('file', 'file', '\nfoo\nbar\nfoobar\n\nbaz\n'),
            ('file', 'patterns', 'foo\nbar\n'),
        ],
        "args": ['-n', '--passthru', 'foo', 'file'],
        "check": 'stdout',
        "expected": '1-\n2:foo\n3-bar\n4:foobar\n5-\n6-baz\n',
    },
    {
        "name": 'f740_passthru#2',
        "ops": [
            ('file', 'file', '\nfoo\nbar\nfoobar\n\nbaz\n'),
            ('file', 'patterns', 'foo\nbar\n'),
        ],
        "args": ['-n', '--passthru', '-e', 'foo', '-e', 'bar', 'file'],
        "check": 'stdout',
        "expected": '1-\n2:foo\n3:bar\n4:foobar\n5-\n6-baz\n',
    },
    {
        "name": 'f740_passthru#3',
        "ops": [
            ('file', 'file', '\nfoo\nbar\nfoobar\n\nbaz\n'),
            ('file', 'patterns', 'foo\nbar\n'),
        ],
        "args": ['-n', '--passthru', '-f', 'patterns', 'file'],
        "check": 'stdout',
        "expected": '1-\n2:foo\n3:bar\n4:foobar\n5-\n6-baz\n',
    },
    {
        "name": 'f740_passthru#4',
        "ops": [
            ('file', 'file', '\nfoo\nbar\nfoobar\n\nbaz\n'),
            ('file', 'patterns', 'foo\nbar\n'),
        ],
        "args": ['-n', '--passthru', '-c', 'foo', 'file'],
        "check": 'stdout',
        "expected": '2\n',
    },
    {
        "name": 'f740_passthru#5',
        "ops": [
            ('file', 'file', '\nfoo\nbar\nfoobar\n\nbaz\n'),
            ('file', 'patterns', 'foo\nbar\n'),
        ],
        "args": ['-n', '--passthru', '-o', 'foo', 'file'],
        "check": 'stdout',
        "expected": '1-\n2:foo\n3-bar\n4:foo\n5-\n6-baz\n',
    },
    {
        "name": 'f740_passthru#6',
        "ops": [
            ('file', 'file', '\nfoo\nbar\nfoobar\n\nbaz\n'),
            ('file', 'patterns', 'foo\nbar\n'),
        ],
        "args": ['-n', '--passthru', '-r', 'wat', 'foo', 'file'],
        "check": 'stdout',
        "expected": '1-\n2:wat\n3-bar\n4:watbar\n5-\n6-baz\n',
    },
    {
        "name": 'f948_exit_code_match',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['.'],
        "check": 'exit',
    },
    {
        "name": 'f948_exit_code_no_match',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['NADA'],
        "check": 'exit',
        "exit": 1,
    },
    {
        "name": 'f948_exit_code_error',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['*'],
        "check": 'exit',
        "exit": 2,
    },
    {
        "name": 'f917_trim',
        "ops": [
            ('file', 'sherlock', ('zzz\n'
     '    For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '  Holmeses, success in the province of detective work must always\n'
     '\tbe, to a very large extent, the result of luck. Sherlock Holmes\n'
     '     can extract a clew from a wisp of straw or a flake of cigar ash;\n'
     'but Doctor Watson has to have it taken out for him and dusted,\n'
     ' and exhibited clearly, with a label attached.\n')),
        ],
        "args": ['-n', '-B1', '-A2', '--trim', 'Holmeses', 'sherlock'],
        "check": 'stdout',
        "expected": ('2-For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '3:Holmeses, success in the province of detective work must always\n'
     '4-be, to a very large extent, the result of luck. Sherlock Holmes\n'
     '5-can extract a clew from a wisp of straw or a flake of cigar ash;\n'),
    },
    {
        "name": 'f917_trim_match',
        "ops": [
            ('file', 'sherlock', ('zzz\n'
     '    For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '  Holmeses, success in the province of detective work must always\n'
     '\tbe, to a very large extent, the result of luck. Sherlock Holmes\n'
     '     can extract a clew from a wisp of straw or a flake of cigar ash;\n'
     'but Doctor Watson has to have it taken out for him and dusted,\n'
     ' and exhibited clearly, with a label attached.\n')),
        ],
        "args": ['-n', '-B1', '-A2', '--trim', '\\s+Holmeses', 'sherlock'],
        "check": 'stdout',
        "expected": ('2-For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     '3:Holmeses, success in the province of detective work must always\n'
     '4-be, to a very large extent, the result of luck. Sherlock Holmes\n'
     '5-can extract a clew from a wisp of straw or a flake of cigar ash;\n'),
    },
    {
        "name": 'f917_trim_multi_standard',
        "ops": [
            ('file', 'haystack', '     0123456789abcdefghijklmnopqrstuvwxyz'),
        ],
        "args": ['--multiline', '--trim', '-r$0', '--no-filename', 'a\\n?bc'],
        "check": 'stdout',
        "expected": '0123456789abcdefghijklmnopqrstuvwxyz\n',
    },
    {
        "name": 'f917_trim_max_columns_normal',
        "ops": [
            ('file', 'haystack', '     0123456789abcdefghijklmnopqrstuvwxyz'),
        ],
        "args": ['--trim', '--max-columns-preview', '-M8', '--no-filename', 'abc'],
        "check": 'stdout',
        "expected": '01234567 [... omitted end of long line]\n',
    },
    {
        "name": 'f917_trim_max_columns_matches',
        "ops": [
            ('file', 'haystack', '     0123456789abcdefghijklmnopqrstuvwxyz'),
        ],
        "args": ['--trim', '--max-columns-preview', '-M8', '--color=always', '--colors=path:none', '--no-filename', 'abc'],
        "check": 'stdout',
        "expected": '01234567 [... 1 more match]\n',
    },
    {
        "name": 'f917_trim_max_columns_multi_standard',
        "ops": [
            ('file', 'haystack', '     0123456789abcdefghijklmnopqrstuvwxyz'),
        ],
        "args": ['--multiline', '--trim', '--max-columns-preview', '-M8', '--color=always', '--colors=path:none', '--no-filename', 'a\\n?bc'],
        "check": 'stdout',
        "expected": '01234567 [... 1 more match]\n',
    },
    {
        "name": 'f917_trim_max_columns_multi_only_matching',
        "ops": [
            ('file', 'haystack', '     0123456789abcdefghijklmnopqrstuvwxyz'),
        ],
        "args": ['--multiline', '--trim', '--max-columns-preview', '-M8', '--only-matching', '--no-filename', '.*a\\n?bc.*'],
        "check": 'stdout',
        "expected": '01234567 [... 0 more matches]\n',
    },
    {
        "name": 'f917_trim_max_columns_multi_per_match',
        "ops": [
            ('file', 'haystack', '     0123456789abcdefghijklmnopqrstuvwxyz'),
        ],
        "args": ['--multiline', '--trim', '--max-columns-preview', '-M8', '--vimgrep', '--no-filename', '.*a\\n?bc.*'],
        "check": 'stdout',
        "expected": '1:1:01234567 [... 0 more matches]\n',
    },
    {
        "name": 'f993_null_data',
        "ops": [
            ('file', 'test', 'foo\x00bar\x00\x00\x00baz\x00'),
        ],
        "args": ['--null-data', '.+', 'test'],
        "check": 'stdout',
        "expected": 'foo\x00bar\x00baz\x00',
    },
    {
        "name": 'f1078_max_columns_preview1',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-M46', '--max-columns-preview', 'exhibited|dusted|has to have it'],
        "check": 'stdout',
        "expected": ('sherlock:but Doctor Watson has to have it taken out for [... omitted end of long line]\n'
     'sherlock:and exhibited clearly, with a label attached.\n'),
    },
    {
        "name": 'f1078_max_columns_preview2',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-M43', '--max-columns-preview', '-rxxx', 'exhibited|dusted|has to have it'],
        "check": 'stdout',
        "expected": ('sherlock:but Doctor Watson xxx taken out for him and [... 1 more match]\n'
     'sherlock:and xxx clearly, with a label attached.\n'),
    },
    {
        "name": 'f1138_no_ignore_dot#1',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'foo'),
            ('file', '.ignore', 'bar'),
            ('file', '.fzf-ignore', 'quux'),
            ('file', 'foo', ''),
            ('file', 'bar', ''),
            ('file', 'quux', ''),
        ],
        "args": ['--sort', 'path', '--files'],
        "check": 'stdout',
        "expected": 'quux\n',
    },
    {
        "name": 'f1138_no_ignore_dot#2',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'foo'),
            ('file', '.ignore', 'bar'),
            ('file', '.fzf-ignore', 'quux'),
            ('file', 'foo', ''),
            ('file', 'bar', ''),
            ('file', 'quux', ''),
        ],
        "args": ['--sort', 'path', '--files', '--no-ignore-dot'],
        "check": 'stdout',
        "expected": 'bar\nquux\n',
    },
    {
        "name": 'f1138_no_ignore_dot#3',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'foo'),
            ('file', '.ignore', 'bar'),
            ('file', '.fzf-ignore', 'quux'),
            ('file', 'foo', ''),
            ('file', 'bar', ''),
            ('file', 'quux', ''),
        ],
        "args": ['--sort', 'path', '--files', '--no-ignore-dot', '--ignore-file', '.fzf-ignore'],
        "check": 'stdout',
        "expected": 'bar\n',
    },
    {
        "name": 'f1207_auto_encoding',
        "ops": [
            ('file', 'foo', b'\xff\xfe\x00b'),
        ],
        "args": ['-a', '\\x00', 'foo'],
        "check": 'exit',
        "exit": 1,
    },
    {
        "name": 'f1207_ignore_encoding',
        "ops": [
            ('file', 'foo', b'\xff\xfe\x00b'),
        ],
        "args": ['--encoding', 'none', '-a', '\\x00', 'foo'],
        "check": 'stdout',
        "expected": '��\x00b\n',
    },
    {
        "name": 'f1414_no_require_git#1',
        "ops": [
            ('file', '.gitignore', 'foo'),
            ('file', 'foo', ''),
            ('file', 'bar', ''),
        ],
        "args": ['--sort', 'path', '--files'],
        "check": 'stdout',
        "expected": 'bar\nfoo\n',
    },
    {
        "name": 'f1414_no_require_git#2',
        "ops": [
            ('file', '.gitignore', 'foo'),
            ('file', 'foo', ''),
            ('file', 'bar', ''),
        ],
        "args": ['--sort', 'path', '--files', '--sort', 'path', '--files', '--no-require-git'],
        "check": 'stdout',
        "expected": 'bar\n',
    },
    {
        "name": 'f1414_no_require_git#3',
        "ops": [
            ('file', '.gitignore', 'foo'),
            ('file', 'foo', ''),
            ('file', 'bar', ''),
        ],
        "args": ['--sort', 'path', '--files', '--sort', 'path', '--files', '--no-require-git', '--sort', 'path', '--files', '--no-require-git', '--require-git'],
        "check": 'stdout',
        "expected": 'bar\nfoo\n',
    },
    {
        "name": 'f1420_no_ignore_exclude#1',
        "ops": [
            ('dir', '.git/info'),
            ('file', '.git/info/exclude', 'foo'),
            ('file', 'bar', ''),
            ('file', 'foo', ''),
        ],
        "args": ['--sort', 'path', '--files'],
        "check": 'stdout',
        "expected": 'bar\n',
    },
    {
        "name": 'f1420_no_ignore_exclude#2',
        "ops": [
            ('dir', '.git/info'),
            ('file', '.git/info/exclude', 'foo'),
            ('file', 'bar', ''),
            ('file', 'foo', ''),
        ],
        "args": ['--sort', 'path', '--files', '--no-ignore-exclude'],
        "check": 'stdout',
        "expected": 'bar\nfoo\n',
    },
    {
        "name": 'f1466_no_ignore_files#1',
        "ops": [
            ('file', '.myignore', 'bar'),
            ('file', 'bar', ''),
            ('file', 'foo', ''),
        ],
        "args": ['--sort', 'path', '--files'],
        "check": 'stdout',
        "expected": 'bar\nfoo\n',
    },
    {
        "name": 'f1466_no_ignore_files#2',
        "ops": [
            ('file', '.myignore', 'bar'),
            ('file', 'bar', ''),
            ('file', 'foo', ''),
        ],
        "args": ['--sort', 'path', '--files', '--ignore-file', '.myignore'],
        "check": 'stdout',
        "expected": 'foo\n',
    },
    {
        "name": 'f1466_no_ignore_files#3',
        "ops": [
            ('file', '.myignore', 'bar'),
            ('file', 'bar', ''),
            ('file', 'foo', ''),
        ],
        "args": ['--sort', 'path', '--files', '--ignore-file', '.myignore', '--no-ignore-files'],
        "check": 'stdout',
        "expected": 'bar\nfoo\n',
    },
    {
        "name": 'f1466_no_ignore_files#4',
        "ops": [
            ('file', '.myignore', 'bar'),
            ('file', 'bar', ''),
            ('file', 'foo', ''),
        ],
        "args": ['--sort', 'path', '--files', '--ignore-file', '.myignore', '--no-ignore-files', '--ignore-files'],
        "check": 'stdout',
        "expected": 'foo\n',
    },
    {
        "name": 'f1466_no_ignore_files#5',
        "ops": [
            ('file', '.myignore', 'bar'),
            ('file', 'bar', ''),
            ('file', 'foo', ''),
        ],
        "args": ['--sort', 'path', '--files', '--ignore-file', '.myignore'],
        "check": 'stdout',
        "expected": 'foo\n',
    },
    {
        "name": 'f1466_no_ignore_files#6',
        "ops": [
            ('file', '.myignore', 'bar'),
            ('file', 'bar', ''),
            ('file', 'foo', ''),
        ],
        "args": ['--sort', 'path', '--files', '--ignore-file', '.myignore', '-u'],
        "check": 'stdout',
        "expected": 'foo\n',
    },
    {
        "name": 'f2361_sort_nested_files#1',
        "ops": [
            ('file', 'foo', '1'),
            ('dir', 'dir'),
            ('file', 'dir/bar', '1'),
        ],
        "args": ['--sort', 'accessed', '--files'],
        "check": 'stdout',
        "expected": 'foo\ndir/bar\n',
    },
    {
        "name": 'f2361_sort_nested_files#2',
        "ops": [
            ('file', 'foo', '1'),
            ('dir', 'dir'),
            ('file', 'dir/bar', '1'),
            ('file', 'foo', '2'),
            ('file', 'dir/bar', '2'),
        ],
        "args": ['--sort', 'accessed', '--files', '--sort', 'accessed', '--files'],
        "check": 'stdout',
        "expected": 'foo\ndir/bar\n',
    },
    {
        "name": 'f1404_nothing_searched_warning#1',
        "ops": [
            ('file', '.ignore', 'ignored-dir/**'),
            ('dir', 'ignored-dir'),
            ('file', 'ignored-dir/foo', 'needle'),
        ],
        "args": ['needle'],
        "check": 'err',
    },
    {
        "name": 'f1404_nothing_searched_warning#2',
        "ops": [
            ('file', '.ignore', 'ignored-dir/**'),
            ('dir', 'ignored-dir'),
            ('file', 'ignored-dir/foo', 'needle'),
        ],
        "args": ['needle'],
        "check": 'any',
        "expected": ("rg: No files were searched, which means ripgrep probably applied a filter you didn't expect.\n"
     'Running with --debug will show why files are being skipped.\n'),
    },
    {
        "name": 'f1404_nothing_searched_ignored#1',
        "ops": [
            ('file', '.ignore', 'ignored-dir/**'),
            ('dir', 'ignored-dir'),
            ('file', 'ignored-dir/foo', 'needle'),
        ],
        "args": ['--no-messages', 'needle'],
        "check": 'err',
    },
    {
        "name": 'f1404_nothing_searched_ignored#2',
        "ops": [
            ('file', '.ignore', 'ignored-dir/**'),
            ('dir', 'ignored-dir'),
            ('file', 'ignored-dir/foo', 'needle'),
        ],
        "args": ['--no-messages', 'needle'],
        "check": 'any',
    },
    {
        "name": 'f2288_context_partial_override',
        "ops": [
            ('file', 'test', '1\n2\n3\n4\n5\n6\n7\n8\n9\n'),
        ],
        "args": ['-C1', '-A2', '5', 'test'],
        "check": 'stdout',
        "expected": '4\n5\n6\n7\n',
    },
    {
        "name": 'f2288_context_partial_override_rev',
        "ops": [
            ('file', 'test', '1\n2\n3\n4\n5\n6\n7\n8\n9\n'),
        ],
        "args": ['-A2', '-C1', '5', 'test'],
        "check": 'stdout',
        "expected": '4\n5\n6\n7\n',
    },
    {
        "name": 'no_context_sep',
        "ops": [
            ('file', 'test', 'foo\nctx\nbar\nctx\nfoo\nctx'),
        ],
        "args": ['-A1', '--no-context-separator', 'foo', 'test'],
        "check": 'stdout',
        "expected": 'foo\nctx\nfoo\nctx\n',
    },
    {
        "name": 'no_context_sep_overrides',
        "ops": [
            ('file', 'test', 'foo\nctx\nbar\nctx\nfoo\nctx'),
        ],
        "args": ['-A1', '--context-separator', 'AAA', '--no-context-separator', 'foo', 'test'],
        "check": 'stdout',
        "expected": 'foo\nctx\nfoo\nctx\n',
    },
    {
        "name": 'no_context_sep_overridden',
        "ops": [
            ('file', 'test', 'foo\nctx\nbar\nctx\nfoo\nctx'),
        ],
        "args": ['-A1', '--no-context-separator', '--context-separator', 'AAA', 'foo', 'test'],
        "check": 'stdout',
        "expected": 'foo\nctx\nAAA\nfoo\nctx\n',
    },
    {
        "name": 'context_sep',
        "ops": [
            ('file', 'test', 'foo\nctx\nbar\nctx\nfoo\nctx'),
        ],
        "args": ['-A1', '--context-separator', 'AAA', 'foo', 'test'],
        "check": 'stdout',
        "expected": 'foo\nctx\nAAA\nfoo\nctx\n',
    },
    {
        "name": 'context_sep_default',
        "ops": [
            ('file', 'test', 'foo\nctx\nbar\nctx\nfoo\nctx'),
        ],
        "args": ['-A1', 'foo', 'test'],
        "check": 'stdout',
        "expected": 'foo\nctx\n--\nfoo\nctx\n',
    },
    {
        "name": 'context_sep_empty',
        "ops": [
            ('file', 'test', 'foo\nctx\nbar\nctx\nfoo\nctx'),
        ],
        "args": ['-A1', '--context-separator', '', 'foo', 'test'],
        "check": 'stdout',
        "expected": 'foo\nctx\n\nfoo\nctx\n',
    },
    {
        "name": 'no_unicode',
        "ops": [
            ('file', 'test', 'δ'),
        ],
        "args": ['-i', '--no-unicode', 'Δ'],
        "check": 'err',
    },
    {
        "name": 'stop_on_nonmatch',
        "ops": [
            ('file', 'test', 'line1\nline2\nline3\nline4\nline5'),
        ],
        "args": ['--stop-on-nonmatch', '[235]'],
        "check": 'stdout',
        "expected": 'test:line2\ntest:line3\n',
    },
]
