/**
 * The index status for people (pure, unit-tested): the status bar item's text and tooltip, and the
 * status page, from `sleuth.index.status` (docs/SPEC.md §4, §7). Times are shown in local time and sizes
 * in KB/MB/GB; the server's UTC ISO timestamps and byte counts are for programs.
 */

/** What `sleuth.index.status` answers (only what is shown here). */
export interface IndexStatus {
    state?: string;
    files?: number;
    bytes?: number;
    pending_updates?: number;
    rebuilding?: boolean;
    open_buffers?: number;
    store_path?: string | null;
    store_bytes?: number;
    garbage_rows?: number;
    last_build?: string | null;
    last_build_seconds?: number | null;
    error?: string | null;
    watcher?: { state?: string; error?: string | null; overflows?: number } | null;
}

/** The status bar item: `text` may hold `$(codicon)`s; `warning`/`error` pick its background. */
export interface StatusBarView {
    text: string;
    tooltip: string;
    severity: 'ok' | 'busy' | 'warning' | 'error';
}

/** `1536` -> `1.5 KB`; undefined for a non-number. */
export function humanBytes(n: unknown): string | undefined {
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

const count = (n: number, noun: string) => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
const pad2 = (n: number) => String(n).padStart(2, '0');

/**
 * An ISO timestamp as local time: `today at 21:41`, `yesterday at 09:05`, else `2026-11-20 21:41`,
 * followed by how long ago (`5 minutes ago`); undefined when `iso` is not a date.
 */
export function localTime(iso: unknown, now: Date = new Date()): string | undefined {
    if (typeof iso !== 'string' || iso === '') return undefined;
    const t = new Date(iso);
    if (Number.isNaN(t.getTime())) return undefined;
    const day = (d: Date) => `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
    const clock = `${pad2(t.getHours())}:${pad2(t.getMinutes())}`;
    const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
    const when = day(t) === day(now) ? `today at ${clock}` : day(t) === day(yesterday) ? `yesterday at ${clock}` : `${day(t)} ${clock}`;
    return `${when} (${ago(now.getTime() - t.getTime())})`;
}

/** `42 s` -> `just now`, minutes, hours, days. */
export function ago(ms: number): string {
    const s = Math.round(ms / 1000);
    if (s < 60) return s < 0 ? 'in the future' : 'just now';
    const m = Math.round(s / 60);
    if (m < 60) return `${count(m, 'minute')} ago`;
    const h = Math.round(m / 60);
    if (h < 48) return `${count(h, 'hour')} ago`;
    return `${count(Math.round(h / 24), 'day')} ago`;
}

/** `35.2` seconds -> `35 s`, `125` -> `2 min 5 s`. */
export function duration(seconds: unknown): string | undefined {
    if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return undefined;
    if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
    const s = Math.round(seconds);
    return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}

/** One sentence for the state, as a person asks "can I search?". */
export function stateSentence(st: IndexStatus): string {
    switch (st.state) {
        case 'ready':
            return 'ready: searches use the index';
        case 'stale':
            return `ready, catching up with ${count(st.pending_updates ?? 0, 'changed file')} (searched from disk meanwhile)`;
        case 'building':
            return st.rebuilding ? 'rebuilding: searches use the previous index meanwhile' : 'building: searches read the files meanwhile';
        case 'loading':
            return 'opening the saved index';
        case 'absent':
            return 'not built yet: searches read the files';
        case 'error':
            return 'failed: searches read the files';
        case 'disabled':
            return 'off (sleuth.index.enabled is false): searches read the files, Search Text is unavailable';
        default:
            return st.state ? `${st.state}` : 'unknown';
    }
}

/** The status bar item for a status, or for a server that is not running (`serverError`). */
export function statusBarView(st: IndexStatus | undefined, serverError?: string, now: Date = new Date()): StatusBarView {
    if (!st) {
        return serverError
            ? { text: '$(error) Sleuth', tooltip: `Sleuth is not running: ${serverError}\n\nClick for details.`, severity: 'error' }
            : { text: '$(sync~spin) Sleuth', tooltip: 'Sleuth is starting.', severity: 'busy' };
    }
    const lines = [`Sleuth index: ${stateSentence(st)}`];
    if (typeof st.files === 'number' && st.state !== 'disabled') {
        const size = humanBytes(st.bytes);
        lines.push(`${count(st.files, 'file')}${size ? ` (${size} of text)` : ''}`);
    }
    const built = localTime(st.last_build, now);
    if (built) lines.push(`Last built ${built}${duration(st.last_build_seconds) ? `, in ${duration(st.last_build_seconds)}` : ''}`);
    const store = humanBytes(st.store_bytes);
    if (store && st.store_bytes) lines.push(`Index size on disk: ${store}`);
    if (st.error) lines.push(`Error: ${st.error}`);
    if (st.watcher?.error) lines.push(`File watcher: ${st.watcher.error}`);
    lines.push('', 'Click for the full index status.');
    const tooltip = lines.join('\n');
    const files = typeof st.files === 'number' ? ` ${st.files.toLocaleString('en-US')} files` : '';
    switch (st.state) {
        case 'ready':
            return { text: `$(database) Sleuth${files}`, tooltip, severity: 'ok' };
        case 'stale':
            return { text: `$(sync) Sleuth${files}`, tooltip, severity: 'ok' };
        case 'building':
        case 'loading':
        case 'absent':
            return { text: '$(sync~spin) Sleuth indexing', tooltip, severity: 'busy' };
        case 'disabled':
            return { text: '$(circle-slash) Sleuth: no index', tooltip, severity: 'ok' };
        case 'error':
            return { text: '$(warning) Sleuth index', tooltip, severity: 'warning' };
        default:
            return { text: `$(question) Sleuth index`, tooltip, severity: 'warning' };
    }
}

/** The status page: Markdown that also reads well as plain text (a read-only document). */
export function statusPage(st: IndexStatus, now: Date = new Date()): string {
    const rows: [string, string][] = [['State', stateSentence(st)]];
    if (typeof st.files === 'number') rows.push(['Files indexed', count(st.files, 'file')]);
    if (typeof st.bytes === 'number') rows.push(['Text indexed', humanBytes(st.bytes) ?? '']);
    if (typeof st.pending_updates === 'number') rows.push(['Changed files waiting', st.pending_updates === 0 ? 'none' : count(st.pending_updates, 'file')]);
    if (typeof st.open_buffers === 'number' && st.open_buffers > 0) rows.push(['Unsaved editors searched', count(st.open_buffers, 'editor')]);
    const built = localTime(st.last_build, now);
    rows.push(['Last built', built ? `${built}${duration(st.last_build_seconds) ? `, in ${duration(st.last_build_seconds)}` : ''}` : 'never']);
    if (typeof st.store_bytes === 'number') rows.push(['Size on disk', humanBytes(st.store_bytes) ?? '']);
    if (st.watcher) {
        const w = st.watcher;
        rows.push(['File watcher', `${w.state ?? 'unknown'}${w.overflows ? ` (${count(w.overflows, 'overflow')}: rescanned)` : ''}${w.error ? `: ${w.error}` : ''}`]);
    } else if (st.state !== 'disabled') rows.push(['File watcher', 'none (changes are picked up by the periodic rescan)']);
    if (st.store_path) rows.push(['Stored in', `\`${st.store_path}\``]);
    const width = Math.max(...rows.map(([k]) => k.length));
    const out = ['# Sleuth index status', '', `As of ${localTime(now.toISOString(), now)?.replace(/ \(.*\)$/, '')}.`, ''];
    out.push(...rows.map(([k, v]) => `- **${k}**:${' '.repeat(width - k.length + 1)}${v}`));
    if (st.error) out.push('', '## Error', '', '```', st.error, '```');
    out.push(
        '',
        '## What you can do',
        '',
        '- *Sleuth: Rebuild Index* builds the index again from scratch (a search keeps working meanwhile).',
        '- *Sleuth: Restart Server* restarts the server; the index is kept on disk and reopened.',
        '- The status bar item shows the state at a glance; run *Sleuth: Show Index Status* again to refresh this page.',
        '',
    );
    return out.join('\n');
}
