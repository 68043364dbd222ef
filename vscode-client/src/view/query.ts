/**
 * The search view's form (pattern, toggles, globs, file types, context) turned into the arguments of
 * `sleuth/grep` (pure, unit-tested). Globs are written as in VS Code's own search view: a comma
 * separated list where commas inside `{...}` belong to the glob.
 */
import { caseArg } from '../args';

/** What the form holds; the webview sends it whole on every change. */
export interface ViewQuery {
    pattern: string;
    replace: string;
    matchCase: boolean;
    wholeWord: boolean;
    regex: boolean;
    /** comma separated globs */
    include: string;
    exclude: string;
    /** comma or space separated file types (`py`, `.cs`) */
    types: string;
    /** context lines around each match (0: none) */
    context: number;
    /** Replace keeps each match's case (not part of the search) */
    preserveCase: boolean;
}

export const EMPTY_QUERY: ViewQuery = {
    pattern: '',
    replace: '',
    matchCase: false,
    wholeWord: false,
    regex: false,
    include: '',
    exclude: '',
    types: '',
    context: 0,
    preserveCase: false,
};

/** Patterns kept in the search history (per workspace), oldest first. */
export const HISTORY_SIZE = 50;

/** `history` with `pattern` as its newest entry (moved there when it was already in), at most HISTORY_SIZE long. */
export function pushHistory(history: readonly string[], pattern: string): string[] {
    if (pattern.trim() === '') return [...history];
    return [...history.filter((h) => h !== pattern), pattern].slice(-HISTORY_SIZE);
}

/** Matches loaded by one search before "Load more" is offered, the step of each "Load more", and the ceiling (the server's hard cap). */
export const FIRST_PAGE = 10_000;
export const PAGE_STEP = 10_000;
export const MAX_LOADED = 20_000;

/** `*.{ts,js}, src/**` -> [`*.{ts,js}`, `src/**`]: split on commas outside braces, trimmed, empties dropped. */
export function splitGlobs(text: string): string[] {
    const out: string[] = [];
    let depth = 0;
    let current = '';
    for (const ch of text) {
        if (ch === '{') depth++;
        else if (ch === '}' && depth > 0) depth--;
        if (ch === ',' && depth === 0) {
            out.push(current);
            current = '';
        } else current += ch;
    }
    out.push(current);
    return out.map((g) => g.trim()).filter((g) => g !== '');
}

/**
 * A glob as VS Code's search view reads it: a bare folder or file name (`src`, `node_modules`)
 * names that folder anywhere, so it becomes `name` plus `name/**`; anything else is passed as is
 * (the server's globs are gitignore-style, where `*.py` already matches at any depth).
 */
export function expandGlob(glob: string): string[] {
    const g = glob.replace(/^\.\//, '').replace(/\/+$/, '');
    if (g === '') return [];
    if (/[*?[{]/.test(g)) return [g];
    return [g, `${g}/**`];
}

/** `py, .cs ts` -> [`py`, `.cs`, `ts`]. */
export function splitTypes(text: string): string[] {
    return text.split(/[\s,]+/).map((t) => t.trim()).filter((t) => t !== '');
}

/** The form is searchable: a pattern that is not only blanks. */
export function isSearchable(q: ViewQuery): boolean {
    return q.pattern.trim() !== '';
}

/** Arguments of `sleuth/grep` for the form, asking for `maxResults` events. */
export function viewGrepArgs(q: ViewQuery, maxResults: number, configuredCase: unknown): Record<string, unknown> {
    const args: Record<string, unknown> = {
        pattern: q.pattern,
        fixed_strings: !q.regex,
        word: q.wholeWord,
        case: caseArg(q.matchCase, configuredCase),
        max_results: Math.min(maxResults, MAX_LOADED),
    };
    const include = splitGlobs(q.include).flatMap(expandGlob);
    const exclude = splitGlobs(q.exclude).flatMap(expandGlob);
    const types = splitTypes(q.types);
    if (include.length) args.include_globs = include;
    if (exclude.length) args.exclude_globs = exclude;
    if (types.length) args.file_types = types;
    if (q.context > 0) args.context = Math.min(Math.floor(q.context), 10);
    return args;
}

/** The query's part that decides which matches exist (so a replace text change does not re-search). */
export function searchKey(q: ViewQuery): string {
    return JSON.stringify([q.pattern, q.matchCase, q.wholeWord, q.regex, q.include, q.exclude, q.types, q.context]);
}
