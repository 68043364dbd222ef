import { strict as assert } from 'assert';
import { describe, it } from 'node:test';
import { EMPTY_QUERY, HISTORY_SIZE, MAX_LOADED, expandGlob, pushHistory, searchKey, splitGlobs, splitTypes, viewGrepArgs } from '../../src/view/query';
import { planFile, preserveCase, serverReplacements } from '../../src/view/replace';
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
    const lineOf = 'é→ü get_user(1) get_user(22)';
    const subsOf = (line: string, texts: string[]) => texts.map((t) => {
        const at = line.indexOf(t);
        return { column: bytes(line.slice(0, at)) + 1, end_column: bytes(line.slice(0, at)) + 1 + bytes(t), match_text: t };
    });
    const matchEvent = (path: string, lineNo: number, line: string, texts: string[], replaced?: string[]) => {
        const subs = subsOf(line, texts);
        return { type: 'match', path, line: lineNo, text: line, column: subs[0].column, end_column: subs[0].end_column,
            match_text: subs[0].match_text, submatches: subs, ...(replaced ? { match_replacements: replaced } : {}) };
    };
    it("takes each match's replacement from the server's match_replacements, by path, line and column", () => {
        const events = [
            matchEvent('f', 1, lineOf, ['get_user(1)', 'get_user(22)'], ['fetch_user(1)', 'fetch_user(22)']),
            { type: 'context', path: 'f', line: 2, text: 'nothing' },
            matchEvent('g', 3, 'x get_user(1)', ['get_user(1)'], ['other(1)']),
        ];
        const byPath = serverReplacements(events);
        assert.deepEqual([...byPath.keys()], ['f', 'g']);
        const m = new ResultModel();
        m.add([matchEvent('f', 1, lineOf, ['get_user(1)', 'get_user(22)'])]);
        const plan = planFile(lineOf + '\r\nnothing\n', m.files[0].lines, { pattern: 'get_(\\w+)\\((\\d+)\\)', replace: 'fetch_$1(${2})', regex: true },
            byPath.get('f'));
        assert.deepEqual(plan, {
            edits: [
                { line: 0, start: 4, end: 15, newText: 'fetch_user(1)' },
                { line: 0, start: 16, end: 28, newText: 'fetch_user(22)' },
            ],
            stale: 0,
        });
    });
    it('takes none from a match whose replacements do not pair one to one with its spans', () => {
        const byPath = serverReplacements([matchEvent('f', 1, lineOf, ['get_user(1)', 'get_user(22)'], ['only one'])]);
        assert.equal(byPath.size, 0);
    });
    it('a literal replacement takes $ literally, with no server expansion', () => {
        const m = new ResultModel();
        m.add([event('f', 1, 'price', 'price')]);
        const plan = planFile('price\n', m.files[0].lines, { pattern: 'price', replace: '$1', regex: false });
        assert.deepEqual(plan.edits.map((e) => e.newText), ['$1']);
    });
    it('skips a match whose text moved since the search, and one the server no longer replaces there', () => {
        const m = new ResultModel();
        m.add([event('f', 1, 'abc foo', 'foo'), event('f', 2, 'foo', 'foo')]);
        const plan = planFile('abcd foo\nfoo\n', m.files[0].lines, { pattern: 'foo', replace: 'bar', regex: false });
        assert.deepEqual([plan.edits.length, plan.stale], [1, 1]);
        const fresh = serverReplacements([{ type: 'match', path: 'f', line: 2, text: 'foo', column: 1, end_column: 4, match_text: 'foo', match_replacements: ['x'] }]);
        const regex = planFile('abc foo\nfoo\n', m.files[0].lines, { pattern: 'fo+', replace: 'x', regex: true }, fresh.get('f'));
        assert.deepEqual([regex.edits.map((e) => e.newText), regex.stale], [['x'], 1]);
        assert.equal(planFile('abc foo\nfoo\n', m.files[0].lines, { pattern: 'fo+', replace: 'x', regex: true }).stale, 2);
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
        const m = new ResultModel();
        m.add([event('f', 1, 'a Color', 'Color')]);
        const cased = (preserve: boolean) => planFile('a Color\n', m.files[0].lines, { pattern: 'color', replace: 'shade', regex: false, preserveCase: preserve }).edits[0].newText;
        assert.deepEqual([cased(true), cased(false)], ['Shade', 'shade']);
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
