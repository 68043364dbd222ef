import { strict as assert } from 'assert';
import { describe, it } from 'node:test';
import * as path from 'path';
import {
    excerpt,
    fileRow,
    codePointToUtf16Offset,
    grepRow,
    indexStatusLine,
    markRanges,
    matchRange,
    resolveResultPath,
    summaryLine,
    textRow,
    utf8ToUtf16Offset,
} from '../../src/format';

/** Reference: UTF-16 offset of byte offset `b` computed through Buffer round trips. */
function reference(line: string, b: number): number {
    return Buffer.from(line, 'utf8').subarray(0, b).toString('utf8').length;
}

describe('utf8ToUtf16Offset', () => {
    it('is the identity on ASCII', () => {
        assert.equal(utf8ToUtf16Offset('hello world', 6), 6);
        assert.equal(utf8ToUtf16Offset('hello', 0), 0);
    });
    it('counts 2-, 3- and 4-byte characters as 1, 1 and 2 UTF-16 units', () => {
        const line = 'é中😀x';
        // bytes: é=2, 中=3, 😀=4, x=1
        assert.equal(utf8ToUtf16Offset(line, 2), 1);
        assert.equal(utf8ToUtf16Offset(line, 5), 2);
        assert.equal(utf8ToUtf16Offset(line, 9), 4);
        assert.equal(utf8ToUtf16Offset(line, 10), 5);
    });
    it('agrees with Buffer decoding on every character boundary', () => {
        const line = 'naïve café — 日本語 😀 done 🎉!';
        const bytes = Buffer.from(line, 'utf8');
        for (let b = 0; b <= bytes.length; b++) {
            const isBoundary = b === bytes.length || (bytes[b] & 0xc0) !== 0x80;
            if (isBoundary) assert.equal(utf8ToUtf16Offset(line, b), reference(line, b), `byte ${b}`);
        }
    });
    it('maps an offset inside a character to its start, and past the end to the end', () => {
        assert.equal(utf8ToUtf16Offset('a中b', 2), 1);
        assert.equal(utf8ToUtf16Offset('a中b', 3), 1);
        assert.equal(utf8ToUtf16Offset('ab', 99), 2);
    });
});

describe('matchRange', () => {
    it('turns 1-based byte columns into a 0-based UTF-16 range', () => {
        // "résumé = 1": the match "= 1" starts at byte 10 (0-based 9), 1-based column 10
        const line = 'résumé = 1';
        assert.deepEqual(matchRange(line, 3, 10, 13), { line: 2, start: 7, end: 10 });
    });
    it('selects nothing but places the cursor when columns are missing', () => {
        assert.deepEqual(matchRange('abc', 1), { line: 0, start: 0, end: 0 });
    });
});

describe('resolveResultPath', () => {
    const one = [{ name: 'proj', fsPath: path.join('/', 'w', 'proj') }];
    const two = [...one, { name: 'lib', fsPath: path.join('/', 'w', 'lib') }];
    it('joins onto the only folder', () => {
        assert.equal(resolveResultPath('src/a.py', one), path.join('/', 'w', 'proj', 'src', 'a.py'));
    });
    it('uses the first segment as the folder name with several folders', () => {
        assert.equal(resolveResultPath('lib/x/y.ts', two), path.join('/', 'w', 'lib', 'x', 'y.ts'));
        assert.equal(resolveResultPath('proj/a.py', two), path.join('/', 'w', 'proj', 'a.py'));
    });
    it('is undefined without folders for a relative path', () => {
        assert.equal(resolveResultPath('a.py', []), undefined);
    });
});

describe('rows', () => {
    it('grep rows show name:line, folder and the line', () => {
        const row = grepRow({ type: 'match', path: 'src/app/main.py', line: 12, column: 5, end_column: 9, text: '    def main():\n', match_text: 'def ' });
        assert.equal(row.label, 'main.py:12');
        assert.equal(row.description, 'src/app');
        assert.equal(row.detail, '«def »main():');
        assert.equal(row.column, 5);
        assert.equal(row.endColumn, 9);
    });
    it('a match far right starts the row shortly before it', () => {
        const text = 'a'.repeat(80) + ' streamword 10';
        const out = excerpt(text, 81);
        assert.equal(out, '…' + 'a'.repeat(29) + ' streamword 10');
        assert.equal(excerpt('  short line', 2), 'short line');
    });
    it('long lines are cut around the match', () => {
        const text = 'x'.repeat(1000) + 'NEEDLE' + 'y'.repeat(1000);
        const out = excerpt(text, 1000);
        assert.ok(out.includes('NEEDLE'));
        assert.ok(out.length < 200);
        assert.ok(out.startsWith('…') && out.endsWith('…'));
    });
    it('file rows split name and folder', () => {
        assert.deepEqual(fileRow({ path: 'a/b/UserController.cs' }), { label: 'UserController.cs', description: 'a/b', path: 'a/b/UserController.cs' });
        assert.equal(fileRow({ path: 'top.txt' }).description, '');
    });
    it('text rows show the score and the snippet', () => {
        const row = textRow({ path: 'docs/guide.md', line: 3, score: 0.8765, snippet: 'getUserById returns\nthe user' });
        assert.equal(row.label, 'guide.md:3');
        assert.equal(row.detail, '0.88  getUserById returns  ·  the user');
    });
});

describe('the server\'s match marked in the detail line', () => {
    it('marks a regex match the typed text does not spell (the issue: [A-Z]+_RESUME showed nothing)', () => {
        const row = grepRow({ type: 'match', path: 'kernel/power.c', line: 7, column: 9, end_column: 18, text: '\tcase   PM_RESUME:', match_text: 'PM_RESUME' });
        assert.equal(row.detail, 'case   «PM_RESUME»:');
    });
    it('counts byte columns in UTF-8 (a multi-byte line)', () => {
        const text = 'naïve = "é→ü"; value = find_the_needle_here(42)';
        const col = Buffer.byteLength(text.slice(0, text.indexOf('find'))) + 1;
        const row = grepRow({ type: 'match', path: 'a.py', line: 1, column: col, end_column: col + 20, text });
        assert.equal(row.detail, 'naïve = "é→ü"; value = «find_the_needle_here»(42)');
    });
    it('marks the text result\'s highlights, not the typed words (scheduler_tick for "scheduler tick")', () => {
        const row = textRow({ path: 'kernel/sched/core.c', line: 5, score: 0.5, snippet: 'void scheduler_tick(void) 😀 tick', highlights: [{ start: 5, end: 19 }, { start: 28, end: 32 }] });
        assert.equal(row.detail, '0.50  void «scheduler_tick»(void) 😀 «tick»');
    });
    it('leaves out empty, overlapping and out-of-range ranges', () => {
        assert.equal(markRanges('abcdef', [[1, 3], [2, 4], [5, 5], [4, 99]]), 'a«bc»def');
        assert.equal(codePointToUtf16Offset('😀x', 1), 2);
    });
});

describe('summaries', () => {
    it('grep summary counts matches and files', () => {
        const s = summaryLine('grep', 2, { count: 2, files_matched: 1, files_scanned: 10, elapsed_ms: 12.4, truncated: false });
        assert.equal(s, '2 matches in 1 file · 10 files searched · 12 ms');
    });
    it('marks truncated and timed-out searches', () => {
        const s = summaryLine('files', 200, { total: 5000, truncated: true, timed_out: true });
        assert.equal(s, '5000 files (first 200 shown) (timed out)');
    });
    it('says when a text search stopped at its budget or scanned before the index was ready', () => {
        const s = summaryLine('text', 20, { total: 31, truncated: true, truncated_reason: 'scan_budget', source: 'scan' });
        assert.equal(s, '31 results (first 20 shown; the search stopped at its budget, more may exist) (index not ready: files scanned)');
    });
    it('index status reads the state first', () => {
        const s = indexStatusLine({ state: 'ready', files_indexed: 1234, bytes: 5 * 1024 * 1024, store_path: '/c/idx.db', store_size: 2048 });
        assert.equal(s, 'Sleuth index: ready · 1,234 files · 5.0 MB');
    });
    it('index status shows the build time in local time, not UTC ISO', () => {
        const now = new Date(2026, 10, 25, 21, 50);
        const built = new Date(2026, 10, 25, 21, 41).toISOString(); // "…T…Z" in UTC
        const s = indexStatusLine({ state: 'ready', files: 2, last_build: built }, now);
        assert.equal(s, 'Sleuth index: ready · 2 files · built today at 21:41 (9 minutes ago)');
    });
    it('puts the files searched against the workspace when the server knows its size', () => {
        // the issue: "13 of 86 files" counted the index's candidates, not the workspace
        const s = summaryLine('grep', 13, { count: 13, files_matched: 13, files_scanned: 86, files_in_workspace: 78123 });
        assert.equal(s, '13 matches in 13 files · 86 searched of 78,123 files in the workspace');
    });
});
