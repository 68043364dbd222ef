/**
 * Server errors and empty results in words for people (pure, unit-tested). The server's errors are
 * written for API callers ("set fixed_strings", "Fix the argument named in the message and call
 * again"); the pickers show what went wrong, where in the pattern, and what to press instead.
 */

/** The `data` of a Sleuth JSON-RPC error (docs/SPEC.md §9). */
export interface ErrorData {
    code?: string;
    message?: string;
    hint?: string;
    position?: number;
    pattern?: string;
    retry_after_seconds?: number;
}

/** An error as a picker shows it: a one-line summary (title), the pattern with a pointer, a fix. */
export interface ShownError {
    summary: string;
    /** The pattern with POINTER at the error position and a note saying so (one line: the picker has
     *  no fixed-width font to put a `^` under the pattern). */
    pointed?: string;
    /** The pattern and a `^` under the error position, for a fixed-width place (the output channel). */
    pointer?: [string, string];
    /** What to do, one short sentence each (a picker shows each as a row). */
    fixes: string[];
}

/** Marks the position of a regex error in a pattern shown on one line. */
export const POINTER = '▸';

/** Hints written for programs, which a person has no use for. */
const API_HINTS = [/Fix the argument named in the message and call again\.?/g, /\s*or set fixed_strings to search for literal text\.?/g];

function firstLine(text: string): string {
    return text.split('\n')[0].trim();
}

/** `sleuth.grep: the pattern is …` -> `The pattern is …`. */
function withoutCommand(text: string): string {
    const t = text.replace(/^sleuth\.[a-z.]+:\s*/, '');
    return t.charAt(0).toUpperCase() + t.slice(1);
}

/**
 * A Sleuth error for a person. `regexToggleKey` names the key that turns regex search off, when
 * the error came from a picker that has one.
 */
export function describeError(data: ErrorData, regexToggleKey?: string): ShownError {
    const message = data.message ?? 'unknown error';
    const regex = /regex parse error(?: at position (\d+))?:\s*([^\n]*)/.exec(message);
    if (data.code === 'bad_args' && regex) {
        const reason = regex[2].trim() || 'the pattern is not a valid regular expression';
        const pattern = typeof data.pattern === 'string' ? data.pattern : undefined;
        const pos = typeof data.position === 'number' ? data.position : regex[1] !== undefined ? Number(regex[1]) : undefined;
        const shown: ShownError = { summary: `Invalid regular expression: ${reason}`, fixes: [] };
        if (pattern !== undefined && pos !== undefined && pos >= 0 && pos <= pattern.length) {
            const at = [...pattern].slice(0, pos).join('').length; // position counts characters (code points)
            const where = at >= pattern.length ? 'at the end' : `before character ${pos + 1}`;
            shown.pointed = `${pattern.slice(0, at)}${POINTER}${pattern.slice(at)}    (${POINTER} marks the problem, ${where})`;
            shown.pointer = [pattern, ' '.repeat([...pattern.slice(0, at)].length) + '^'];
        }
        shown.fixes.push('Put a backslash before a special character to match it as text: \\[ matches [, \\( matches (');
        shown.fixes.push(regexToggleKey
            ? `Or turn off Use Regular Expression (${regexToggleKey}) to search for the text as typed`
            : 'Or search without the regular expression option to find the text as typed');
        return shown;
    }
    let summary = withoutCommand(firstLine(message));
    for (const re of API_HINTS) summary = summary.replace(re, '').trim();
    const fixes: Record<string, string> = {
        index_not_ready: 'The index is still being built (see the Sleuth item in the status bar); try again when it is ready.',
        rate_limited: `Too many searches in a minute${typeof data.retry_after_seconds === 'number' ? `: wait ${Math.ceil(data.retry_after_seconds)} s` : ''}, or raise sleuth.nativeRateLimitPerMinute.`,
        timeout: 'Search a smaller part of the workspace, or raise sleuth.timeoutMs.',
        sandbox_violation: 'Only files inside the workspace folders can be searched.',
        backend_unavailable: 'Install the backend, or set sleuth.backend to "native".',
    };
    let fix = data.code ? fixes[data.code] : undefined;
    if (!fix && data.hint && !API_HINTS.some((re) => new RegExp(re.source).test(data.hint!))) fix = data.hint;
    return { summary, fixes: fix ? [fix] : [] };
}

/** The error as plain text lines, pointer under the pattern (output channel, notifications). */
export function errorLines(shown: ShownError): string[] {
    const lines = [shown.summary];
    if (shown.pointer) lines.push(`    ${shown.pointer[0]}`, `    ${shown.pointer[1]}`);
    lines.push(...shown.fixes);
    return lines;
}

/**
 * Whether a literal query that found nothing was probably meant as a regular expression: it has
 * an escape class (`\w`, `\d`, `\s`, `\b`, `\.`), a character class (`[A-Z]`), a repeated atom
 * (`.*`, `a+`, `)?`, `{2,3}`), an anchor at an end (`^foo`, `foo$`) or a group with alternatives.
 * Plain code is rarely all of these: `a+b`, `x*y`, `f(x)` and `arr[0]` are not flagged.
 */
export function looksLikeRegex(query: string): boolean {
    if (query.trim() === '') return false;
    return (
        /\\[wWdDsSbB.()[\]{}*+?|^$\\]/.test(query) || // an escape sequence
        /\[(\^)?[^\]\s]*-[^\]\s]*\]|\[\^[^\]]+\]|\[:[a-z]+:\]/.test(query) || // a range or negated class
        /\[[^\]]+\][*+?{]/.test(query) || // a repeated class
        /(^|[^\\])\.[*+?]/.test(query) || // .* .+ .?
        /[\w\])][+*?]$|[\w\])][+*?][\w\\([]/.test(query) && /[\\[(.]/.test(query) || // a quantifier among other regex syntax
        /\{\d+(,\d*)?\}/.test(query) || // {n} {n,m}
        /^\^\S|[^\\\s]\$$/.test(query) || // anchored
        /\([^()]*\|[^()]*\)/.test(query) // (a|b)
    );
}

/** The row shown when a literal grep found nothing but the query looks like a regex: a short label
 *  (the picker cuts long rows) and the explanation as its detail. */
export function regexHint(query: string, regexOn: boolean, found: number, toggleKey: string): { label: string; detail: string } | undefined {
    if (regexOn || found > 0 || !looksLikeRegex(query)) return undefined;
    return {
        label: `This looks like a regular expression: press ${toggleKey} to search with it`,
        detail: 'Nothing matches the text as typed. Choosing this row also turns Use Regular Expression on.',
    };
}
