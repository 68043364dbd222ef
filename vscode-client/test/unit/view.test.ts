import { strict as assert } from 'assert';
import { describe, it } from 'node:test';
import { EMPTY_QUERY, HISTORY_SIZE, MAX_LOADED, expandGlob, pushHistory, isCaseInsensitive, searchKey, splitGlobs, splitTypes, viewGrepArgs } from '../../src/view/query';
import { expandTemplate, jsRegex, planFile, preserveCase, replacementAt } from '../../src/view/replace';
import { fileText, resultsDocument } from '../../src/view/document';
import { LEFT_CONTEXT, ResultModel, doneLine, highlightRanges, lineLabel, nextMatch, spansOf } from '../../src/view/results';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
/** A match event for `needle` at its first (or each) occurrence in `text`, with byte columns as the server sends them. */
function event(path: string, line: number, text: string, needle: string, every = false) {
    const spans: { column: number; end_column: number; match_text: string }[] = [];
    let from = 0;
    for (;;) {
        const at = text.indexOf(needle, from);
        if (at < 0) break;
        const col = bytes(text.slice(0, at)) + 1;
        spans.push({ column: col, end_column: col + bytes(needle), match_text: needle });
        from = at + needle.length;
        if (!every) break;
    }
    const first = spans[0];
    return { type: 'match', path, line, text, column: first.column, end_column: first.end_column, match_text: needle, ...(spans.length > 1 ? { submatches: spans } : {}) };
}

describe('query -> sleuth/grep arguments', () => {
    it('splits globs on commas outside braces, as VS Code does', () => {
        assert.deepEqual(splitGlobs('*.{ts,js}, src/** ,, docs'), ['*.{ts,js}', 'src/**', 'docs']);
        assert.deepEqual(splitGlobs(''), []);
    });
    it('reads a bare folder name as that folder anywhere', () => {
        assert.deepEqual(expandGlob('src'), ['src', 'src/**']);
        assert.deepEqual(expandGlob('./build/'), ['build', 'build/**']);
        assert.deepEqual(expandGlob('*.py'), ['*.py']);
    });
    it('splits file types on commas and spaces', () => {
        assert.deepEqual(splitTypes('py, .cs  ts'), ['py', '.cs', 'ts']);
    });
    it('maps toggles, globs, types and context, and caps the request at the hard cap', () => {
        const args = viewGrepArgs({ ...EMPTY_QUERY, pattern: 'a.b', regex: true, wholeWord: true, matchCase: true, include: 'src', exclude: '*.md', types: 'py', context: 2 }, 50_000, 'smart');
        assert.deepEqual(args, {
            pattern: 'a.b', fixed_strings: false, word: true, case: 'sensitive', max_results: MAX_LOADED,
            include_globs: ['src', 'src/**'], exclude_globs: ['*.md'], file_types: ['py'], context: 2,
        });
        const plain = viewGrepArgs({ ...EMPTY_QUERY, pattern: 'x' }, 100, 'smart');
        assert.deepEqual(plain, { pattern: 'x', fixed_strings: true, word: false, case: 'smart', max_results: 100 });
    });
    it('smart case is insensitive only without uppercase', () => {
        assert.equal(isCaseInsensitive({ pattern: 'foo', case: 'smart' }), true);
        assert.equal(isCaseInsensitive({ pattern: 'Foo', case: 'smart' }), false);
        assert.equal(isCaseInsensitive({ pattern: 'Foo', case: 'insensitive' }), true);
    });
    it('a change of the replace text alone keeps the search', () => {
        assert.equal(searchKey({ ...EMPTY_QUERY, pattern: 'a', replace: 'b' }), searchKey({ ...EMPTY_QUERY, pattern: 'a', replace: 'c' }));
        assert.notEqual(searchKey({ ...EMPTY_QUERY, pattern: 'a' }), searchKey({ ...EMPTY_QUERY, pattern: 'a', wholeWord: true }));
    });
});

describe('results grouped by file with highlights', () => {
    it('groups events by file in arrival order and counts every occurrence', () => {
        const m = new ResultModel();
        m.add([event('a.py', 1, 'foo foo', 'foo', true), { type: 'context', path: 'a.py', line: 2, text: 'ctx' }]);
        m.add([event('a.py', 3, 'x foo', 'foo'), event('b.py', 7, 'foo', 'foo'), { junk: true }]);
        assert.deepEqual(m.files.map((f) => [f.path, f.matches, f.lines.length]), [['a.py', 3, 3], ['b.py', 1, 1]]);
        assert.equal(m.matches, 4);
        assert.equal(m.events, 4);
        assert.match(doneLine(m, { truncated: true, elapsed_ms: 12.4 }, true), /^4 results in 2 files \(more exist: Load more\) · 12 ms$/);
    });
    it('turns UTF-8 byte columns into UTF-16 ranges past multi-byte characters', () => {
        const text = '    naïve = "é→ü"; value = find_me(42)  # 😀 find_me';
        const e = event('m.py', 42, text, 'find_me', true);
        const ranges = highlightRanges(text, spansOf(e as never));
        assert.equal(ranges.length, 2);
        for (const [s, end] of ranges) assert.equal(text.slice(s, end), 'find_me');
    });
    it('finds the matched text in a line the server cut around the match (offsets no longer index it)', () => {
        const cut = '…bbbbbb needle cc…';
        const ranges = highlightRanges(cut, [{ column: 5001, endColumn: 5007, text: 'needle' }]);
        assert.deepEqual(ranges, [[8, 14]]);
    });
    it('labels drop indentation and start near a far-right match, highlights moving along', () => {
        const text = '\t\t' + 'x'.repeat(100) + 'hit' + 'y'.repeat(10);
        const r = highlightRanges(text, [{ column: 103, endColumn: 106, text: 'hit' }]);
        const { label, highlights } = lineLabel(text, r);
        assert.ok(label.startsWith('…'));
        assert.equal(label.slice(highlights[0][0], highlights[0][1]), 'hit');
        const short = lineLabel('    return hit;', [[11, 14]]);
        assert.deepEqual(short, { label: 'return hit;', highlights: [[7, 10]] });
    });
});

describe('replacement', () => {
    it('expands ripgrep templates: $1, ${1}, $name, ${name}, $$, missing groups empty', () => {
        const g = { numbered: ['ab12', 'ab', '12'], named: { word: 'ab', num: '12' } };
        assert.equal(expandTemplate('$2-$1', g), '12-ab');
        assert.equal(expandTemplate('${1}x', g), 'abx');
        assert.equal(expandTemplate('$1x', g), ''); // ripgrep reads the longest name: group "1x"
        assert.equal(expandTemplate('${word}/$num', g), 'ab/12');
        assert.equal(expandTemplate('$$1 costs $', g), '$1 costs $');
        assert.equal(expandTemplate('$9|$nope|$0', g), '||ab12');
    });
    it('translates Rust named groups and a leading (?i), and honours whole word', () => {
        const re = jsRegex({ pattern: '(?i)(?P<w>fo+)', wholeWord: false, caseInsensitive: false });
        re.lastIndex = 0;
        assert.equal(re.exec('FOO')?.groups?.w, 'FOO');
        const spec = { pattern: 'a|ab', replace: 'X', regex: true, wholeWord: true, caseInsensitive: false };
        assert.equal(replacementAt('ab c', 0, 'ab', spec), 'X');
    });
    it('a literal replacement takes $ literally', () => {
        assert.equal(replacementAt('price', 0, 'price', { pattern: 'price', replace: '$1', regex: false, wholeWord: false, caseInsensitive: false }), '$1');
    });
    it('plans edits at UTF-16 columns, with captures, from byte columns of the current text', () => {
        const text = 'é→ü get_user(1) get_user(22)\r\nnothing\n';
        const line = 'é→ü get_user(1) get_user(22)';
        const e = { type: 'match', path: 'f', line: 1, text: line, column: 0, end_column: 0, match_text: '' };
        const subs = ['get_user(1)', 'get_user(22)'].map((t) => {
            const at = line.indexOf(t);
            return { column: bytes(line.slice(0, at)) + 1, end_column: bytes(line.slice(0, at)) + 1 + bytes(t), match_text: t };
        });
        const m = new ResultModel();
        m.add([{ ...e, column: subs[0].column, end_column: subs[0].end_column, match_text: subs[0].match_text, submatches: subs }]);
        const plan = planFile(text, m.files[0].lines, { pattern: 'get_(\\w+)\\((\\d+)\\)', replace: 'fetch_$1(${2})', regex: true, wholeWord: false, caseInsensitive: false });
        assert.deepEqual(plan, {
            edits: [
                { line: 0, start: 4, end: 15, newText: 'fetch_user(1)' },
                { line: 0, start: 16, end: 28, newText: 'fetch_user(22)' },
            ],
            stale: 0,
            disagree: 0,
        });
    });
    it('skips a match whose text moved since the search, and one JavaScript matches differently', () => {
        const m = new ResultModel();
        m.add([event('f', 1, 'abc foo', 'foo'), event('f', 2, 'foo', 'foo')]);
        const plan = planFile('abcd foo\nfoo\n', m.files[0].lines, { pattern: 'foo', replace: 'bar', regex: false, wholeWord: false, caseInsensitive: false });
        assert.deepEqual([plan.edits.length, plan.stale], [1, 1]);
        const odd = planFile('abc foo\nfoo\n', m.files[0].lines, { pattern: 'fo', replace: 'x', regex: true, wholeWord: false, caseInsensitive: false });
        assert.equal(odd.disagree, 2);
    });
});

describe('issue 31: centred rows, F4, history, preserve case, copy and the results document', () => {
    it('a row starts at a word shortly before its match, never further than LEFT_CONTEXT', () => {
        const text = 'alpha12 beta3 kernel15 queue71 alpha69 alpha2 streamword 10';
        const at = text.indexOf('streamword');
        const { label, highlights } = lineLabel(text, [[at, at + 10]]);
        assert.ok(label.startsWith('…'), label);
        const [s, e] = highlights[0];
        assert.equal(label.slice(s, e), 'streamword');
        assert.ok(s <= LEFT_CONTEXT + 1, `${s} characters before the match`);
        assert.match(label, /^…\S/); // cut at a word start
    });
    it('a batch reports new and grown files with the first line it added', () => {
        const m = new ResultModel();
        const first = m.add([event('a', 1, 'x foo', 'foo'), event('b', 1, 'foo', 'foo')]);
        assert.deepEqual(first.map((d) => [d.index, d.isNew, d.from]), [[0, true, 0], [1, true, 0]]);
        const next = m.add([event('b', 2, 'foo', 'foo'), event('c', 1, 'foo', 'foo')]);
        assert.deepEqual(next.map((d) => [d.index, d.isNew, d.from]), [[1, false, 1], [2, true, 0]]);
    });
    it('F4 walks the match lines across files and wraps; Shift+F4 goes back', () => {
        const m = new ResultModel();
        m.add([event('a', 1, 'foo', 'foo'), { type: 'context', path: 'a', line: 2, text: 'c' }, event('a', 3, 'foo', 'foo'), event('b', 5, 'foo', 'foo')]);
        const [a, b] = m.files;
        const n1 = nextMatch(m.files, undefined, true)!;
        assert.deepEqual([n1.group.path, n1.line.line], ['a', 1]);
        const n2 = nextMatch(m.files, n1, true)!;
        assert.equal(n2.line.line, 3); // the context line is skipped
        assert.equal(nextMatch(m.files, { group: b, line: b.lines[0] }, true)!.line.line, 1); // wraps
        assert.equal(nextMatch(m.files, n1, false)!.group, b);
        assert.equal(nextMatch(m.files, { group: b }, false)!.line.line, 3); // from a file row: the previous file's last
        assert.equal(nextMatch(m.files, { group: a }, true)!.line.line, 1);
    });
    it('history keeps the newest last, once, at most HISTORY_SIZE', () => {
        assert.deepEqual(pushHistory(['a', 'b'], 'a'), ['b', 'a']);
        assert.deepEqual(pushHistory(['a'], '  '), ['a']);
        assert.equal(pushHistory(Array.from({ length: HISTORY_SIZE }, (_, i) => `p${i}`), 'new').length, HISTORY_SIZE);
    });
    it('preserve case follows the match: upper, lower, capitalised, per part', () => {
        assert.equal(preserveCase('COLOR', 'shade'), 'SHADE');
        assert.equal(preserveCase('color', 'Shade'), 'shade');
        assert.equal(preserveCase('Color', 'shade'), 'Shade');
        assert.equal(preserveCase('Back-Color', 'fore-shade'), 'Fore-Shade');
        assert.equal(replacementAt('a Color', 2, 'Color', { pattern: 'color', replace: 'shade', regex: false, wholeWord: false, caseInsensitive: true, preserveCase: true }), 'Shade');
        assert.equal(replacementAt('a Color', 2, 'Color', { pattern: 'color', replace: 'shade', regex: false, wholeWord: false, caseInsensitive: true }), 'shade');
    });
    it('copies rows as "  N: text" under the path, and the document maps its lines to results', () => {
        const m = new ResultModel();
        m.add([event('a.py', 4, '  x = foo  ', 'foo'), { type: 'context', path: 'a.py', line: 5, text: 'y' }]);
        assert.equal(fileText(m.files[0]), 'a.py\n  4:   x = foo\n  5  y');
        const doc = resultsDocument(['Query: foo'], m);
        const lines = doc.text.split('\n');
        assert.equal(lines[0], '# Query: foo');
        assert.equal(lines[2], 'a.py:');
        assert.equal(doc.targets.get(3)?.line?.line, 4);
        assert.equal(doc.targets.get(2)?.line, undefined);
    });
});
