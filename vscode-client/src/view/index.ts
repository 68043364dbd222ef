/**
 * The Sleuth search view (its own view container, like VS Code's Search): the form (form.ts) drives
 * streaming `sleuth/grep` requests whose batches are appended to the results list (list.ts) as they
 * arrive, each batch posting only the rows it adds; "Load more" asks again for a bigger page (up to
 * MAX_LOADED), keeping the rows on screen until the new answer has caught up with them. Replace All
 * computes the edits in the extension (replace.ts) and applies them after one confirmation, as
 * VS Code's own Replace All; "Replace with Preview…" hands them to the Refactor Preview instead. The
 * server stays read-only (docs/SPEC.md §3), and an open buffer is edited as its unsaved text, in its editor.
 * F4 / Shift+F4 walk the results, Copy and "Open in Editor" (navigate.ts, document.ts) write them out.
 */
import { randomUUID } from 'crypto';
import { TextDecoder } from 'util';
import {
    CancellationTokenSource,
    Disposable,
    LogOutputChannel,
    Memento,
    Range,
    Selection,
    TextEditorRevealType,
    ThemeIcon,
    Uri,
    ViewColumn,
    WorkspaceEdit,
    commands,
    window,
    workspace,
} from 'vscode';
import { ProgressType, WorkDoneProgress } from 'vscode-languageclient/node';
import type { ServerManager } from '../client';
import { PartialKeys, Requests, SERVER_ID } from '../constants';
import { matchRange, resolveResultPath } from '../format';
import { errorText } from '../picker';
import { copyToClipboard, getConfiguration, registerCommand, workspaceFolders } from '../vscodeapi';
import { allText, fileText, lineText } from './document';
import { FOCUS_CONTEXT_KEY, FORM_VIEW_ID, SearchForm } from './form';
import { RESULTS_VIEW_ID, ResultsList, RowRef } from './list';
import { ResultsDocuments } from './navigate';
import { FIRST_PAGE, MAX_LOADED, PAGE_STEP, ViewQuery, isSearchable, pushHistory, searchKey, viewGrepArgs } from './query';
import { ReplaceSpec, planFile, serverReplacements } from './replace';
import { FileGroup, ResultLine, ResultModel, countLine, doneLine, nextMatch } from './results';

export const ViewCommands = {
    search: 'sleuth.view.search',
    toggleCase: 'sleuth.view.toggleCase',
    toggleWholeWord: 'sleuth.view.toggleWholeWord',
    toggleRegex: 'sleuth.view.toggleRegex',
    cancel: 'sleuth.view.cancel',
    clear: 'sleuth.view.clear',
    replaceAll: 'sleuth.view.replaceAll',
    replaceWithPreview: 'sleuth.view.replaceWithPreview',
    open: 'sleuth.view.open',
    openToSide: 'sleuth.view.openToSide',
    loadMore: 'sleuth.view.loadMore',
    replaceFile: 'sleuth.view.replaceFile',
    replaceLine: 'sleuth.view.replaceLine',
    nextResult: 'sleuth.view.nextResult',
    previousResult: 'sleuth.view.previousResult',
    collapseAll: 'sleuth.view.collapseAll',
    expandAll: 'sleuth.view.expandAll',
    copy: 'sleuth.view.copy',
    copyFile: 'sleuth.view.copyFile',
    copyAll: 'sleuth.view.copyAll',
    openInEditor: 'sleuth.view.openInEditor',
    focusResults: 'sleuth.view.focusResults',
} as const;

const partialType = new ProgressType<Record<string, unknown>>();
const HISTORY_KEY = 'sleuth.view.history';

/** A search as it was sent: the form it came from, its arguments, the page size. */
interface Shown {
    query: ViewQuery;
    args: Record<string, unknown>;
    maxResults: number;
}

/** What a webview context menu passes: the row's `data-vscode-context`. */
interface MenuContext {
    f?: number;
    l?: number;
}

function setContext(key: string, value: unknown): void {
    void commands.executeCommand('setContext', key, value);
}

export function registerSearchView(server: ServerManager, output: LogOutputChannel, extensionUri: Uri, state: Memento): Disposable[] {
    const folders = () => workspaceFolders().map((f) => ({ name: f.name, fsPath: f.uri.fsPath }));
    const uriOf = (group: FileGroup): Uri | undefined => {
        const fsPath = resolveResultPath(group.path, folders());
        return fsPath ? Uri.file(fsPath) : undefined;
    };
    const form = new SearchForm(state.get<string[]>(HISTORY_KEY, []));
    const list = new ResultsList(extensionUri);
    const documents = new ResultsDocuments(uriOf);

    let generation = 0;
    let running: { cts: CancellationTokenSource; subs: Disposable[] } | undefined;
    let timer: NodeJS.Timeout | undefined;
    /** The search whose rows the list shows (complete or cancelled), and the one running. */
    let shown: Shown | undefined;
    let pending: Shown | undefined;
    let lastKey = '';
    /** The row the list's cursor is on (F4 goes on from there). */
    let cursor: RowRef | undefined;

    const setStatus = (text: string, searching: boolean, more: string | null = null) => {
        list.setStatus(text, searching, more);
        form.setStatus({ text: searching ? text : '', searching }); // the summary is the results' own line
        setContext('sleuth.searching', searching);
    };

    const remember = (pattern: string) => {
        const history = pushHistory(state.get<string[]>(HISTORY_KEY, []), pattern);
        void state.update(HISTORY_KEY, history);
        form.setHistory(history);
    };

    const cancelRunning = () => {
        if (!running) return;
        running.cts.cancel();
        running.cts.dispose();
        running.subs.forEach((d) => d.dispose());
        running = undefined;
        setContext('sleuth.searching', false);
    };

    const showModel = (model: ResultModel) => {
        cursor = undefined;
        list.show(model);
    };

    /** Runs the form's search; `more` keeps the rows on screen and asks for a bigger page. */
    const search = async (query: ViewQuery, maxResults: number, since: number, more = false) => {
        cancelRunning();
        const gen = ++generation;
        if (!isSearchable(query)) {
            shown = undefined;
            showModel(new ResultModel());
            list.setBadge(undefined);
            setStatus('', false);
            setContext('sleuth.hasResults', false);
            return;
        }
        const cfg = getConfiguration(SERVER_ID);
        // A lower hard cap set by the person (`sleuth.maxResults`) bounds the pages too.
        const cap = Math.max(1, Math.min(MAX_LOADED, cfg.get<number>('maxResults', MAX_LOADED)));
        maxResults = Math.min(maxResults, cap);
        const args = viewGrepArgs(query, maxResults, cfg.get('case'));
        pending = { query, args, maxResults };
        const previous = list.results;
        const model = new ResultModel();
        if (!more) showModel(model); // the old rows answer another query: gone at once
        setStatus('Searching…', true);
        let client;
        try {
            client = await server.ready();
        } catch (e) {
            if (gen === generation) setStatus(errorText(e), false);
            return;
        }
        if (gen !== generation) return;
        const cts = new CancellationTokenSource();
        const partialResultToken = `sleuth-view-partial-${randomUUID()}`;
        const workDoneToken = `sleuth-view-work-${randomUUID()}`;
        let statusTimer: NodeJS.Timeout | undefined;
        let firstShown: number | undefined;
        let percent = '';
        const progressLine = () => {
            statusTimer = undefined;
            if (gen !== generation) return;
            if (model !== list.results) {
                setStatus(`Loading more… ${model.events.toLocaleString('en-US')} of ${previous.events.toLocaleString('en-US')} shown reloaded`, true);
                return;
            }
            list.setBadge({ value: model.matches, tooltip: countLine(model) });
            setStatus(`Searching…${percent} ${countLine(model)}`, true);
        };
        const add = (batch: unknown) => {
            if (gen !== generation || !Array.isArray(batch)) return;
            const deltas = model.add(batch);
            // Each batch posts only the rows it adds; a bigger page replaces the rows shown once it has caught up.
            if (model === list.results) list.append(deltas);
            else if (!more || model.events >= previous.events) showModel(model);
            if (firstShown === undefined && model.files.length > 0 && model === list.results) {
                firstShown = Date.now();
                output.info(`view ${JSON.stringify(query.pattern)}: first result posted ${firstShown - since} ms after the keystroke`);
            }
            if (!statusTimer) statusTimer = setTimeout(progressLine, 100);
        };
        const subs: Disposable[] = [
            client.onProgress(partialType, partialResultToken, (v) => add(v?.[PartialKeys.grep])),
            client.onProgress(WorkDoneProgress.type, workDoneToken, (v) => {
                if (gen !== generation || v.kind === 'end') return;
                if (v.percentage !== undefined) percent = ` ${Math.round(v.percentage)}%`;
            }),
        ];
        running = { cts, subs };
        const sentAt = Date.now();
        try {
            const result = await client.sendRequest<Record<string, unknown>>(Requests.grep, { ...args, partialResultToken, workDoneToken }, cts.token);
            if (gen !== generation) return;
            add(result?.[PartialKeys.grep]);
            if (statusTimer) clearTimeout(statusTimer);
            statusTimer = undefined;
            if (model !== list.results) showModel(model);
            const canLoadMore = !!result?.truncated && result?.truncated_reason === 'max_results' && maxResults < cap;
            shown = { query, args, maxResults };
            list.setBadge(model.matches > 0 ? { value: model.matches, tooltip: countLine(model) } : undefined);
            setStatus(model.events === 0 ? 'No results' : doneLine(model, result ?? {}, canLoadMore), false,
                canLoadMore ? `Load more… (${model.events.toLocaleString('en-US')} shown)` : null);
            setContext('sleuth.hasResults', model.matches > 0);
            if (model.matches > 0) remember(query.pattern);
            output.info(`view ${JSON.stringify(query.pattern)}: ${model.matches} results in ${model.files.length} files, complete ${Date.now() - sentAt} ms after the request`);
        } catch (e) {
            if (gen !== generation || cts.token.isCancellationRequested) return;
            if (statusTimer) clearTimeout(statusTimer);
            setStatus(errorText(e), false);
            output.warn(`view ${JSON.stringify(query.pattern)} failed: ${errorText(e)}`);
        } finally {
            if (running?.cts === cts) {
                subs.forEach((d) => d.dispose());
                cts.dispose();
                running = undefined;
            }
        }
    };

    const schedule = (query: ViewQuery, now: boolean) => {
        const key = searchKey(query);
        if (key === lastKey && !now) return; // only the replace text changed
        lastKey = key;
        if (timer) clearTimeout(timer);
        const since = Date.now();
        if (!isSearchable(query)) return void search(query, FIRST_PAGE, since);
        const delay = now ? 0 : getConfiguration(SERVER_ID).get<number>('search.debounceMs', 100);
        timer = setTimeout(() => void search(query, FIRST_PAGE, since), delay);
    };

    const loadMore = () => {
        if (!shown || running) return;
        void search(shown.query, Math.min(MAX_LOADED, shown.maxResults + PAGE_STEP), Date.now(), true);
    };

    const cancel = () => {
        if (!running) return;
        generation++;
        cancelRunning();
        const model = list.results;
        // The rows on screen answer the cancelled search's query (a cancelled "Load more" shows the
        // same query's previous page): replacing them must use that query.
        if (pending && (!shown || searchKey(pending.query) !== searchKey(shown.query))) shown = pending;
        setStatus(`Cancelled: ${countLine(model)} shown`, false);
        setContext('sleuth.hasResults', model.matches > 0);
    };

    const open = async (target: RowRef | undefined, side = false, preserveFocus = true) => {
        if (!target) return;
        const uri = uriOf(target.group);
        if (!uri) {
            void window.showErrorMessage(`Sleuth: cannot tell which workspace folder holds "${target.group.path}".`);
            return;
        }
        try {
            const doc = await workspace.openTextDocument(uri);
            const line = target.line ?? target.group.lines.find((l) => l.kind === 'match');
            let range = new Range(0, 0, 0, 0);
            if (line) {
                const index = Math.min(Math.max(0, line.line - 1), doc.lineCount - 1);
                const span = line.spans[0];
                const r = matchRange(doc.lineAt(index).text, index + 1, span?.column, span?.endColumn);
                range = new Range(r.line, r.start, r.line, r.end);
            }
            const editor = await window.showTextDocument(doc, {
                selection: range,
                preview: !side,
                preserveFocus: !side && preserveFocus,
                viewColumn: side ? ViewColumn.Beside : undefined,
            });
            editor.selection = new Selection(range.start, range.end);
            editor.revealRange(range, TextEditorRevealType.InCenterIfOutsideViewport);
        } catch (e) {
            output.error(`Opening ${uri.fsPath}: ${errorText(e)}`);
            void window.showErrorMessage(`Sleuth: could not open ${target.group.path}: ${errorText(e)}`);
        }
    };

    /** F4 / Shift+F4: the next (previous) match line after the cursor, opened in the editor. */
    const step = (forward: boolean) => {
        const next = nextMatch(list.results.files, cursor, forward);
        if (!next) return;
        cursor = next;
        list.select(next.group, next.line);
        void open(next, false, true);
    };

    /** The text the edits apply to: an open document's (unsaved) text, else the file's. */
    const currentText = async (uri: Uri): Promise<string> => {
        const doc = workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        if (doc) return doc.getText();
        return new TextDecoder('utf-8').decode(await workspace.fs.readFile(uri));
    };

    /**
     * The server's expansion of a regex replacement template for the shown search: the same arguments
     * (so the same page of matches) with `replace`, each match's `match_replacements` by file.
     */
    const serverSide = async (args: Record<string, unknown>, template: string): Promise<Map<string, Map<string, string>>> => {
        const client = await server.ready();
        const cts = new CancellationTokenSource();
        try {
            const result = await client.sendRequest<Record<string, unknown>>(Requests.grep, { ...args, replace: template }, cts.token);
            const events = result?.[PartialKeys.grep];
            return serverReplacements(Array.isArray(events) ? events : []);
        } finally {
            cts.dispose();
        }
    };

    /** Replaces in `groups` (or only the line `only`); `preview`: through the Refactor Preview, else after one confirmation. */
    const replace = async (groups: readonly FileGroup[], only?: ResultLine, preview = false) => {
        if (!shown || running) {
            void window.showInformationMessage('Sleuth: wait for the search to finish, then replace.');
            return;
        }
        const replaceText = form.current.replace;
        const spec: ReplaceSpec = {
            pattern: shown.query.pattern,
            replace: replaceText,
            regex: shown.query.regex,
            preserveCase: form.current.preserveCase,
        };
        let replacements: Map<string, Map<string, string>> | undefined;
        if (spec.regex) {
            try {
                replacements = await serverSide(shown.args, replaceText);
            } catch (e) {
                void window.showErrorMessage(`Sleuth: the server could not expand the replacement: ${errorText(e)}`);
                return;
            }
        }
        const edit = new WorkspaceEdit();
        const label = `Replace "${spec.pattern}" with "${replaceText}"`;
        let count = 0;
        let stale = 0;
        const touched = new Set<string>();
        for (const group of groups) {
            const uri = uriOf(group);
            if (!uri) continue;
            let text: string;
            try {
                text = await currentText(uri);
            } catch (e) {
                output.warn(`Replace: reading ${uri.fsPath}: ${errorText(e)}`);
                stale += group.matches;
                continue;
            }
            const plan = planFile(text, only ? [only] : group.lines, spec, replacements?.get(group.path) ?? new Map());
            stale += plan.stale;
            for (const e of plan.edits) {
                const range = new Range(e.line, e.start, e.line, e.end);
                if (preview) edit.replace(uri, range, e.newText, { needsConfirmation: true, label, description: group.path, iconPath: new ThemeIcon('replace') });
                else edit.replace(uri, range, e.newText);
                touched.add(uri.toString());
                count++;
            }
        }
        const skipped = stale ? `${stale} changed since the search` : '';
        if (count === 0) {
            void window.showInformationMessage(`Sleuth: nothing to replace${skipped ? ` (skipped: ${skipped})` : ''}.`);
            return;
        }
        if (!preview) {
            const what = `${count.toLocaleString('en-US')} occurrence${count === 1 ? '' : 's'} across ${touched.size.toLocaleString('en-US')} file${touched.size === 1 ? '' : 's'}`;
            const answer = await window.showWarningMessage(`Replace ${what} with "${replaceText}"?`,
                { modal: true, detail: skipped ? `Left out: ${skipped}.` : undefined }, 'Replace');
            if (answer !== 'Replace') return;
        } else if (skipped) void window.showWarningMessage(`Sleuth: ${skipped}; those were left out of the replacement.`);
        output.info(`replace ${JSON.stringify(spec.pattern)} -> ${JSON.stringify(replaceText)}: ${count} edits ${preview ? 'offered for review' : 'confirmed'}`);
        // Files with unsaved changes keep them: their edits land in the editor only. Every other file
        // changed is saved, as VS Code's own Replace All writes files.
        const unsaved = new Set(workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString()));
        const applied = await workspace.applyEdit(edit);
        let saved = 0;
        if (applied) {
            for (const [uri] of edit.entries()) {
                const doc = workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
                if (doc?.isDirty && !unsaved.has(uri.toString()) && (await doc.save())) saved++;
            }
        }
        output.info(`replace: ${applied ? `applied, ${saved} file${saved === 1 ? '' : 's'} saved, ${unsaved.size} unsaved left unsaved` : 'not applied'}`);
        if (applied) void search(shown.query, shown.maxResults, Date.now());
    };

    const toggle = (key: 'matchCase' | 'wholeWord' | 'regex') => () => form.update({ [key]: !form.current[key] }, true);

    const seed = async () => {
        const editor = window.activeTextEditor;
        const sel = editor?.selection;
        await form.focus();
        if (editor && sel && !sel.isEmpty && sel.isSingleLine) form.update({ pattern: editor.document.getText(sel) }, true);
    };

    /** The row a command acts on: the context menu's, else the list's cursor. */
    const rowOf = (ctx?: MenuContext): RowRef | undefined => {
        const group = ctx?.f !== undefined ? list.results.files[ctx.f] : undefined;
        if (group) return { group, line: ctx?.l !== undefined && ctx.l >= 0 ? group.lines[ctx.l] : undefined };
        return cursor;
    };

    const copy = async (text: string | undefined) => {
        if (text) await copyToClipboard(text);
    };

    const openInEditor = async () => {
        if (!shown && list.results.files.length === 0) return;
        const q = shown?.query ?? pending?.query;
        const flags = q ? [q.regex ? 'regex' : '', q.matchCase ? 'match case' : '', q.wholeWord ? 'whole word' : ''].filter((f) => f).join(', ') : '';
        const header = [
            `Query: ${q?.pattern ?? ''}${flags ? ` (${flags})` : ''}`,
            ...(q?.include ? [`Including: ${q.include}`] : []),
            ...(q?.exclude ? [`Excluding: ${q.exclude}`] : []),
            countLine(list.results),
            'Go to: F12 or Ctrl+click on a line',
        ];
        await documents.open(header, list.results);
    };

    setContext(FOCUS_CONTEXT_KEY, false);
    return [
        form,
        list,
        documents,
        ...documents.register(),
        window.registerWebviewViewProvider(FORM_VIEW_ID, form, { webviewOptions: { retainContextWhenHidden: true } }),
        window.registerWebviewViewProvider(RESULTS_VIEW_ID, list, { webviewOptions: { retainContextWhenHidden: true } }),
        form.onDidChangeQuery(({ query, now }) => schedule(query, now)),
        form.onDidRequestReplaceAll(({ preview }) => void replace(list.results.files, undefined, preview)),
        form.onDidRequestCancel(cancel),
        form.onDidRequestResults(() => list.focus()),
        list.onDidOpen((row) => {
            cursor = row;
            void open(row, row.side, true);
        }),
        list.onDidMoveCursor((row) => (cursor = row)),
        list.onDidRequestReplace((row) => void replace([row.group], row.line)),
        list.onDidRequestCopy((row) => void copy(row.line ? lineText(row.line) : fileText(row.group))),
        list.onDidRequestToggle((key) => toggle(key)()),
        list.onDidRequestLoadMore(loadMore),
        registerCommand(ViewCommands.search, seed),
        registerCommand(ViewCommands.toggleCase, toggle('matchCase')),
        registerCommand(ViewCommands.toggleWholeWord, toggle('wholeWord')),
        registerCommand(ViewCommands.toggleRegex, toggle('regex')),
        registerCommand(ViewCommands.cancel, cancel),
        registerCommand(ViewCommands.clear, () => {
            lastKey = '';
            form.update({ pattern: '' }, true);
        }),
        registerCommand(ViewCommands.replaceAll, () => replace(list.results.files)),
        registerCommand(ViewCommands.replaceWithPreview, () => replace(list.results.files, undefined, true)),
        registerCommand(ViewCommands.open, (ctx?: MenuContext) => open(rowOf(ctx))),
        registerCommand(ViewCommands.openToSide, (ctx?: MenuContext) => open(rowOf(ctx), true)),
        registerCommand(ViewCommands.loadMore, loadMore),
        registerCommand(ViewCommands.replaceFile, (ctx?: MenuContext) => {
            const row = rowOf(ctx);
            if (row) return replace([row.group]);
        }),
        registerCommand(ViewCommands.replaceLine, (ctx?: MenuContext) => {
            const row = rowOf(ctx);
            if (row?.line) return replace([row.group], row.line);
        }),
        registerCommand(ViewCommands.nextResult, () => step(true)),
        registerCommand(ViewCommands.previousResult, () => step(false)),
        registerCommand(ViewCommands.collapseAll, () => list.collapseAll(true)),
        registerCommand(ViewCommands.expandAll, () => list.collapseAll(false)),
        registerCommand(ViewCommands.copy, (ctx?: MenuContext) => {
            const row = rowOf(ctx);
            return copy(row ? (row.line ? lineText(row.line) : fileText(row.group)) : undefined);
        }),
        registerCommand(ViewCommands.copyFile, (ctx?: MenuContext) => copy(rowOf(ctx) ? fileText(rowOf(ctx)!.group) : undefined)),
        registerCommand(ViewCommands.copyAll, () => copy(allText(list.results.files))),
        registerCommand(ViewCommands.openInEditor, openInEditor),
        registerCommand(ViewCommands.focusResults, () => list.focus()),
        { dispose: () => {
            if (timer) clearTimeout(timer);
            cancelRunning();
        } },
    ];
}
