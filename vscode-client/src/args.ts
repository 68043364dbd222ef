/**
 * Request arguments the pickers send (pure, unit-tested): the picker's text and toggles turned into
 * the named arguments of `sleuth/grep`, `sleuth/files` and `sleuth/text` (docs/SPEC.md §4).
 */

/** State of the Grep picker's toggle buttons. */
export interface GrepToggles {
    matchCase: boolean;
    wholeWord: boolean;
    regex: boolean;
}

/**
 * Match Case on -> `sensitive`; off -> the configured default (`sleuth.case`) unless that is
 * `sensitive`, in which case off means `insensitive`.
 */
export function caseArg(matchCase: boolean, configured: unknown): 'smart' | 'sensitive' | 'insensitive' {
    if (matchCase) return 'sensitive';
    if (configured === 'insensitive') return 'insensitive';
    if (configured === 'sensitive') return 'insensitive';
    return 'smart';
}

export function grepArgs(pattern: string, toggles: GrepToggles, maxResults: number, configuredCase: unknown): Record<string, unknown> {
    return {
        pattern,
        fixed_strings: !toggles.regex,
        word: toggles.wholeWord,
        case: caseArg(toggles.matchCase, configuredCase),
        max_results: maxResults,
        max_matches_per_file: Math.min(maxResults, 50),
    };
}

/** A query with a glob character is a glob list (space separated), otherwise a Quick-Open fuzzy query. */
export function filesArgs(query: string, maxResults: number): Record<string, unknown> {
    const trimmed = query.trim();
    if (/[*?[]/.test(trimmed)) return { patterns: trimmed.split(/\s+/), max_results: maxResults };
    return { query: trimmed, max_results: maxResults };
}

export function textArgs(query: string, maxResults: number): Record<string, unknown> {
    return { query: query.trim(), max_results: Math.max(20, Math.min(100, Math.round(maxResults / 10))) };
}

/** Name of the language-model tool (`sleuth_<profile>_<tool>`) -> Sleuth tool name (`profile.tool`). */
export function toolCallName(lmToolName: string): string | undefined {
    const m = /^sleuth_([a-z0-9]+)_(.+)$/.exec(lmToolName);
    return m ? `${m[1]}.${m[2]}` : undefined;
}

/** Sleuth tool name (`profile.tool`) -> language-model tool name (only `[A-Za-z0-9_-]`). */
export function lmToolName(sleuthName: string): string {
    return 'sleuth_' + sleuthName.replace(/\./, '_').replace(/[^A-Za-z0-9_-]/g, '_');
}
