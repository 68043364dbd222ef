/**
 * Replace-with-preview's pure part (unit-tested): the text each match becomes, and the edits of one
 * file, located in the file's current text (its unsaved buffer when open) from the server's UTF-8
 * byte columns and checked against the matched text, so a file changed since the search is skipped
 * rather than edited in the wrong place.
 *
 * With "Use Regular Expression" on, the replacement is a template of ripgrep's `-r` (`$1`, `${name}`,
 * `$$`), and the server expands it: the view sends the shown search again with `replace` and takes
 * each match's `match_replacements` (the server's `engine/replace.py` is the one implementation, and
 * the captures come from the same regex engine that found the match). With it off, the replacement
 * is taken literally, as in VS Code's own search view. Preserve Case is VS Code's, applied here.
 */
import { utf8ToUtf16Offset } from '../format';
import { spansOf, type ResultLine } from './results';

export interface ReplaceSpec {
    /** the search pattern */
    pattern: string;
    /** the replacement text (a template when `regex`) */
    replace: string;
    regex: boolean;
    /** keep the matched text's case in the replacement (VS Code's Preserve Case) */
    preserveCase?: boolean;
}

/** One edit: 0-based line, UTF-16 columns, the new text. */
export interface LineEdit {
    line: number;
    start: number;
    end: number;
    newText: string;
}

export interface FilePlan {
    edits: LineEdit[];
    /** matches whose text is no longer where the search found it (the file changed since) */
    stale: number;
}

/**
 * The server's replacement of each match of a file, by its 1-based line, 1-based UTF-8 byte column
 * and matched text (a match the server no longer finds there has none: the file changed).
 */
export type Replacements = ReadonlyMap<string, string>;

function replacementKey(line: number, column: number, text: string): string {
    return `${line}:${column}:${text}`;
}

/**
 * The replacements in `sleuth.grep` events that were asked with `replace`, by file path: each
 * match's `match_replacements` paired in order with its spans (its submatches, else the match).
 */
export function serverReplacements(events: readonly unknown[]): Map<string, Map<string, string>> {
    const byPath = new Map<string, Map<string, string>>();
    for (const raw of events) {
        const e = raw as Parameters<typeof spansOf>[0] & { match_replacements?: unknown };
        const replaced = e?.match_replacements;
        if (!e || e.type !== 'match' || typeof e.path !== 'string' || !Array.isArray(replaced)) continue;
        const spans = spansOf(e);
        if (spans.length !== replaced.length) continue; // not one per match: take none rather than guess
        let file = byPath.get(e.path);
        if (!file) byPath.set(e.path, (file = new Map()));
        spans.forEach((s, i) => file!.set(replacementKey(e.line, s.column, s.text), String(replaced[i])));
    }
    return byPath;
}

/**
 * `replacement` in the case of `matched`, as VS Code's Preserve Case does: all upper case, all lower
 * case, a capital first letter, and the same per part when both are split alike by `-` or `_`
 * (`foo-bar` -> `Foo-Bar` for `Abc-Def`); any other mix leaves the replacement as typed.
 */
export function preserveCase(matched: string, replacement: string): string {
    if (matched === '' || replacement === '') return replacement;
    const hasLetters = /\p{L}/u.test(matched);
    if (hasLetters && matched === matched.toUpperCase() && matched !== matched.toLowerCase()) return replacement.toUpperCase();
    if (hasLetters && matched === matched.toLowerCase() && matched !== matched.toUpperCase()) return replacement.toLowerCase();
    for (const sep of ['-', '_']) {
        const ms = matched.split(sep);
        const rs = replacement.split(sep);
        if (ms.length > 1 && ms.length === rs.length) return rs.map((r, i) => preserveCase(ms[i], r)).join(sep);
    }
    const first = matched[0];
    if (first !== first.toLowerCase() && first === first.toUpperCase()) return replacement[0].toUpperCase() + replacement.slice(1);
    return replacement;
}

/**
 * The edits of one file: `text` is its current content, `lines` its results (context lines are
 * ignored), `replacements` the server's for this file when the spec is a regex template.
 */
export function planFile(text: string, lines: readonly ResultLine[], spec: ReplaceSpec, replacements?: Replacements): FilePlan {
    const plan: FilePlan = { edits: [], stale: 0 };
    const cased = (matched: string, replacement: string) => (spec.preserveCase ? preserveCase(matched, replacement) : replacement);
    let fileLines: string[] | undefined;
    for (const l of lines) {
        if (l.kind !== 'match') continue;
        fileLines ??= text.split('\n');
        const raw = fileLines[l.line - 1];
        for (const span of l.spans) {
            if (raw === undefined) {
                plan.stale++;
                continue;
            }
            const lineText = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
            const start = utf8ToUtf16Offset(lineText, span.column - 1);
            const end = utf8ToUtf16Offset(lineText, span.endColumn - 1);
            const replacement = spec.regex ? replacements?.get(replacementKey(l.line, span.column, span.text)) : spec.replace;
            if (end <= start || lineText.slice(start, end) !== span.text || replacement === undefined) {
                plan.stale++;
                continue;
            }
            plan.edits.push({ line: l.line - 1, start, end, newText: cased(span.text, replacement) });
        }
    }
    return plan;
}
