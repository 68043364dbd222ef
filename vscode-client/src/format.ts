/**
 * Pure conversions from Sleuth's results to what the editor shows (no `vscode` import, unit-tested).
 *
 * Owns: UTF-8 byte columns -> UTF-16 character offsets, workspace-relative result paths -> file
 * system paths, and the label/description/detail of each picker row for grep, files and text
 * results, plus the one-line summaries (search footer, index status).
 */
import * as path from 'path';

/** One `{type: "match"}` event of `sleuth.grep` (SPEC §4); `column`/`end_column` are 1-based UTF-8 byte offsets. */
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
 * segment is the folder's name (SPEC §4). Returns undefined when no folder fits.
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

/**
 * Picker row of a grep match: `name:line` as label, the folder as description and the line as
 * detail, where the picker highlights the typed text (only label highlights would reorder rows).
 */
export function grepRow(m: GrepMatch): Row {
    const at = m.column !== undefined ? utf8ToUtf16Offset(m.text, m.column - 1) : 0;
    const [name, dir] = splitPath(m.path);
    return {
        label: `${name}:${m.line}`,
        description: dir,
        detail: excerpt(m.text, at),
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

/** Picker row of a ranked text result: `name:line`, the folder, then score and snippet as detail. */
export function textRow(r: TextResult): Row {
    const snippetLines = r.snippet.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    const [name, dir] = splitPath(r.path);
    return {
        label: `${name}:${r.line}`,
        description: dir,
        detail: `${r.score.toFixed(2)}  ${excerpt(snippetLines.join('  ·  '), 0)}`,
        path: r.path,
        line: r.line,
    };
}

/** One line under the picker once a grep/files/text search has answered. */
export function summaryLine(kind: 'grep' | 'files' | 'text', shown: number, summary: Record<string, unknown>): string {
    const parts: string[] = [];
    const noun = kind === 'grep' ? 'match' : kind === 'files' ? 'file' : 'result';
    const total = typeof summary.total === 'number' ? summary.total : typeof summary.count === 'number' ? summary.count : shown;
    parts.push(`${total} ${noun}${total === 1 ? '' : noun.endsWith('h') ? 'es' : 's'}`);
    if (typeof summary.files_matched === 'number' && typeof summary.files_scanned === 'number') {
        parts.push(`in ${summary.files_matched} of ${summary.files_scanned} file${summary.files_scanned === 1 ? '' : 's'}`);
    }
    if (summary.truncated_reason === 'scan_budget') parts.push(`(first ${shown} shown; the search stopped at its budget, more may exist)`);
    else if (summary.truncated) parts.push(`(first ${shown} shown)`);
    if (summary.timed_out) parts.push('(timed out)');
    if (summary.source === 'scan') parts.push('(index not ready: files scanned)');
    if (typeof summary.elapsed_ms === 'number') parts.push(`· ${Math.round(summary.elapsed_ms)} ms`);
    return parts.join(' ');
}

function humanBytes(n: unknown): string | undefined {
    if (typeof n !== 'number') return undefined;
    const units = ['B', 'KB', 'MB', 'GB'];
    let v = n;
    let u = 0;
    while (v >= 1024 && u < units.length - 1) {
        v /= 1024;
        u++;
    }
    return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

/** `sleuth.index.status` as one sentence, e.g. "Sleuth index: ready · 1,234 files · 5.6 MB · built …". */
export function indexStatusLine(status: Record<string, unknown>): string {
    const parts = [`Sleuth index: ${String(status.state ?? 'unknown')}`];
    const files = status.files_indexed ?? status.files;
    if (typeof files === 'number') parts.push(`${files.toLocaleString('en-US')} file${files === 1 ? '' : 's'}`);
    const bytes = humanBytes(status.bytes ?? status.bytes_indexed);
    if (bytes) parts.push(bytes);
    const pending = status.pending_updates ?? status.pending;
    if (typeof pending === 'number' && pending > 0) parts.push(`${pending} pending update${pending === 1 ? '' : 's'}`);
    const built = status.last_build_time ?? status.last_build ?? status.built_at;
    if (built !== undefined && built !== null) parts.push(`built ${String(built)}`);
    const store = status.store_path ?? status.path;
    if (typeof store === 'string') {
        const size = humanBytes(status.store_size ?? status.store_bytes);
        parts.push(`store ${store}${size ? ` (${size})` : ''}`);
    }
    return parts.join(' · ');
}
