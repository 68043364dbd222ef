/**
 * Settings resolution (pure, unit-tested): which interpreter runs the server, and which `sleuth.*`
 * settings the server receives through `workspace/configuration`.
 *
 * Only settings a user actually set (user, workspace or folder level) are sent, so the server's own
 * precedence (defaults <- `.agent/config.yml` <- initializationOptions <- workspace/configuration,
 * docs/SPEC.md §10) still lets a workspace file win over VS Code's defaults. Client-only settings
 * (interpreter, picker tuning, trace) never reach the server.
 */
import * as os from 'os';

/** `sleuth.*` keys (below the section) the server understands; nested keys use dots. */
export const SERVER_KEYS: readonly string[] = [
    'case',
    'contextLines',
    'respectGitignore',
    'hidden',
    'follow',
    'timeoutMs',
    'maxTimeoutMs',
    'maxColumns',
    'defaultMaxResults',
    'textDefaultMaxResults',
    'maxResults',
    'maxMatchesPerFile',
    'maxFiles',
    'maxFileSizeBytes',
    'maxDepth',
    'maxPatternLength',
    'maxPatterns',
    'backend',
    'fuzzyThreshold',
    'rateLimit.enabled',
    'rateLimit.perMinute',
    'rateLimit.perTool',
    'nativeRateLimitPerMinute',
    'redaction',
    'denyGlobs',
    'index.enabled',
    'index.path',
    'logLevel',
    'logFile',
    'tools.profile',
    'maxOutputBytes',
];

/** Keys only the client reads; a change to `interpreter` restarts the server. */
export const CLIENT_KEYS: readonly string[] = ['interpreter', 'search.debounceMs', 'search.maxResults', 'trace.server'];

/** What `WorkspaceConfiguration.inspect` returns, reduced to the levels a user sets. */
export interface Inspected {
    globalValue?: unknown;
    workspaceValue?: unknown;
    workspaceFolderValue?: unknown;
}

/** The value a user set for a key, most specific level first; undefined when only the default applies. */
export function explicitValue(inspected: Inspected | undefined): unknown {
    if (!inspected) return undefined;
    for (const v of [inspected.workspaceFolderValue, inspected.workspaceValue, inspected.globalValue]) {
        if (v !== undefined) return v;
    }
    return undefined;
}

/**
 * The object answered for `workspace/configuration` section `sleuth`: explicitly set server keys,
 * nested on their dots (`index.enabled` -> `{index: {enabled}}`), null values dropped.
 */
export function serverSettings(inspect: (key: string) => Inspected | undefined): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const key of SERVER_KEYS) {
        const value = explicitValue(inspect(key));
        if (value === undefined || value === null) continue;
        const parts = key.split('.');
        let node = out;
        for (const part of parts.slice(0, -1)) {
            if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
            node = node[part] as Record<string, unknown>;
        }
        node[parts[parts.length - 1]] = value;
    }
    return out;
}

/** Variables that `sleuth.interpreter` entries may use. */
export interface Variables {
    workspaceFolder?: string;
    userHome?: string;
}

/** `${workspaceFolder}`, `${userHome}` and a leading `~` replaced; unknown variables left as written. */
export function substitute(value: string, vars: Variables): string {
    const home = vars.userHome ?? os.homedir();
    let out = value.replace(/\$\{(workspaceFolder|userHome)\}/g, (whole, name: string) => {
        const v = name === 'workspaceFolder' ? vars.workspaceFolder : home;
        return v ?? whole;
    });
    if (out === '~' || out.startsWith('~/')) out = home + out.slice(1);
    return out;
}

/** Where the interpreter came from, for the log and for error messages. */
export type InterpreterSource = 'setting' | 'python-extension' | 'default' | 'own';

export interface Interpreter {
    command: string[];
    source: InterpreterSource;
}

/**
 * The command that runs Python: the `sleuth.interpreter` setting when non-empty, else the Python
 * extension's selected interpreter, else `python3`.
 */
export function resolveInterpreter(setting: unknown, fromPythonExtension: string[] | undefined, vars: Variables): Interpreter {
    if (Array.isArray(setting)) {
        const parts = setting.filter((p): p is string => typeof p === 'string' && p.trim() !== '');
        if (parts.length > 0) return { command: parts.map((p) => substitute(p, vars)), source: 'setting' };
    } else if (typeof setting === 'string' && setting.trim() !== '') {
        return { command: [substitute(setting.trim(), vars)], source: 'setting' };
    }
    if (fromPythonExtension && fromPythonExtension.length > 0 && fromPythonExtension[0]) {
        return { command: fromPythonExtension, source: 'python-extension' };
    }
    return { command: ['python3'], source: 'default' };
}

/** The arguments appended to the interpreter to start the server (stdio). */
export const SERVER_ARGS: readonly string[] = ['-m', 'sleuth', 'serve'];

/** A shell-quoted command line, for messages a user may copy. */
export function shellQuote(command: readonly string[]): string {
    return command.map((p) => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** The message (and the fix) shown when the interpreter cannot run Sleuth. */
export function missingSleuthMessage(interp: Interpreter, failure: 'not-found' | 'no-sleuth' | 'too-old', detail: string): string {
    const py = shellQuote(interp.command);
    const where =
        interp.source === 'setting'
            ? 'set in sleuth.interpreter'
            : interp.source === 'python-extension'
              ? "selected in the Python extension"
              : interp.source === 'own'
                ? "Sleuth's own environment"
                : 'the default, python3';
    if (failure === 'not-found') {
        return `Sleuth cannot start: the Python interpreter "${py}" (${where}) was not found (${detail}). Fix: set "sleuth.interpreter" to a Python 3.11+ that has Sleuth installed, e.g. ["/path/to/venv/bin/python"].`;
    }
    if (failure === 'too-old') {
        return `Sleuth cannot start: "${py}" (${where}) is older than Python 3.11 (${detail}). Fix: set "sleuth.interpreter" to a Python 3.11+ with Sleuth installed.`;
    }
    return `Sleuth cannot start: the Python "${py}" (${where}) does not have Sleuth installed (${detail}). Fix: run "${py} -m pip install sleuth" (from a checkout: "${py} -m pip install -e <checkout>"), or set "sleuth.interpreter" to a Python that has it.`;
}
