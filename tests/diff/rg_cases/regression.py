"""ripgrep 15.2's tests/regression.rs as data: each case is a tree, a command line and a cwd; rg is the oracle."""

from tests.diff.rg_cases.hay import SHERLOCK, SHERLOCK_CRLF, data  # noqa: F401

CASES = [
    {
        "name": 'r16',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'ghi/'),
            ('dir', 'ghi'),
            ('dir', 'def/ghi'),
            ('file', 'ghi/toplevel.txt', 'xyz'),
            ('file', 'def/ghi/subdir.txt', 'xyz'),
        ],
        "args": ['xyz'],
        "check": 'err',
    },
    {
        "name": 'r25#1',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', '/llvm/'),
            ('dir', 'src/llvm'),
            ('file', 'src/llvm/foo', 'test'),
        ],
        "args": ['test'],
        "check": 'stdout',
        "expected": 'src/llvm/foo:test\n',
    },
    {
        "name": 'r25#2',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', '/llvm/'),
            ('dir', 'src/llvm'),
            ('file', 'src/llvm/foo', 'test'),
        ],
        "args": ['test'],
        "cwd": 'src',
        "check": 'stdout',
        "expected": 'llvm/foo:test\n',
    },
    {
        "name": 'r30',
        "ops": [
            ('file', '.gitignore', 'vendor/**\n!vendor/manifest'),
            ('dir', 'vendor'),
            ('file', 'vendor/manifest', 'test'),
        ],
        "args": ['test'],
        "check": 'stdout',
        "expected": 'vendor/manifest:test\n',
    },
    {
        "name": 'r49',
        "ops": [
            ('file', '.gitignore', 'foo/bar'),
            ('dir', 'test/foo/bar'),
            ('file', 'test/foo/bar/baz', 'test'),
        ],
        "args": ['xyz'],
        "check": 'err',
    },
    {
        "name": 'r50',
        "ops": [
            ('file', '.gitignore', 'XXX/YYY/'),
            ('dir', 'abc/def/XXX/YYY'),
            ('dir', 'ghi/XXX/YYY'),
            ('file', 'abc/def/XXX/YYY/bar', 'test'),
            ('file', 'ghi/XXX/YYY/bar', 'test'),
        ],
        "args": ['xyz'],
        "check": 'err',
    },
    {
        "name": 'r64',
        "ops": [
            ('dir', 'dir'),
            ('dir', 'foo'),
            ('file', 'dir/abc', ''),
            ('file', 'foo/abc', ''),
        ],
        "args": ['--files', 'foo'],
        "check": 'stdout',
        "expected": 'foo/abc\n',
    },
    {
        "name": 'r65',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'a/'),
            ('dir', 'a'),
            ('file', 'a/foo', 'xyz'),
            ('file', 'a/bar', 'xyz'),
        ],
        "args": ['xyz'],
        "check": 'err',
    },
    {
        "name": 'r67',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', '/*\n!/dir'),
            ('dir', 'dir'),
            ('dir', 'foo'),
            ('file', 'foo/bar', 'test'),
            ('file', 'dir/bar', 'test'),
        ],
        "args": ['test'],
        "check": 'stdout',
        "expected": 'dir/bar:test\n',
    },
    {
        "name": 'r87',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'foo\n**no-vcs**'),
            ('file', 'foo', 'test'),
        ],
        "args": ['test'],
        "check": 'err',
    },
    {
        "name": 'r90',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', '!.foo'),
            ('file', '.foo', 'test'),
        ],
        "args": ['test'],
        "check": 'stdout',
        "expected": '.foo:test\n',
    },
    {
        "name": 'r93',
        "ops": [
            ('file', 'foo', '192.168.1.1'),
        ],
        "args": ['(\\d{1,3}\\.){3}\\d{1,3}'],
        "check": 'stdout',
        "expected": 'foo:192.168.1.1\n',
    },
    {
        "name": 'r99',
        "ops": [
            ('file', 'foo1', 'test'),
            ('file', 'foo2', 'zzz'),
            ('file', 'bar', 'test'),
        ],
        "args": ['-j1', '--heading', 'test'],
        "check": 'stdout',
        "sort": True,
        "expected": '\nbar\nfoo1\ntest\ntest\n',
    },
    {
        "name": 'r105_part1',
        "ops": [
            ('file', 'foo', 'zztest'),
        ],
        "args": ['--vimgrep', 'test'],
        "check": 'stdout',
        "expected": 'foo:1:3:zztest\n',
    },
    {
        "name": 'r105_part2',
        "ops": [
            ('file', 'foo', 'zztest'),
        ],
        "args": ['--column', 'test'],
        "check": 'stdout',
        "expected": 'foo:1:3:zztest\n',
    },
    {
        "name": 'r127',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'foo/sherlock\n'),
            ('dir', 'foo'),
            ('file', 'foo/sherlock', SHERLOCK),
            ('file', 'foo/watson', SHERLOCK),
        ],
        "args": ['Sherlock'],
        "check": 'stdout',
        "expected": ('foo/watson:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'foo/watson:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'r128',
        "ops": [
            ('file', 'foo', b'01234567\x0b\n\x0b\n\x0b\n\x0b\nx'),
        ],
        "args": ['-n', 'x'],
        "check": 'stdout',
        "expected": 'foo:5:x\n',
    },
    {
        "name": 'r131',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'TopÑapa'),
            ('file', 'TopÑapa', 'test'),
        ],
        "args": ['test'],
        "check": 'err',
    },
    {
        "name": 'r137',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('link', 'sherlock', 'sym1'),
            ('link', 'sherlock', 'sym2'),
        ],
        "args": ['-j1', 'Sherlock', './', 'sym1', 'sym2'],
        "check": 'stdout',
        "expected": ('./sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     './sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'
     'sym1:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sym1:be, to a very large extent, the result of luck. Sherlock Holmes\n'
     'sym2:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sym2:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'r156',
        "ops": [
            ('file', 'testcase.txt', ("#parse('widgets/foo_bar_macros.vm')\n"
     "#parse ( 'widgets/mobile/foo_bar_macros.vm' )\n"
     '#parse ("widgets/foobarhiddenformfields.vm")\n'
     '#parse ( "widgets/foo_bar_legal.vm" )\n'
     "#include( 'widgets/foo_bar_tips.vm' )\n"
     "#include('widgets/mobile/foo_bar_macros.vm')\n"
     '#include ("widgets/mobile/foo_bar_resetpw.vm")\n'
     "#parse('widgets/foo-bar-macros.vm')\n"
     "#parse ( 'widgets/mobile/foo-bar-macros.vm' )\n"
     '#parse ("widgets/foo-bar-hiddenformfields.vm")\n'
     '#parse ( "widgets/foo-bar-legal.vm" )\n'
     "#include( 'widgets/foo-bar-tips.vm' )\n"
     "#include('widgets/mobile/foo-bar-macros.vm')\n"
     '#include ("widgets/mobile/foo-bar-resetpw.vm")\n')),
        ],
        "args": ['-N', '#(?:parse|include)\\s*\\(\\s*(?:"|\')[./A-Za-z_-]+(?:"|\')', 'testcase.txt'],
        "check": 'stdout',
        "expected": ("#parse('widgets/foo_bar_macros.vm')\n"
     "#parse ( 'widgets/mobile/foo_bar_macros.vm' )\n"
     '#parse ("widgets/foobarhiddenformfields.vm")\n'
     '#parse ( "widgets/foo_bar_legal.vm" )\n'
     "#include( 'widgets/foo_bar_tips.vm' )\n"
     "#include('widgets/mobile/foo_bar_macros.vm')\n"
     '#include ("widgets/mobile/foo_bar_resetpw.vm")\n'
     "#parse('widgets/foo-bar-macros.vm')\n"
     "#parse ( 'widgets/mobile/foo-bar-macros.vm' )\n"
     '#parse ("widgets/foo-bar-hiddenformfields.vm")\n'
     '#parse ( "widgets/foo-bar-legal.vm" )\n'
     "#include( 'widgets/foo-bar-tips.vm' )\n"
     "#include('widgets/mobile/foo-bar-macros.vm')\n"
     '#include ("widgets/mobile/foo-bar-resetpw.vm")\n'),
    },
    {
        "name": 'r184#1',
        "ops": [
            ('file', '.gitignore', '.*'),
            ('dir', 'foo/bar'),
            ('file', 'foo/bar/baz', 'test'),
        ],
        "args": ['test'],
        "check": 'stdout',
        "expected": 'foo/bar/baz:test\n',
    },
    {
        "name": 'r184#2',
        "ops": [
            ('file', '.gitignore', '.*'),
            ('dir', 'foo/bar'),
            ('file', 'foo/bar/baz', 'test'),
        ],
        "args": ['test'],
        "cwd": './foo/bar',
        "check": 'stdout',
        "expected": 'baz:test\n',
    },
    {
        "name": 'r199',
        "ops": [
            ('file', 'foo', 'tEsT'),
        ],
        "args": ['--smart-case', '\\btest\\b'],
        "check": 'stdout',
        "expected": 'foo:tEsT\n',
    },
    {
        "name": 'r206',
        "ops": [
            ('dir', 'foo'),
            ('file', 'foo/bar.txt', 'test'),
        ],
        "args": ['test', '-g', '*.txt'],
        "check": 'stdout',
        "expected": 'foo/bar.txt:test\n',
    },
    {
        "name": 'r228',
        "ops": [
            ('dir', 'foo'),
        ],
        "args": ['--ignore-file', 'foo', 'test'],
        "check": 'err',
    },
    {
        "name": 'r229',
        "ops": [
            ('file', 'foo', 'economie'),
        ],
        "args": ['-S', '[E]conomie'],
        "check": 'err',
    },
    {
        "name": 'r251',
        "ops": [
            ('file', 'foo', 'привет\nПривет\nПрИвЕт'),
        ],
        "args": ['-i', 'привет'],
        "check": 'stdout',
        "expected": 'foo:привет\nfoo:Привет\nfoo:ПрИвЕт\n',
    },
    {
        "name": 'r256',
        "ops": [
            ('dir', 'bar'),
            ('file', 'bar/baz', 'test'),
            ('link', 'bar', 'foo'),
        ],
        "args": ['test', 'foo'],
        "check": 'stdout',
        "expected": 'foo/baz:test\n',
    },
    {
        "name": 'r256_j1',
        "ops": [
            ('dir', 'bar'),
            ('file', 'bar/baz', 'test'),
            ('link', 'bar', 'foo'),
        ],
        "args": ['-j1', 'test', 'foo'],
        "check": 'stdout',
        "expected": 'foo/baz:test\n',
    },
    {
        "name": 'r270',
        "ops": [
            ('file', 'foo', '-test'),
        ],
        "args": ['-e', '-test'],
        "check": 'stdout',
        "expected": 'foo:-test\n',
    },
    {
        "name": 'r279',
        "ops": [
            ('file', 'foo', 'test'),
        ],
        "args": ['-q', 'test'],
        "check": 'stdout',
    },
    {
        "name": 'r391',
        "ops": [
            ('dir', '.git'),
            ('file', 'lock', ''),
            ('file', 'bar.py', ''),
            ('file', '.git/packed-refs', ''),
            ('file', '.git/description', ''),
        ],
        "args": ['--no-ignore', '--hidden', '--follow', '--files', '--glob', '!{.git,node_modules,plugged}/**', '--glob', '*.{js,json,php,md,styl,scss,sass,pug,html,config,py,cpp,c,go,hs}'],
        "check": 'stdout',
        "expected": 'bar.py\n',
    },
    {
        "name": 'r405',
        "ops": [
            ('dir', 'foo/bar'),
            ('dir', 'bar/foo'),
            ('file', 'foo/bar/file1.txt', 'test'),
            ('file', 'bar/foo/file2.txt', 'test'),
        ],
        "args": ['-g', '!/foo/**', 'test'],
        "check": 'stdout',
        "expected": 'bar/foo/file2.txt:test\n',
    },
    {
        "name": 'r428_color_context_path',
        "ops": [
            ('file', 'sherlock', 'foo\nbar'),
        ],
        "args": ['-A1', '-H', '--no-heading', '-N', '--colors=match:none', '--color=always', '--hyperlink-format=', 'foo'],
        "check": 'stdout',
        "expected": '\x1b[0m\x1b[35msherlock\x1b[0m:foo\n\x1b[0m\x1b[35msherlock\x1b[0m-bar\n',
    },
    {
        "name": 'r428_unrecognized_style#1',
        "ops": [
            ('file', 'file.txt', 'Sherlock'),
        ],
        "args": ['--colors=match:style:', 'Sherlock'],
        "check": 'err',
    },
    {
        "name": 'r428_unrecognized_style#2',
        "ops": [
            ('file', 'file.txt', 'Sherlock'),
        ],
        "args": ['--colors=match:style:', 'Sherlock'],
        "check": 'any',
        "expected": ("rg: error parsing flag --colors: unrecognized style attribute ''. Choose from: nobold, bold, nointense, intense, nounderline, underline, noitalic, italic.\n"),
    },
    {
        "name": 'r451_only_matching_as_in_issue',
        "ops": [
            ('file', 'digits.txt', '1 2 3\n'),
        ],
        "args": ['--only-matching', '[0-9]+', 'digits.txt'],
        "check": 'stdout',
        "expected": '1\n2\n3\n',
    },
    {
        "name": 'r451_only_matching',
        "ops": [
            ('file', 'digits.txt', '1 2 3\n123\n'),
        ],
        "args": ['--only-matching', '--column', '[0-9]', 'digits.txt'],
        "check": 'stdout',
        "expected": '1:1:1\n1:3:2\n1:5:3\n2:1:1\n2:2:2\n2:3:3\n',
    },
    {
        "name": 'r483_matching_no_stdout',
        "ops": [
            ('file', 'file.py', ''),
        ],
        "args": ['--quiet', '--files', '--glob', '*.py'],
        "check": 'stdout',
    },
    {
        "name": 'r483_non_matching_exit_code',
        "ops": [
            ('file', 'file.rs', ''),
        ],
        "args": ['--quiet', '--files', '--glob', '*.py'],
        "check": 'err',
    },
    {
        "name": 'r493',
        "ops": [
            ('file', 'input.txt', "peshwaship 're seminomata"),
        ],
        "args": ['-o', "\\b 're \\b", 'input.txt'],
        "check": 'stdout',
        "expected": " 're \n",
    },
    {
        "name": 'r506_word_not_parenthesized',
        "ops": [
            ('file', 'wb.txt', 'min minimum amin\nmax maximum amax'),
        ],
        "args": ['-w', '-o', 'min|max', 'wb.txt'],
        "check": 'stdout',
        "expected": 'min\nmax\n',
    },
    {
        "name": 'r553_switch#1',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-i', 'sherlock'],
        "check": 'stdout',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'r553_switch#2',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-i', 'sherlock', '-i'],
        "check": 'stdout',
        "expected": ('sherlock:For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'sherlock:be, to a very large extent, the result of luck. Sherlock Holmes\n'),
    },
    {
        "name": 'r553_flag#1',
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
        "name": 'r553_flag#2',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
        ],
        "args": ['-C', '1', 'world|attached', 'sherlock', '-C', '0'],
        "check": 'stdout',
        "expected": ('For the Doctor Watsons of this world, as opposed to the Sherlock\n'
     'and exhibited clearly, with a label attached.\n'),
    },
    {
        "name": 'r568_leading_hyphen_option_args#1',
        "ops": [
            ('file', 'file', 'foo bar -baz\n'),
        ],
        "args": ['-e-baz', '-e', '-baz', 'file'],
        "check": 'stdout',
        "expected": 'foo bar -baz\n',
    },
    {
        "name": 'r568_leading_hyphen_option_args#2',
        "ops": [
            ('file', 'file', 'foo bar -baz\n'),
        ],
        "args": ['-rni', 'bar', 'file'],
        "check": 'stdout',
        "expected": 'foo ni -baz\n',
    },
    {
        "name": 'r568_leading_hyphen_option_args#3',
        "ops": [
            ('file', 'file', 'foo bar -baz\n'),
        ],
        "args": ['-r', '-n', '-i', 'bar', 'file'],
        "check": 'stdout',
        "expected": 'foo -n -baz\n',
    },
    {
        "name": 'r599',
        "ops": [
            ('file', 'input.txt', '\n\ntest\n'),
        ],
        "args": ['--color', 'ansi', '--colors', 'path:none', '--colors', 'line:none', '--colors', 'match:fg:red', '--colors', 'match:style:nobold', '--line-number', '^$', 'input.txt'],
        "check": 'stdout',
        "expected": '\x1b[0m1\x1b[0m:\n\x1b[0m2\x1b[0m:\n',
    },
    {
        "name": 'r693_context_in_contextless_mode',
        "ops": [
            ('file', 'foo', 'xyz\n'),
            ('file', 'bar', 'xyz\n'),
        ],
        "args": ['-C1', '-c', '--sort-files', 'xyz'],
        "check": 'stdout',
        "expected": 'bar:1\nfoo:1\n',
    },
    {
        "name": 'r807',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', '.a/b'),
            ('dir', '.a/b'),
            ('dir', '.a/c'),
            ('file', '.a/b/file', 'test'),
            ('file', '.a/c/file', 'test'),
        ],
        "args": ['--hidden', 'test'],
        "check": 'stdout',
        "expected": '.a/c/file:test\n',
    },
    {
        "name": 'r900',
        "ops": [
            ('file', 'sherlock', SHERLOCK),
            ('file', 'pat', ''),
        ],
        "args": ['-fpat', 'sherlock'],
        "check": 'err',
    },
    {
        "name": 'r1064',
        "ops": [
            ('file', 'input', 'abc'),
        ],
        "args": ['a(.*c)'],
        "check": 'stdout',
        "expected": 'input:abc\n',
    },
    {
        "name": 'r1098',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'a**b'),
            ('file', 'afoob', 'test'),
        ],
        "args": ['test'],
        "check": 'err',
    },
    {
        "name": 'r1130#1',
        "ops": [
            ('file', 'foo', 'test'),
        ],
        "args": ['--files-with-matches', 'test', 'foo'],
        "check": 'stdout',
        "expected": 'foo\n',
    },
    {
        "name": 'r1130#2',
        "ops": [
            ('file', 'foo', 'test'),
        ],
        "args": ['--files-without-match', 'nada', 'foo'],
        "check": 'stdout',
        "expected": 'foo\n',
    },
    {
        "name": 'r1163',
        "ops": [
            ('file', 'bom.txt', '\ufefftest123\ntest123'),
        ],
        "args": ['^test123'],
        "check": 'stdout',
        "expected": 'bom.txt:test123\nbom.txt:test123\n',
    },
    {
        "name": 'r1164#1',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'myfile'),
            ('file', 'MYFILE', 'test'),
        ],
        "args": ['--ignore-file-case-insensitive', 'test'],
        "check": 'err',
    },
    {
        "name": 'r1164#2',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', 'myfile'),
            ('file', 'MYFILE', 'test'),
        ],
        "args": ['--ignore-file-case-insensitive', 'test', '--no-ignore-file-case-insensitive'],
        "check": 'stdout',
        "expected": 'MYFILE:test\n',
    },
    {
        "name": 'r1173',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', '**'),
            ('file', 'foo', 'test'),
        ],
        "args": ['test'],
        "check": 'err',
    },
    {
        "name": 'r1174',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', '**/**/*'),
            ('dir', 'a'),
            ('file', 'a/foo', 'test'),
        ],
        "args": ['test'],
        "check": 'err',
    },
    {
        "name": 'r1176_literal_file',
        "ops": [
            ('file', 'patterns', 'foo(bar\n'),
            ('file', 'test', 'foo(bar'),
        ],
        "args": ['-F', '-f', 'patterns', 'test'],
        "check": 'stdout',
        "expected": 'foo(bar\n',
    },
    {
        "name": 'r1176_line_regex',
        "ops": [
            ('file', 'patterns', 'foo\n'),
            ('file', 'test', 'foobar\nfoo\nbarfoo\n'),
        ],
        "args": ['-x', '-f', 'patterns', 'test'],
        "check": 'stdout',
        "expected": 'foo\n',
    },
    {
        "name": 'r1223_no_dir_check_for_default_path',
        "ops": [
            ('dir', '-'),
            ('file', 'a.json', '{}'),
            ('file', 'a.txt', 'some text'),
        ],
        "args": ['a'],
        "check": 'stdout',
        "sort": True,
        "stdin": b'a.json\na.txt',
        "expected": 'a.json\na.txt\n',
    },
    {
        "name": 'r1259_drop_last_byte_nonl#1',
        "ops": [
            ('file', 'patterns-nonl', '[foo]'),
            ('file', 'patterns-nl', '[foo]\n'),
            ('file', 'test', 'fz'),
        ],
        "args": ['-f', 'patterns-nonl', 'test'],
        "check": 'stdout',
        "expected": 'fz\n',
    },
    {
        "name": 'r1259_drop_last_byte_nonl#2',
        "ops": [
            ('file', 'patterns-nonl', '[foo]'),
            ('file', 'patterns-nl', '[foo]\n'),
            ('file', 'test', 'fz'),
        ],
        "args": ['-f', 'patterns-nl', 'test'],
        "check": 'stdout',
        "expected": 'fz\n',
    },
    {
        "name": 'r1311_multi_line_term_replace',
        "ops": [
            ('file', 'input', 'hello\nworld\n'),
        ],
        "args": ['-U', '-r?', '-n', '\n', 'input'],
        "check": 'stdout',
        "expected": '1:hello?world?\n',
    },
    {
        "name": 'r1319',
        "ops": [
            ('file', 'input', 'CCAGCTACTCGGGAGGCTGAGGCTGGAGGATCGCTTGAGTCCAGGAGTTC'),
        ],
        "args": ['TTGAGTCCAGGAG[ATCG]{2}C'],
        "check": 'stdout',
        "expected": 'input:CCAGCTACTCGGGAGGCTGAGGCTGGAGGATCGCTTGAGTCCAGGAGTTC\n',
    },
    {
        "name": 'r1334_crazy_literals',
        "ops": [
            ('file', 'patterns', ('1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n'
     '1.208.0.0/12\n')),
            ('file', 'corpus', '1.208.0.0/12\n'),
        ],
        "args": ['-Ff', 'patterns', 'corpus'],
        "check": 'stdout',
        "expected": '1.208.0.0/12\n',
    },
    {
        "name": 'r1380',
        "ops": [
            ('file', 'foo', 'a\nb\nc\nd\ne\nd\ne\nd\ne\nd\ne\n'),
        ],
        "args": ['-A2', '-m1', 'd', 'foo'],
        "check": 'stdout',
        "expected": 'd\ne\nd\n',
    },
    {
        "name": 'r1389_bad_symlinks_no_biscuit',
        "ops": [
            ('dir', 'mydir'),
            ('file', 'mydir/file.txt', 'test'),
            ('link', 'mydir', 'mylink'),
        ],
        "args": ['test', '--no-ignore', '--sort', 'path', 'mylink'],
        "check": 'stdout',
        "expected": 'mylink/file.txt:test\n',
    },
    {
        "name": 'r1446_respect_excludes_in_worktree',
        "ops": [
            ('dir', 'repo/.git/info'),
            ('file', 'repo/.git/info/exclude', 'ignored'),
            ('dir', 'repo/.git/worktrees/repotree'),
            ('file', 'repo/.git/worktrees/repotree/commondir', '../..'),
            ('dir', 'repotree'),
            ('file', 'repotree/.git', 'gitdir: repo/.git/worktrees/repotree'),
            ('file', 'repotree/ignored', ''),
            ('file', 'repotree/not-ignored', ''),
        ],
        "args": ['--sort', 'path', '--files', 'repotree'],
        "check": 'stdout',
        "expected": 'repotree/not-ignored\n',
    },
    {
        "name": 'r1537',
        "ops": [
            ('file', 'foo', 'abc;de,fg'),
        ],
        "args": [';(.*,){1}'],
        "check": 'stdout',
        "expected": 'foo:abc;de,fg\n',
    },
    {
        "name": 'r1559',
        "ops": [
            ('file', 'foo', ('type A struct {\n'
     '\tTaskID int `json:"taskID"`\n'
     '}\n'
     '\n'
     'type B struct {\n'
     '\tObjectID string `json:"objectID"`\n'
     '\tTaskID   int    `json:"taskID"`\n'
     '}\n')),
        ],
        "args": ['TaskID +int'],
        "check": 'stdout',
        "expected": ('foo:\tTaskID int `json:"taskID"`\n'
     'foo:\tTaskID   int    `json:"taskID"`\n'),
    },
    {
        "name": 'r1638',
        "ops": [
            ('file', 'foo', b'\xef\xbb\xbfx'),
        ],
        "args": ['--column', 'x'],
        "check": 'stdout',
        "expected": 'foo:1:1:x\n',
    },
    {
        "name": 'r1739_replacement_lineterm_match',
        "ops": [
            ('file', 'test', 'a\n'),
        ],
        "args": ['-r${0}f', '.*', 'test'],
        "check": 'stdout',
        "expected": 'af\n',
    },
    {
        "name": 'r1765',
        "ops": [
            ('file', 'test', '\n'),
        ],
        "args": ['x?', '--crlf', '--color', 'always'],
        "check": 'stdout',
    },
    {
        "name": 'r1866',
        "ops": [
            ('file', 'test', 'foobar\nfoobar\nfoo quux'),
        ],
        "args": ['--multiline', '--vimgrep', 'foobar\\nfoobar\\nfoo|quux', 'test'],
        "check": 'stdout',
        "expected": 'test:1:1:foobar\ntest:3:5:foo quux\n',
    },
    {
        "name": 'r1891',
        "ops": [
            ('file', 'test', '\n##\n'),
        ],
        "args": ['-won', '', 'test'],
        "check": 'stdout',
        "expected": '1:\n2:\n2:\n2:\n',
    },
    {
        "name": 'r2095',
        "ops": [
            ('file', 'test', ('#!/usr/bin/env bash\n'
     '\n'
     'zero=one\n'
     '\n'
     'a=one\n'
     '\n'
     'if true; then\n'
     '\ta=(\n'
     '\t\ta\n'
     '\t\tb\n'
     '\t\tc\n'
     '\t)\n'
     '\ttrue\n'
     'fi\n'
     '\n'
     'a=two\n'
     '\n'
     'b=one\n'
     '});\n')),
        ],
        "args": ['--line-number', '--multiline', '--only-matching', '--replace', '${value}', '^(?P<indent>\\s*)a=(?P<value>(?ms:[(].*?[)])|.*?)$', 'test'],
        "check": 'stdout',
        "expected": '4:one\n8:(\n9:\t\ta\n10:\t\tb\n11:\t\tc\n12:\t)\n15:two\n',
    },
    {
        "name": 'r2198#1',
        "ops": [
            ('file', '.ignore', 'a'),
            ('file', '.rgignore', 'b'),
            ('file', 'a', ''),
            ('file', 'b', ''),
            ('file', 'c', ''),
        ],
        "args": ['--files', '--sort', 'path'],
        "check": 'stdout',
        "expected": 'c\n',
    },
    {
        "name": 'r2198#2',
        "ops": [
            ('file', '.ignore', 'a'),
            ('file', '.rgignore', 'b'),
            ('file', 'a', ''),
            ('file', 'b', ''),
            ('file', 'c', ''),
        ],
        "args": ['--files', '--sort', 'path', '--no-ignore-dot'],
        "check": 'stdout',
        "expected": 'a\nb\nc\n',
    },
    {
        "name": 'r2208',
        "ops": [
            ('file', 'test', ('# Compile requirements.txt files from all found or specified requirements.in files (compile).\n'
     '# Use -h to include hashes, -u dep1,dep2... to upgrade specific dependencies, and -U to upgrade all.\n'
     'pipc () {  # [-h] [-U|-u <pkgspec>[,<pkgspec>...]] [<reqs-in>...] [-- <pip-compile-arg>...]\n'
     '    emulate -L zsh\n'
     '    unset REPLY\n'
     '    if [[ $1 == --help ]] { zpy $0; return }\n'
     '    [[ $ZPY_PROCS ]] || return\n'
     '\n'
     '    local gen_hashes upgrade upgrade_csv\n'
     '    while [[ $1 == -[hUu] ]] {\n'
     '        if [[ $1 == -h ]] { gen_hashes=--generate-hashes; shift   }\n'
     '        if [[ $1 == -U ]] { upgrade=1;                    shift   }\n'
     '        if [[ $1 == -u ]] { upgrade=1; upgrade_csv=$2;    shift 2 }\n'
     '    }\n'
     '}\n')),
        ],
        "args": ['-N', '-U', '-r', '$usage', '^(?P<predoc>\\n?(# .*\\n)*)(alias (?P<aname>pipc)="[^"]+"|(?P<fname>pipc) \\(\\) \\{)(  #(?P<usage> .+))?', 'test'],
        "check": 'stdout',
        "expected": (' [-h] [-U|-u <pkgspec>[,<pkgspec>...]] [<reqs-in>...] [-- <pip-compile-arg>...]\n'),
    },
    {
        "name": 'r2236',
        "ops": [
            ('file', '.ignore', 'foo\\/'),
            ('dir', 'foo'),
            ('file', 'foo/bar', 'test\n'),
        ],
        "args": ['test'],
        "check": 'err',
    },
    {
        "name": 'r2480#1',
        "ops": [
            ('file', 'file', 'FooBar\n'),
        ],
        "args": ['-e', '', 'file'],
        "check": 'stdout',
        "expected": 'FooBar\n',
    },
    {
        "name": 'r2480#2',
        "ops": [
            ('file', 'file', 'FooBar\n'),
        ],
        "args": ['-e', ')(', 'file'],
        "check": 'stdout',
        "expected": 'FooBar\n',
    },
    {
        "name": 'r2480#3',
        "ops": [
            ('file', 'file', 'FooBar\n'),
        ],
        "args": ['--only-matching', '-e', 'Foo', '-e', 'Bar', 'file'],
        "check": 'stdout',
        "expected": 'Foo\nBar\n',
    },
    {
        "name": 'r2480#4',
        "ops": [
            ('file', 'file', 'FooBar\n'),
        ],
        "args": ['-e', 'Fo(oB)a(r)', '--replace', '${0}_${1}_${2}${3}', 'file'],
        "check": 'stdout',
        "expected": 'FooBar_oB_r\n',
    },
    {
        "name": 'r2480#5',
        "ops": [
            ('file', 'file', 'FooBar\n'),
        ],
        "args": ['--only-matching', '-e', '(?i)foo', '-e', 'bar', 'file'],
        "check": 'stdout',
        "expected": 'Foo\n',
    },
    {
        "name": 'r2480#6',
        "ops": [
            ('file', 'file', 'FooBar\n'),
        ],
        "args": ['--only-matching', '-e', '(?i)notfoo', '-e', 'bar', 'file'],
        "check": 'err',
    },
    {
        "name": 'r2574',
        "ops": [
            ('file', 'haystack', 'some.domain.com\nsome.domain.com/x\n'),
        ],
        "args": ['--no-filename', '--no-unicode', '-w', '-o', '(\\w+\\.)*domain\\.(\\w+)'],
        "check": 'stdout',
        "expected": 'some.domain.com\nsome.domain.com\n',
    },
    {
        "name": 'r2658_null_data_line_regexp',
        "ops": [
            ('file', 'haystack', 'foo\x00bar\x00quux\x00'),
        ],
        "args": ['--null-data', '--line-regexp', 'bar'],
        "check": 'stdout',
        "expected": 'haystack:bar\x00',
    },
    # -- new or changed in ripgrep 15.0-15.2 (tests/regression.rs at tag 15.2.0) --------------------
    *[{
        "name": f'r2711#{i}',
        "ops": [
            ('dir', 'a/b'),
            ('file', 'a/.ignore', '.foo'),
            ('file', 'a/b/.foo', ''),
        ],
        "args": ['--hidden', '--files', *paths],
        **({"cwd": cwd} if cwd else {}),
        "check": 'stdout' if expected else 'err',
        **({"expected": expected} if expected else {}),
    } for i, (paths, cwd, expected) in enumerate([
        ([], '', 'a/.ignore\n'),
        (['./'], '', './a/.ignore\n'),
        (['a'], '', 'a/.ignore\n'),
        (['a/b'], '', None),
        (['./a'], '', './a/.ignore\n'),
        ([], 'a', '.ignore\n'),
        ([], 'a/b', None),
        ([], './a', '.ignore\n'),
    ], 1)],
    *[{
        "name": f'r829_original#{i}',
        "ops": [
            ('dir', 'a/b'),
            ('file', '.ignore', '/a/b'),
            ('file', 'a/b/test.txt', 'Sample text'),
        ],
        "args": ['Sample', *paths],
        **({"cwd": cwd} if cwd else {}),
        "check": 'err',
    } for i, (paths, cwd) in enumerate([([], ''), (['a'], ''), ([], 'a')], 1)],
    *[{
        "name": f'r829_2731#{i}',
        "ops": [
            ('dir', 'some_dir/build'),
            ('file', 'some_dir/build/foo', 'string'),
            ('file', '.ignore', 'build/\n!/some_dir/build/'),
        ],
        "args": ['-l', 'string', *paths],
        "check": 'stdout',
        "expected": expected,
    } for i, (paths, expected) in enumerate([
        ([], 'some_dir/build/foo\n'),
        (['some_dir'], 'some_dir/build/foo\n'),
        (['./some_dir'], './some_dir/build/foo\n'),
        (['some_dir/build'], 'some_dir/build/foo\n'),
        (['./some_dir/build'], './some_dir/build/foo\n'),
    ], 1)],
    *[{
        "name": f'r829_2747#{i}',
        "ops": [
            ('dir', 'a/c/b'),
            ('dir', 'a/src/f/b'),
            ('file', 'a/c/b/foo', ''),
            ('file', 'a/src/f/b/foo', ''),
            ('file', '.ignore', '/a/*/b'),
        ],
        "args": ['--files', *paths],
        **({"cwd": cwd} if cwd else {}),
        "check": 'stdout',
        "expected": expected,
    } for i, (paths, cwd, expected) in enumerate([
        ([], '', 'a/src/f/b/foo\n'),
        (['a/src'], '', 'a/src/f/b/foo\n'),
        ([], 'a/src', 'f/b/foo\n'),
    ], 1)],
    *[{
        "name": f'r829_2778#{i}',
        "ops": [
            ('dir', 'parent/subdir'),
            ('file', '.ignore', '/parent/*.txt'),
            ('file', 'parent/ignore-me.txt', ''),
            ('file', 'parent/subdir/dont-ignore-me.txt', ''),
        ],
        "args": ['--files'],
        **({"cwd": cwd} if cwd else {}),
        "check": 'stdout',
        "expected": expected,
    } for i, (cwd, expected) in enumerate([
        ('', 'parent/subdir/dont-ignore-me.txt\n'),
        ('parent', 'subdir/dont-ignore-me.txt\n'),
    ], 1)],
    *[{
        "name": f'r829_2836#{i}',
        "ops": [
            ('dir', 'testdir/sub/sub2'),
            ('file', '.ignore', '/testdir/sub/sub2/\n'),
            ('file', 'testdir/sub/sub2/foo', ''),
        ],
        "args": ['--files'],
        **({"cwd": cwd} if cwd else {}),
        "check": 'err',
    } for i, cwd in enumerate(['', 'testdir'], 1)],
    {
        "name": 'r829_2933',
        "ops": [
            ('dir', 'testdir/sub/sub2'),
            ('file', '.ignore', '/testdir/sub/sub2/'),
            ('file', 'testdir/sub/sub2/testfile', 'needle'),
        ],
        "args": ['--files-with-matches', 'needle'],
        "cwd": 'testdir',
        "check": 'err',
    },
    *[{
        "name": f'r1334_invert_empty_patterns#{i}',
        "ops": [
            ('file', 'zero-patterns', ''),
            ('file', 'one-pattern', '\n'),
            ('file', 'haystack', 'one\ntwo\nthree\n'),
        ],
        "args": [flag, patterns, 'haystack'],
        "check": 'stdout' if expected else 'err',
        **({"expected": expected} if expected else {}),
    } for i, (flag, patterns, expected) in enumerate([
        ('-f', 'zero-patterns', None),
        ('-f', 'one-pattern', 'one\ntwo\nthree\n'),
        ('-vf', 'zero-patterns', 'one\ntwo\nthree\n'),
        ('-vf', 'one-pattern', None),
    ], 1)],
    *[{
        "name": f'f1757#{i}',
        "ops": [
            ('dir', 'rust/target'),
            ('file', '.ignore', 'rust/target'),
            ('file', 'rust/source.rs', 'needle'),
            ('file', 'rust/target/rustdoc-output.html', 'needle'),
            *([] if i <= 2 else [
                ('dir', 'rust1/target/onemore'),
                ('file', '.ignore', 'rust1/target/onemore'),
                ('file', 'rust1/source.rs', 'needle'),
                ('file', 'rust1/target/onemore/rustdoc-output.html', 'needle'),
            ]),
        ],
        "args": ['--files-with-matches', 'needle', path],
        "check": 'stdout',
        "expected": path + '/source.rs\n',
    } for i, path in enumerate(['rust', './rust', 'rust1', './rust1'], 1)],
    {
        "name": 'r2094',
        "ops": [
            ('file', 'haystack', 'a\nb\nc\na\nb\nc'),
        ],
        "args": ['--no-line-number', '--no-filename', '--multiline', '--max-count=1', '--passthru',
                 '--replace=B', 'b', 'haystack'],
        "check": 'stdout',
        "expected": 'a\nB\nc\na\nb\nc\n',
    },
    *[{
        "name": f'r2770_gitignore_error#{i}',
        "ops": [
            ('file', '.git', ''),
            ('file', '.gitignore', '**/bar/*'),
            ('dir', 'foo/bar'),
            ('file', 'foo/bar/baz', 'quux'),
        ],
        "args": ['-l', 'quux'],
        **({"cwd": cwd} if cwd else {}),
        "check": 'err',
    } for i, cwd in enumerate(['', 'foo'], 1)],
    {
        "name": 'r2944_incorrect_bytes_searched',
        "ops": [
            ('file', 'haystack', 'foo1\nfoo2\nfoo3\nfoo4\nfoo5\n'),
        ],
        "args": ['--stats', '-m2', 'foo', '.'],
        "check": 'stdout',
        "bytes_searched": True,
    },
    *[{
        "name": f'r2990_trip_over_trailing_dot#{i}',
        "ops": [
            ('dir', 'asdf'),
            ('dir', 'asdf.'),
            ('file', 'asdf/foo', ''),
            ('file', 'asdf./foo', ''),
        ],
        "args": ['--files', '-g', glob],
        "check": 'stdout',
        "expected": expected,
    } for i, (glob, expected) in enumerate([('!asdf/', 'asdf./foo\n'), ('!asdf./', 'asdf/foo\n')], 1)],
    {
        "name": 'r3067_gitignore_error',
        "ops": [
            ('file', '.git', ''),
            ('file', '.gitignore', 'foobar/debug'),
            ('dir', 'foobar/some/debug'),
            ('dir', 'foobar/debug'),
            ('file', 'foobar/some/debug/flag', 'baz'),
            ('file', 'foobar/debug/flag2', 'baz'),
        ],
        "args": ['baz'],
        "check": 'stdout',
        "expected": 'foobar/some/debug/flag:baz\n',
    },
    *[{
        "name": f'r3108_files_without_match_quiet_exit#{i}',
        "ops": [
            ('file', 'yes-match', 'abc'),
            ('file', 'non-match', 'xyz'),
        ],
        "args": args,
        "check": check,
        **({"exit": code} if check == 'exit' else {"expected": code}),
    } for i, (args, check, code) in enumerate([
        (['-q', 'abc', 'non-match'], 'exit', 1),
        (['-q', 'abc', 'yes-match'], 'exit', 0),
        (['--files-with-matches', '-q', 'abc', 'non-match'], 'exit', 1),
        (['--files-with-matches', '-q', 'abc', 'yes-match'], 'exit', 0),
        (['--files-without-match', 'abc', 'non-match'], 'exit', 0),
        (['--files-without-match', 'abc', 'yes-match'], 'exit', 1),
        (['--files-without-match', 'abc', 'non-match'], 'stdout', 'non-match\n'),
        (['--files-without-match', '-q', 'abc', 'non-match'], 'exit', 0),
        (['--files-without-match', '-q', 'abc', 'yes-match'], 'exit', 1),
        (['--files-without-match', '-q', 'abc', 'non-match'], 'stdout', ''),
    ], 1)],
    {
        "name": 'r3127_gitignore_allow_unclosed_class',
        "ops": [
            ('dir', '.git'),
            ('file', '.gitignore', '[abc'),
            ('file', '[abc', ''),
            ('file', 'test', ''),
        ],
        "args": ['--files'],
        "check": 'stdout',
        "expected": 'test\n',
    },
    {
        "name": 'r3127_glob_flag_not_allow_unclosed_class',
        "ops": [
            ('file', '[abc', ''),
            ('file', 'test', ''),
        ],
        "args": ['--files', '-g', '[abc'],
        "check": 'err',
    },
    *[{
        "name": f'r3139_multiline_lookahead_files_with_matches#{i}',
        "ops": [
            ('file', 'test', 'Start \n   \n\n   XXXXXXXXXXXXXXXXXXXXXXXXXX\n   '
                             'YYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYY\n   '
                             '\n      thing2 \n\n'),
        ],
        "args": ['--multiline', '--pcre2', *flags, r'(?s)Start(?=.*thing2)', 'test'],
        "check": 'stdout',
        "expected": expected,
    } for i, (flags, expected) in enumerate([([], 'Start \n'), (['--files-with-matches'], 'test\n')], 1)],
    *[{
        "name": f'r3173_hidden_whitelist_only_dot#{i}',
        "ops": [
            ('dir', 'subdir'),
            ('file', 'subdir/.foo.txt', 'text'),
            ('file', '.ignore', '!.foo.txt'),
        ],
        "args": ['--files', *paths],
        **({"cwd": cwd} if cwd else {}),
        "check": 'stdout',
        "expected": expected,
    } for i, (paths, cwd, expected) in enumerate([
        ([], '', 'subdir/.foo.txt\n'),
        (['.'], '', './subdir/.foo.txt\n'),
        (['./'], '', './subdir/.foo.txt\n'),
        ([], 'subdir', '.foo.txt\n'),
        (['.'], 'subdir', './.foo.txt\n'),
        (['./'], 'subdir', './.foo.txt\n'),
    ], 1)],
    {
        "name": 'r3179_global_gitignore_cwd',
        "ops": [
            ('dir', 'a/b/c'),
            ('file', 'a/b/c/haystack', ''),
            ('file', '.test.gitignore', '/haystack'),
        ],
        "args": ['--files', '--ignore-file', '{DIR}/.test.gitignore', '{DIR}'],
        "cwd": 'a/b/c',
        "check": 'err',
    },
    {
        "name": 'r3180_look_around_panic',
        "ops": [
            ('file', 'haystack', ' b b b b b b b b\nc\n'),
        ],
        "args": [r'(^|[^a-z])((([a-z]+)?)\s)?b(\s([a-z]+)?)($|[^a-z])', 'haystack', '-U', '-rx'],
        "check": 'stdout',
        "expected": 'xbxbx\n',
    },
    {
        "name": 'r3275_git_global_config_env',
        "ops": [
            ('dir', 'foo'),
            ('file', '.git', ''),
            ('file', 'foo/foo1', ''),
            ('file', 'foo/foo2', ''),
            ('file', 'global-excludes-nonstandard', 'foo2'),
            ('file', 'global-config-nonstandard', '[core]\n\texcludesFile = {DIR}/global-excludes-nonstandard'),
        ],
        "env": {"GIT_CONFIG_GLOBAL": '{DIR}/global-config-nonstandard'},
        "args": ['--files', 'foo'],
        "check": 'stdout',
        "expected": 'foo/foo1\n',
    },
]
