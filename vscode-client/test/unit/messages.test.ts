import { strict as assert } from 'assert';
import { describe, it } from 'node:test';
import { POINTER, describeError, errorLines, looksLikeRegex, regexHint } from '../../src/messages';

describe('errors in words for people', () => {
    const invalid = {
        code: 'bad_args',
        message: 'regex parse error at position 0: unclosed character class\n    [A-Z\n    ^\nEscape special characters with a backslash, or set fixed_strings to search for literal text.',
        hint: 'Fix the argument named in the message and call again.',
        position: 0,
        pattern: '[A-Z',
    };
    it('says what is wrong, points into the pattern and names the key, with no API wording', () => {
        const shown = describeError(invalid, 'Alt+R');
        assert.equal(shown.summary, 'Invalid regular expression: unclosed character class');
        assert.equal(shown.pointed, `${POINTER}[A-Z    (${POINTER} marks the problem, before character 1)`);
        assert.match(shown.fixes.join(' '), /backslash/);
        assert.match(shown.fixes.join(' '), /Alt\+R/);
        const all = errorLines(shown).join('\n');
        assert.doesNotMatch(all, /fixed_strings|call again|argument/);
    });
    it('keeps the pointer under the pattern on its own line', () => {
        const shown = describeError({ ...invalid, message: 'regex parse error at position 6: unclosed group', pattern: 'foo(ba', position: 6 });
        const lines = errorLines(shown);
        assert.equal(lines[1], '    foo(ba');
        assert.equal(lines[2], '          ^');
        assert.equal(shown.pointed, `foo(ba${POINTER}    (${POINTER} marks the problem, at the end)`);
    });
    it('counts the position in characters, not UTF-16 units', () => {
        const shown = describeError({ ...invalid, message: 'regex parse error at position 2: x', pattern: '😀a(', position: 2 });
        assert.ok(shown.pointed?.startsWith(`😀a${POINTER}(`), shown.pointed);
    });
    it('drops the command prefix and the API hint from other errors', () => {
        const shown = describeError({ code: 'bad_args', message: 'sleuth.grep: the pattern is 1200 characters long; the limit is 1000.', hint: 'Search for a shorter, more specific pattern.' });
        assert.equal(shown.summary, 'The pattern is 1200 characters long; the limit is 1000.');
        assert.deepEqual(shown.fixes, ['Search for a shorter, more specific pattern.']);
        const generic = describeError({ code: 'bad_args', message: 'x is wrong', hint: 'Fix the argument named in the message and call again.' });
        assert.deepEqual(generic.fixes, []);
    });
});

describe('a literal search that looks like a regex', () => {
    it('recognises the regexes people type', () => {
        for (const q of ['[A-Z]+_RESUME', 'find_the_\\w+_here\\(\\d+\\)', 'foo.*bar', '^import', '(TODO|FIXME)', '(get|set)User', 'x{2,3}', 'a\\.b', '[^a]x']) {
            assert.ok(looksLikeRegex(q), q);
        }
    });
    it('leaves code that merely has punctuation alone', () => {
        for (const q of ['a+b', 'x*y', 'f(x)', 'arr[0]', 'i++', 'C++', '*.py', '$HOME', 'std::vector<int>', 'a.b', 'scheduler tick', '']) {
            assert.ok(!looksLikeRegex(q), q);
        }
    });
    it('hints only when the regex toggle is off and nothing was found', () => {
        assert.match(regexHint('[A-Z]+_RESUME', false, 0, 'Alt+R')?.label ?? '', /Alt\+R/);
        assert.equal(regexHint('[A-Z]+_RESUME', true, 0, 'Alt+R'), undefined);
        assert.equal(regexHint('[A-Z]+_RESUME', false, 3, 'Alt+R'), undefined);
        assert.equal(regexHint('plain words', false, 0, 'Alt+R'), undefined);
    });
});
