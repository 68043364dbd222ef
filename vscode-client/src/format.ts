/**
 * Pure conversions from Sleuth's results to what the editor shows (no `vscode` import, unit-tested).
 *
 * Owns: UTF-8 byte columns -> UTF-16 character offsets, workspace-relative result paths -> file
 * system paths, and the label/description/detail of each picker row for grep, files and text
 * results, plus the one-line summaries (search footer, index status).
 */
import * as path from 'path';
import { humanBytes, localTime } from './status';

/** One `{type: "match"}` event of `sleuth.grep` (docs/SPEC.md §4); `column`/`end_column` are 1-based UTF-8 byte offsets. */
export interface GrepMatch {
    type: 'match' | 'context';
    path: string;
    line: number;
    column?: number;
    end_column?: number;
    text: string;
    match_text?: string;
    score?: number;
}

/** One item of `sleuth.files`. */
export interface FileItem {
    path: string;
    size?: number;
    modified?: number | string;
    score?: number;
}

/** One result of `sleuth.text`. */
export interface TextResult {
    path: string;
    line: number;
    score: number;
    snippet: string;
    highlights?: unknown;
    context?: { before?: string[] | string; after?: string[] | string };
}

/** What a picker row needs: the shown strings, and where accepting it goes. */
export interface Row {
    label: string;
    description?: string;
    detail?: string;
    /** workspace-relative path as the server sent it */
    path: string;
    /** 1-based line, absent for file results */
    line?: number;
    /** 1-based UTF-8 byte columns (end exclusive) of the match on that line */
    column?: number;
    endColumn?: number;
}

export interface Folder {
    name: string;
    fsPath: string;
}

/** Bytes that the UTF-8 encoding of code point `cp` takes. */
function utf8Length(cp: number): number {
    if (cp < 0x80) return 1;
    if (cp < 0x800) return 2;
    if (cp < 0x10000) return 3;
    return 4;
}

/**
 * The UTF-16 offset in `line` of UTF-8 byte offset `byteOffset` (both 0-based).
 * An offset inside a multi-byte character maps to that character's start; past the end, to the end.
 * Lone surrogates count as U+FFFD (3 bytes), which is what the server saw after decoding.
 */
export function utf8ToUtf16Offset(line: string, byteOffset: number): number {
    if (byteOffset <= 0) return 0;
    let bytes = 0;
    let i = 0;
    while (i < line.length) {
        const cp = line.codePointAt(i)!;
        const isPair = cp > 0xffff;
        const width = cp >= 0xd800 && cp <= 0xdfff ? 3 : utf8Length(cp);
        if (bytes + width > byteOffset) return i;
        bytes += width;
        i += isPair ? 2 : 1;
        if (bytes === byteOffset) return i;
    }
    return line.length;
}

/** Editor range (0-based line, UTF-16 start/end) of a match given its 1-based byte columns and the line's text. */
export function matchRange(lineText: string, line: number, column?: number, endColumn?: number): { line: number; start: number; end: number } {
    const start = column !== undefined ? utf8ToUtf16Offset(lineText, column - 1) : 0;
    const end = endColumn !== undefined ? utf8ToUtf16Offset(lineText, endColumn - 1) : start;
    return { line: Math.max(0, line - 1), start, end: Math.max(start, end) };
}

/**
 * The file a result path names. With one folder, paths are relative to it; with several, the first
 * segment is the folder's name (docs/SPEC.md §4). Returns undefined when no folder fits.
 */
export function resolveResultPath(resultPath: string, folders: readonly Folder[]): string | undefined {
    if (folders.length === 0) return path.isAbsolute(resultPath) ? resultPath : undefined;
    if (path.isAbsolute(resultPath)) return resultPath;
    const parts = resultPath.split('/');
    if (folders.length > 1) {
        const folder = folders.find((f) => f.name === parts[0]);
        if (folder) return path.join(folder.fsPath, ...parts.slice(1));
    }
    return path.join(folders[0].fsPath, ...parts);
}

const MAX_LABEL = 160;
/** Characters kept before the match when the line is cut (as VS Code's search view does). */
const LEFT_CONTEXT = 30;

/**
 * `text` trimmed for one picker row with the character at `at` visible: leading indentation
 * dropped, and a line whose match lies further right than LEFT_CONTEXT characters starts
 * shortly before it (marked `…`), since the picker cuts long rows on the right.
 */
export function excerpt(text: string, at: number): string {
    const trimmed = text.replace(/\s+$/, '');
    const lead = trimmed.length - trimmed.replace(/^\s+/, '').length;
    const start = at - lead > LEFT_CONTEXT + 10 ? at - LEFT_CONTEXT : lead;
    const body = trimmed.slice(start, start + MAX_LABEL);
    return (start > lead ? '…' : '') + body + (start + MAX_LABEL < trimmed.length ? '…' : '');
}

/** `a/b/c.py` -> [`c.py`, `a/b`]. */
export function splitPath(p: string): [string, string] {
    const slash = p.lastIndexOf('/');
    return slash >= 0 ? [p.slice(slash + 1), p.slice(0, slash)] : [p, ''];
}

/** Marks around the server's match in a picker row's detail line: the QuickPick API highlights only
 *  what VS Code's own filter matched of the typed text, never a range the extension names. */
export const MATCH_OPEN = '«';
export const MATCH_CLOSE = '»';

/**
 * `text` with MATCH_OPEN/MATCH_CLOSE around each `[start, end)` range (UTF-16 offsets); ranges that
 * are empty, out of bounds or overlap an earlier one are left out.
 */
export function markRanges(text: string, ranges: readonly (readonly [number, number])[]): string {
    const kept: [number, number][] = [];
    for (const [s, e] of [...ranges].sort((a, b) => a[0] - b[0])) {
        if (s < 0 || e > text.length || e <= s) continue;
        if (kept.length > 0 && s < kept[kept.length - 1][1]) continue;
        kept.push([s, e]);
    }
    let out = text;
    for (const [s, e] of kept.reverse()) out = out.slice(0, s) + MATCH_OPEN + out.slice(s, e) + MATCH_CLOSE + out.slice(e);
    return out;
}

/** UTF-16 offset of code-point offset `cp` in `text` (Python's string offsets, as `sleuth.text` highlights use). */
export function codePointToUtf16Offset(text: string, cp: number): number {
    let i = 0;
    for (let n = 0; n < cp && i < text.length; n++) i += (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    return i;
}

/**
 * Picker row of a grep match: `name:line` as label, the folder as description and the line as
 * detail, with the server's match between MATCH_OPEN and MATCH_CLOSE.
 */
export function grepRow(m: GrepMatch): Row {
    const at = m.column !== undefined ? utf8ToUtf16Offset(m.text, m.column - 1) : 0;
    const end = m.end_column !== undefined ? utf8ToUtf16Offset(m.text, m.end_column - 1) : at;
    const [name, dir] = splitPath(m.path);
    return {
        label: `${name}:${m.line}`,
        description: dir,
        detail: excerpt(m.column !== undefined ? markRanges(m.text, [[at, end]]) : m.text, at),
        path: m.path,
        line: m.line,
        column: m.column,
        endColumn: m.end_column,
    };
}

/** Picker row of a file: its name as label, its folder as description (Quick Open's layout). */
export function fileRow(f: FileItem): Row {
    const [name, dir] = splitPath(f.path);
    return { label: name, description: dir, path: f.path };
}

/** The `highlights` of a text result as UTF-16 ranges of its snippet. */
function textHighlights(r: TextResult): [number, number][] {
    if (!Array.isArray(r.highlights)) return [];
    const out: [number, number][] = [];
    for (const h of r.highlights as unknown[]) {
        const { start, end } = (h ?? {}) as { start?: unknown; end?: unknown };
        if (typeof start === 'number' && typeof end === 'number') {
            out.push([codePointToUtf16Offset(r.snippet, start), codePointToUtf16Offset(r.snippet, end)]);
        }
    }
    return out;
}

/** Picker row of a ranked text result: `name:line`, the folder, then score and snippet (the server's
 *  highlights marked) as detail. */
export function textRow(r: TextResult): Row {
    const snippetLines = markRanges(r.snippet, textHighlights(r)).split('\n').map((l) => l.trim()).filter((l) => l !== '');
    const [name, dir] = splitPath(r.path);
    return {
        label: `${name}:${r.line}`,
        description: dir,
        detail: `${r.score.toFixed(2)}  ${excerpt(snippetLines.join('  ·  '), 0)}`,
        path: r.path,
        line: r.line,
    };
}

function plural(n: number, noun: string): string {
    return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

/** One line under the picker once a grep/files/text search has answered. */
export function summaryLine(kind: 'grep' | 'files' | 'text', shown: number, summary: Record<string, unknown>): string {
    const parts: string[] = [];
    const noun = kind === 'grep' ? 'match' : kind === 'files' ? 'file' : 'result';
    const total = typeof summary.total === 'number' ? summary.total : typeof summary.count === 'number' ? summary.count : shown;
    parts.push(`${total} ${noun}${total === 1 ? '' : noun.endsWith('h') ? 'es' : 's'}`);
    if (typeof summary.files_matched === 'number') parts.push(`in ${plural(summary.files_matched, 'file')}`);
    if (typeof summary.files_scanned === 'number') {
        // files_scanned counts the files read, which with the index is only its candidates: put it
        // against the workspace (the index's count) when the server knows it.
        const all = summary.files_in_workspace;
        parts.push(typeof all === 'number' ? `· ${summary.files_scanned.toLocaleString('en-US')} searched of ${plural(all, 'file')} in the workspace`
            : `· ${plural(summary.files_scanned, 'file')} searched`);
    }
    if (summary.truncated_reason === 'scan_budget') parts.push(`(first ${shown} shown; the search stopped at its budget, more may exist)`);
    else if (summary.truncated) parts.push(`(first ${shown} shown)`);
    if (summary.timed_out) parts.push('(timed out)');
    if (summary.source === 'scan') parts.push('(index not ready: files scanned)');
    if (typeof summary.elapsed_ms === 'number') parts.push(`· ${Math.round(summary.elapsed_ms)} ms`);
    return parts.join(' ');
}

/** `sleuth.index.status` as one sentence, e.g. "Sleuth index: ready · 1,234 files · 5.6 MB · built today at 21:41 (just now)"
 *  (local time; the store's folder is on the status page, not in a notification). */
export function indexStatusLine(status: Record<string, unknown>, now: Date = new Date()): string {
    const parts = [`Sleuth index: ${String(status.state ?? 'unknown')}`];
    const files = status.files_indexed ?? status.files;
    if (typeof files === 'number') parts.push(plural(files, 'file'));
    const bytes = humanBytes(status.bytes ?? status.bytes_indexed);
    if (bytes) parts.push(bytes);
    const pending = status.pending_updates ?? status.pending;
    if (typeof pending === 'number' && pending > 0) parts.push(plural(pending, 'pending update'));
    const built = localTime(status.last_build ?? status.last_build_time ?? status.built_at, now);
    if (built) parts.push(`built ${built}`);
    return parts.join(' · ');
}
