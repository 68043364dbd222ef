/**
 * The search view's results (pure, unit-tested): `sleuth.grep` events grouped by file in the order
 * the server sends them, each match line with its match ranges as UTF-16 highlight ranges of the
 * label the tree shows, and the view's one-line summary.
 *
 * The server's columns are 1-based UTF-8 byte offsets into the whole line; its `text` is the whole
 * line unless the line was longer than `max_columns`, in which case it is a window around the first
 * match marked with `…`, and the byte offsets no longer index it. Highlights are then found by the
 * matched text itself, searched left to right.
 */
import { GrepMatch, utf8ToUtf16Offset } from '../format';

/** One occurrence on a line: 1-based UTF-8 byte columns (end exclusive) and the matched text. */
export interface Span {
    column: number;
    endColumn: number;
    text: string;
}

/** A match or context line of a file. */
export interface ResultLine {
    kind: 'match' | 'context';
    /** 1-based line number */
    line: number;
    /** the line as the server sent it */
    text: string;
    /** occurrences on the line (empty for context lines, and for an empty match) */
    spans: Span[];
}

export interface FileGroup {
    path: string;
    lines: ResultLine[];
    /** occurrences in this file (a line with three matches counts three) */
    matches: number;
}

/** `{type, path, line, column, end_column, text, match_text, submatches?}` -> the line's spans. */
export function spansOf(e: GrepMatch & { submatches?: { column: number; end_column: number; match_text: string }[] }): Span[] {
    if (Array.isArray(e.submatches) && e.submatches.length > 0) {
        return e.submatches.map((s) => ({ column: s.column, endColumn: s.end_column, text: s.match_text ?? '' }));
    }
    if (e.column === undefined || e.end_column === undefined || e.end_column <= e.column) return [];
    return [{ column: e.column, endColumn: e.end_column, text: e.match_text ?? '' }];
}

/**
 * UTF-16 `[start, end)` ranges in `text` of the spans: by byte offset when the text there is the
 * matched text, else (a cut line) by searching the matched text left to right.
 */
export function highlightRanges(text: string, spans: readonly Span[]): [number, number][] {
    const out: [number, number][] = [];
    let from = 0;
    for (const s of spans) {
        const start = utf8ToUtf16Offset(text, s.column - 1);
        const end = utf8ToUtf16Offset(text, s.endColumn - 1);
        if (end > start && start >= from && text.slice(start, end) === s.text) {
            out.push([start, end]);
            from = end;
            continue;
        }
        if (s.text === '') continue;
        const at = text.indexOf(s.text, from);
        if (at < 0) continue;
        out.push([at, at + s.text.length]);
        from = at + s.text.length;
    }
    return out;
}

/**
 * At most this many characters are kept before the first match, cut at a word start (VS Code's own
 * search view keeps 26): in a side bar a row then shows its match, not the line's start.
 */
export const LEFT_CONTEXT = 26;
const MAX_LABEL = 250;

/**
 * The row label of a line, centred on its match as VS Code's search view does: indentation and
 * trailing blanks dropped, a line whose first match lies further right than LEFT_CONTEXT starting
 * at a word shortly before it (marked `…`), at most MAX_LABEL characters; highlights moved along and
 * clipped to what is shown.
 */
export function lineLabel(text: string, ranges: readonly [number, number][]): { label: string; highlights: [number, number][] } {
    const trimmedEnd = text.replace(/\s+$/, '');
    const lead = trimmedEnd.length - trimmedEnd.replace(/^\s+/, '').length;
    const firstAt = ranges.length > 0 ? ranges[0][0] : lead;
    let start = lead;
    if (firstAt - lead > LEFT_CONTEXT) {
        start = firstAt - LEFT_CONTEXT;
        // Start at a word: after the first blank in the window, when there is one before the match.
        const blank = trimmedEnd.slice(start, firstAt).search(/\s\S/);
        if (blank >= 0) start += blank + 1;
    }
    // Never start inside a surrogate pair.
    if (start > 0 && /[\udc00-\udfff]/.test(trimmedEnd[start] ?? '')) start--;
    const prefix = start > lead ? '…' : '';
    let end = Math.min(trimmedEnd.length, start + MAX_LABEL);
    if (end < trimmedEnd.length && /[\udc00-\udfff]/.test(trimmedEnd[end] ?? '')) end--;
    const suffix = end < trimmedEnd.length ? '…' : '';
    const label = prefix + trimmedEnd.slice(start, end) + suffix;
    const shift = prefix.length - start;
    const highlights: [number, number][] = [];
    for (const [s, e] of ranges) {
        const hs = Math.max(s, start) + shift;
        const he = Math.min(e, end) + shift;
        if (he > hs) highlights.push([hs, he]);
    }
    return { label, highlights };
}

/** What one batch changed: a file (new, or grown) and the index of its first line the batch added. */
export interface Delta {
    index: number;
    group: FileGroup;
    isNew: boolean;
    from: number;
}

/** Results of one search, grouped by file as they stream in. */
export class ResultModel {
    readonly files: FileGroup[] = [];
    private readonly byPath = new Map<string, FileGroup>();
    private readonly indexOf = new Map<FileGroup, number>();
    /** events taken (match and context lines: what `max_results` counts) */
    events = 0;
    /** occurrences over all files */
    matches = 0;

    /** Takes one batch of events; returns what it added, file by file in first-touched order. */
    add(batch: readonly unknown[]): Delta[] {
        const touched = new Map<FileGroup, Delta>();
        for (const raw of batch) {
            const e = raw as GrepMatch;
            if (!e || typeof e.path !== 'string' || typeof e.line !== 'number') continue;
            if (e.type !== 'match' && e.type !== 'context') continue;
            this.events++;
            let group = this.byPath.get(e.path);
            let isNew = false;
            if (!group) {
                group = { path: e.path, lines: [], matches: 0 };
                this.byPath.set(e.path, group);
                this.files.push(group);
                this.indexOf.set(group, this.files.length - 1);
                isNew = true;
            }
            if (!touched.has(group)) touched.set(group, { index: isNew ? this.files.length - 1 : this.indexOf.get(group) ?? -1, group, isNew, from: group.lines.length });
            const spans = e.type === 'match' ? spansOf(e) : [];
            group.lines.push({ kind: e.type, line: e.line, text: typeof e.text === 'string' ? e.text : '', spans });
            if (e.type === 'match') {
                const n = Math.max(1, spans.length);
                group.matches += n;
                this.matches += n;
            }
        }
        return [...touched.values()];
    }

    group(path: string): FileGroup | undefined {
        return this.byPath.get(path);
    }
}

function plural(n: number, one: string, many: string): string {
    return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** `12 results in 3 files`. */
export function countLine(model: ResultModel): string {
    return `${plural(model.matches, 'result', 'results')} in ${plural(model.files.length, 'file', 'files')}`;
}

/** The view's message once a search has answered (`summary`: the response without its events). */
export function doneLine(model: ResultModel, summary: Record<string, unknown>, canLoadMore: boolean): string {
    const parts = [countLine(model)];
    if (summary.truncated_reason === 'scan_budget') parts.push('(the search stopped at its budget; more may exist)');
    else if (summary.truncated) parts.push(canLoadMore ? '(more exist: Load more)' : '(more exist; at the limit)');
    if (summary.timed_out) parts.push('(timed out)');
    if (typeof summary.elapsed_ms === 'number') parts.push(`· ${Math.round(summary.elapsed_ms)} ms`);
    return parts.join(' ');
}

/**
 * F4 / Shift+F4: the match line after (before) `from` in `files`, wrapping around; from a file row,
 * its first match (or the previous file's last); with nothing chosen yet, the first (last) match.
 */
export function nextMatch(files: readonly FileGroup[], from: { group: FileGroup; line?: ResultLine } | undefined, forward: boolean): { group: FileGroup; line: ResultLine } | undefined {
    const all: { group: FileGroup; line: ResultLine }[] = [];
    let at = -1; // index in `all` of the position `from` stands at (between entries for a file row)
    for (const group of files) {
        if (from && from.group === group && !from.line) at = all.length - 0.5;
        for (const line of group.lines) {
            if (line.kind !== 'match') continue;
            if (from && from.line === line) at = all.length;
            all.push({ group, line });
        }
    }
    if (all.length === 0) return undefined;
    if (at === -1) return forward ? all[0] : all[all.length - 1];
    const next = forward ? Math.floor(at) + 1 : Math.ceil(at) - 1;
    return all[(next + all.length) % all.length];
}
