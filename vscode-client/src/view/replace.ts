/**
 * Replace-with-preview's pure part (unit-tested): the text each match becomes, and the edits of one
 * file, located in the file's current text (its unsaved buffer when open) from the server's UTF-8
 * byte columns and checked against the matched text, so a file changed since the search is skipped
 * rather than edited in the wrong place.
 *
 * The replacement template follows ripgrep's `-r`: `$1`, `${1}`, `$name`, `${name}`, `$$` for a
 * dollar; a group that did not take part (or does not exist) is empty. With "Use Regular
 * Expression" off the replacement is taken literally, as in VS Code's own search view.
 *
 * Limitation: captures come from re-running the pattern as a JavaScript RegExp at the match's start
 * (Sleuth's regex syntax is Rust's, which JavaScript mostly shares; `(?P<name>…)` and a leading
 * `(?i)` are translated). A pattern JavaScript cannot compile is refused with a message, and a match
 * where JavaScript's match differs from the server's is skipped and counted, never guessed.
 *
 * The server's `engine/replace.py` expands the same templates for `sleuth grep -r`: two
 * implementations on purpose, one per language (the client needs it without a server round trip);
 * keep their rules the same.
 */
import { utf8ToUtf16Offset } from '../format';
import type { ResultLine } from './results';

export interface ReplaceSpec {
    /** the search pattern */
    pattern: string;
    /** the replacement text (a template when `regex`) */
    replace: string;
    regex: boolean;
    wholeWord: boolean;
    caseInsensitive: boolean;
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
    /** matches where the JavaScript regex did not match as the server did */
    disagree: number;
}

/** Groups of a regex match: numbered (0 = whole match) and named. */
export interface Groups {
    numbered: readonly (string | undefined)[];
    named?: Readonly<Record<string, string | undefined>>;
}

function groupValue(name: string, groups: Groups): string {
    if (/^[0-9]+$/.test(name)) return groups.numbered[Number(name)] ?? '';
    return groups.named?.[name] ?? '';
}

/** ripgrep's `-r` template expanded for one match: `$1`, `${1}`, `$name`, `${name}`, `$$`. */
export function expandTemplate(template: string, groups: Groups): string {
    let out = '';
    let i = 0;
    while (i < template.length) {
        const ch = template[i];
        if (ch !== '$') {
            out += ch;
            i++;
            continue;
        }
        const next = template[i + 1];
        if (next === '$') {
            out += '$';
            i += 2;
            continue;
        }
        if (next === '{') {
            const close = template.indexOf('}', i + 2);
            if (close > i + 2) {
                out += groupValue(template.slice(i + 2, close), groups);
                i = close + 1;
                continue;
            }
            out += '$';
            i++;
            continue;
        }
        const m = /^[_0-9A-Za-z]+/.exec(template.slice(i + 1));
        if (!m) {
            out += '$';
            i++;
            continue;
        }
        out += groupValue(m[0], groups);
        i += 1 + m[0].length;
    }
    return out;
}

/**
 * The pattern as a sticky JavaScript RegExp (`(?P<n>` -> `(?<n>`, a leading `(?i)` -> flag `i`;
 * whole word adds the word-boundary look-arounds ripgrep's `-w` implies). Throws with the
 * JavaScript engine's message when it cannot compile it.
 */
export function jsRegex(spec: Pick<ReplaceSpec, 'pattern' | 'wholeWord' | 'caseInsensitive'>): RegExp {
    let source = spec.pattern.replace(/\(\?P</g, '(?<');
    let insensitive = spec.caseInsensitive;
    const lead = /^\(\?i\)/.exec(source);
    if (lead) {
        insensitive = true;
        source = source.slice(lead[0].length);
    }
    const build = (unicode: boolean) => {
        const word = unicode ? '[\\p{L}\\p{N}\\p{Mn}\\p{Pc}]' : '\\w';
        const body = spec.wholeWord ? `(?<!${word})(?:${source})(?!${word})` : source;
        return new RegExp(body, `y${unicode ? 'u' : ''}${insensitive ? 'i' : ''}`);
    };
    try {
        return build(true);
    } catch {
        // Rust accepts escapes of any punctuation (`\-`, `\#`), which a `u` RegExp refuses.
        return build(false);
    }
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

/** The new text of the match of `matchText` at UTF-16 offset `start` of `lineText`, or undefined when JavaScript's regex disagrees. */
export function replacementAt(lineText: string, start: number, matchText: string, spec: ReplaceSpec, re?: RegExp): string | undefined {
    const cased = (text: string) => (spec.preserveCase ? preserveCase(matchText, text) : text);
    if (!spec.regex) return cased(spec.replace);
    const regex = re ?? jsRegex(spec);
    regex.lastIndex = start;
    const m = regex.exec(lineText);
    if (!m || m.index !== start || m[0] !== matchText) return undefined;
    return cased(expandTemplate(spec.replace, { numbered: [...m], named: m.groups }));
}

/** The edits of one file: `text` is its current content, `lines` its results (context lines are ignored). */
export function planFile(text: string, lines: readonly ResultLine[], spec: ReplaceSpec): FilePlan {
    const re = spec.regex ? jsRegex(spec) : undefined;
    const plan: FilePlan = { edits: [], stale: 0, disagree: 0 };
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
            if (end <= start || lineText.slice(start, end) !== span.text) {
                plan.stale++;
                continue;
            }
            const newText = replacementAt(lineText, start, span.text, spec, re);
            if (newText === undefined) {
                plan.disagree++;
                continue;
            }
            plan.edits.push({ line: l.line - 1, start, end, newText });
        }
    }
    return plan;
}
