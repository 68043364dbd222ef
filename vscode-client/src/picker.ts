/**
 * Search-as-you-type QuickPick shared by Grep, Find Files and Search Text.
 *
 * Each keystroke (debounced) cancels the running request ($/cancelRequest through the
 * CancellationToken) and sends a new custom request (`sleuth/grep` …) with a `partialResultToken`,
 * so rows appear as `$/progress` batches arrive, and a `workDoneToken`, whose reports show in the
 * picker's title while it runs. Accepting a row opens the file with the match selected.
 *
 * The rows mark the server's match in their detail line (MATCH_OPEN/MATCH_CLOSE): the API cannot
 * highlight a range the extension names, and VS Code's own highlight of the typed characters would
 * point at the wrong text for a regex, so the picker's filtering is kept off the detail line. An
 * error or an empty result becomes rows that say what to do; some act when chosen.
 */
import { randomUUID } from 'crypto';
import {
    CancellationTokenSource,
    Disposable,
    LogOutputChannel,
    QuickInputButton,
    QuickPickItem,
    Range,
    Selection,
    TextEditorRevealType,
    ThemeIcon,
    Uri,
    window,
    workspace,
} from 'vscode';
import { ProgressType, ResponseError, WorkDoneProgress } from 'vscode-languageclient/node';
import type { ServerManager } from './client';
import { Row, matchRange, resolveResultPath, summaryLine } from './format';
import { ErrorData, describeError, errorLines } from './messages';
import { workspaceFolders } from './vscodeapi';

export interface PickItem extends QuickPickItem {
    /** The result this row opens; absent on message rows. */
    row?: Row;
    /** What choosing a message row does (the picker stays open). */
    action?: () => void;
}

/** A message row (an error, a hint): not a result, so it is not filtered away. */
export function messageRow(label: string, detail?: string, action?: () => void): PickItem {
    return { label, detail, alwaysShow: true, action };
}

/** What differs between the three pickers. */
export interface PickerSpec {
    kind: 'grep' | 'files' | 'text';
    title: string;
    placeholder: string;
    method: string;
    partialKey: string;
    /** Request arguments for the picker's text (undefined: nothing to search). */
    args(value: string): Record<string, unknown> | undefined;
    row(item: unknown): Row | undefined;
    buttons?: QuickInputButton[];
    /** The key that turns regex search off, named in an invalid-regex error. */
    regexToggleKey?: string;
    /** Rows to show when a search found nothing (a hint), given the query. */
    noResults?(value: string): PickItem[];
}

/** An open picker: `refresh()` clears its rows and searches again at once (a toggle changed). */
export interface SearchPicker extends Disposable {
    refresh(): void;
    setButtons(buttons: QuickInputButton[]): void;
    onDidHide(listener: () => unknown): void;
}

/** The `data` of a Sleuth JSON-RPC error, or just its message. */
export function errorData(e: unknown): ErrorData {
    if (e instanceof ResponseError) return { ...((e.data ?? {}) as ErrorData), message: ((e.data ?? {}) as ErrorData).message ?? e.message };
    return { message: e instanceof Error ? e.message : String(e) };
}

/** Turn a JSON-RPC error from the server into its message and hint (docs/SPEC.md §9). */
export function errorText(e: unknown): string {
    if (e instanceof ResponseError) {
        const data = (e.data ?? {}) as { message?: string; hint?: string };
        const msg = data.message ?? e.message;
        return data.hint ? `${msg} ${data.hint}` : msg;
    }
    return e instanceof Error ? e.message : String(e);
}

const partialType = new ProgressType<Record<string, unknown>>();

/** Open the picker; resolves when it closes. */
export function showSearchPicker(
    server: ServerManager,
    output: LogOutputChannel,
    spec: PickerSpec,
    debounceMs: number,
    initialValue = '',
): SearchPicker {
    const qp = window.createQuickPick<PickItem>();
    qp.title = spec.title;
    qp.placeholder = spec.placeholder;
    // VS Code re-sorts rows only by label highlights; labels are `name:line` (rarely matching a
    // grep pattern) so the server's order stays. The detail line carries the server's match marked
    // (see format.ts); VS Code's highlight of the typed characters there would be a different,
    // fuzzy match (nothing for `[A-Z]+_RESUME`, `scheduler tick` for `scheduler_tick`), so it is off.
    qp.matchOnDescription = false;
    qp.matchOnDetail = false;
    qp.keepScrollPosition = true;
    qp.buttons = spec.buttons ?? [];
    qp.value = initialValue;

    const folders = workspaceFolders().map((f) => ({ name: f.name, fsPath: f.uri.fsPath }));
    let generation = 0;
    let running: { cts: CancellationTokenSource; subs: Disposable[] } | undefined;
    let timer: NodeJS.Timeout | undefined;

    const cancelRunning = () => {
        if (!running) return;
        running.cts.cancel();
        running.cts.dispose();
        running.subs.forEach((d) => d.dispose());
        running = undefined;
    };

    const search = async (value: string, since: number) => {
        cancelRunning();
        const gen = ++generation;
        const args = spec.args(value);
        if (!args) {
            qp.items = [];
            qp.busy = false;
            qp.title = spec.title;
            return;
        }
        let client;
        try {
            client = await server.ready();
        } catch (e) {
            qp.busy = false;
            qp.title = `${spec.title}: ${errorText(e)}`;
            qp.items = [messageRow(`$(error) ${errorText(e)}`)];
            return;
        }
        if (gen !== generation) return;
        const cts = new CancellationTokenSource();
        const partialResultToken = `sleuth-partial-${randomUUID()}`;
        const workDoneToken = `sleuth-work-${randomUUID()}`;
        const items: PickItem[] = [];
        let flushTimer: NodeJS.Timeout | undefined;
        let firstShown: number | undefined;
        const sentAt = Date.now();
        const flush = () => {
            flushTimer = undefined;
            if (gen !== generation) return;
            qp.items = items.slice();
            if (firstShown === undefined && items.length > 0) {
                firstShown = Date.now();
                output.info(`${spec.kind} ${JSON.stringify(value)}: first result shown ${firstShown - since} ms after the keystroke`);
            }
        };
        const add = (batch: unknown) => {
            if (gen !== generation || !Array.isArray(batch)) return;
            for (const raw of batch) {
                const row = spec.row(raw);
                if (!row) continue;
                // With ThemeIcon.File and the file's Uri, VS Code shows the file-type icon.
                const fsPath = resolveResultPath(row.path, folders);
                items.push({
                    label: row.label,
                    description: row.description,
                    detail: row.detail,
                    alwaysShow: true,
                    iconPath: ThemeIcon.File,
                    resourceUri: fsPath ? Uri.file(fsPath) : undefined,
                    row,
                });
            }
            // The first rows go out at once; later ones are coalesced, since every assignment of
            // `items` sends the whole list to the window (more rows: rarer updates).
            if (!flushTimer) flushTimer = setTimeout(flush, firstShown === undefined ? 0 : items.length > 1000 ? 300 : 100);
        };
        const subs: Disposable[] = [
            client.onProgress(partialType, partialResultToken, (v) => add(v?.[spec.partialKey])),
            client.onProgress(WorkDoneProgress.type, workDoneToken, (v) => {
                if (gen !== generation || v.kind === 'end') return;
                const pct = v.percentage !== undefined ? ` ${Math.round(v.percentage)}%` : '';
                qp.title = `${spec.title}: searching…${pct}${v.message ? ` ${v.message}` : ''}`;
            }),
        ];
        running = { cts, subs };
        qp.busy = true;
        qp.title = `${spec.title}: searching…`;
        try {
            const result = await client.sendRequest<Record<string, unknown>>(
                spec.method,
                { ...args, partialResultToken, workDoneToken },
                cts.token,
            );
            if (gen !== generation) return;
            add(result?.[spec.partialKey]);
            if (flushTimer) clearTimeout(flushTimer);
            flush();
            qp.busy = false;
            qp.title = `${spec.title}: ${summaryLine(spec.kind, items.length, result ?? {})}`;
            if (items.length === 0 && spec.noResults) qp.items = spec.noResults(value);
            output.info(`${spec.kind} ${JSON.stringify(value)}: ${items.length} rows, complete ${Date.now() - sentAt} ms after the request`);
        } catch (e) {
            if (gen !== generation || cts.token.isCancellationRequested) return;
            qp.busy = false;
            const shown = describeError(errorData(e), spec.regexToggleKey);
            qp.title = `${spec.title}: ${shown.summary}`;
            qp.items = [
                messageRow(`$(error) ${shown.summary}`, shown.pointed),
                ...shown.fixes.map((fix) => messageRow(`$(lightbulb) ${fix}`)),
            ];
            output.warn(`${spec.kind} ${JSON.stringify(value)} failed:\n${errorLines(shown).join('\n')}`);
        } finally {
            if (running?.cts === cts) {
                subs.forEach((d) => d.dispose());
                cts.dispose();
                running = undefined;
            }
        }
    };

    /** The query changed: the rows on screen answer the previous one, so they go at once, and the
     *  previous search is cancelled (its late batches are dropped by the generation check) while
     *  the new one waits for the debounce. */
    const clearStale = () => {
        cancelRunning();
        generation++;
        qp.items = [];
        qp.busy = false;
        qp.title = spec.title;
    };

    const schedule = (immediate = false) => {
        if (timer) clearTimeout(timer);
        const since = Date.now();
        timer = setTimeout(() => void search(qp.value, since), immediate ? 0 : debounceMs);
    };

    const hideListeners: (() => unknown)[] = [];
    const subs: Disposable[] = [
        qp.onDidChangeValue(() => {
            clearStale();
            schedule();
        }),
        qp.onDidTriggerButton(() => {
            clearStale();
            schedule(true);
        }),
        qp.onDidAccept(async () => {
            const item = qp.selectedItems[0] ?? qp.activeItems[0];
            if (!item) return;
            if (item.action) return item.action();
            if (!item.row) return;
            qp.hide();
            await openRow(item.row, output);
        }),
        qp.onDidHide(() => {
            hideListeners.forEach((l) => l());
            if (timer) clearTimeout(timer);
            cancelRunning();
            generation++;
            subs.forEach((d) => d.dispose());
            qp.dispose();
        }),
    ];
    qp.show();
    if (initialValue) schedule(true);
    return {
        dispose: () => qp.dispose(),
        refresh: () => {
            clearStale();
            if (qp.value.trim() !== '') schedule(true);
        },
        onDidHide: (listener) => hideListeners.push(listener),
        setButtons: (buttons) => {
            qp.buttons = buttons;
        },
    };
}

/** Open the file of `row`, selecting the match (or the line, or nothing for a file row). */
export async function openRow(row: Row, output: LogOutputChannel): Promise<void> {
    const folders = workspaceFolders().map((f) => ({ name: f.name, fsPath: f.uri.fsPath }));
    const fsPath = resolveResultPath(row.path, folders);
    if (!fsPath) {
        void window.showErrorMessage(`Sleuth: cannot tell which workspace folder holds "${row.path}".`);
        return;
    }
    try {
        const doc = await workspace.openTextDocument(Uri.file(fsPath));
        if (row.line === undefined) {
            await window.showTextDocument(doc);
            return;
        }
        const lineIndex = Math.min(Math.max(0, row.line - 1), doc.lineCount - 1);
        const r = matchRange(doc.lineAt(lineIndex).text, lineIndex + 1, row.column, row.endColumn);
        const editor = await window.showTextDocument(doc, { selection: new Range(r.line, r.start, r.line, r.end) });
        editor.selection = new Selection(r.line, r.start, r.line, r.end);
        editor.revealRange(new Range(r.line, r.start, r.line, r.end), TextEditorRevealType.InCenterIfOutsideViewport);
    } catch (e) {
        output.error(`Opening ${fsPath}: ${errorText(e)}`);
        void window.showErrorMessage(`Sleuth: could not open ${row.path}: ${errorText(e)}`);
    }
}
