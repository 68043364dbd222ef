/**
 * The Sleuth search view (its own view container, like VS Code's Search): the form (form.ts) drives
 * streaming `sleuth/grep` requests whose batches fill the results tree (tree.ts) as they arrive;
 * "Load more" asks again for a bigger page (up to MAX_LOADED), keeping the rows on screen until the
 * new answer has caught up with them; Replace computes the edits in the extension (replace.ts) and
 * hands VS Code a WorkspaceEdit whose entries need confirmation, so the Refactor Preview shows them
 * and nothing changes until the person applies them. The server stays read-only (docs/SPEC.md §3), and an
 * open buffer is edited as its unsaved text, in its editor.
 */
import { randomUUID } from 'crypto';
import { TextDecoder } from 'util';
import {
    CancellationTokenSource,
    Disposable,
    LogOutputChannel,
    ProgressLocation,
    Range,
    Selection,
    TextEditorRevealType,
    ThemeIcon,
    TreeView,
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
import { matchRange } from '../format';
import { errorText } from '../picker';
import { getConfiguration, registerCommand, workspaceFolders } from '../vscodeapi';
import { FOCUS_CONTEXT_KEY, FORM_VIEW_ID, SearchForm } from './form';
import { FIRST_PAGE, MAX_LOADED, PAGE_STEP, ViewQuery, isCaseInsensitive, isSearchable, searchKey, viewGrepArgs } from './query';
import { ReplaceSpec, jsRegex, planFile } from './replace';
import { FileGroup, ResultLine, ResultModel, countLine, doneLine } from './results';
import { Commands as TreeCommands, Node, RESULTS_VIEW_ID, ResultsTree } from './tree';

export const ViewCommands = {
    ...TreeCommands,
    search: 'sleuth.view.search',
    toggleCase: 'sleuth.view.toggleCase',
    toggleWholeWord: 'sleuth.view.toggleWholeWord',
    toggleRegex: 'sleuth.view.toggleRegex',
    cancel: 'sleuth.view.cancel',
    clear: 'sleuth.view.clear',
    replaceAll: 'sleuth.view.replaceAll',
} as const;

const partialType = new ProgressType<Record<string, unknown>>();

/** A search as it was sent: the form it came from, its arguments, the page size. */
interface Shown {
    query: ViewQuery;
    args: Record<string, unknown>;
    maxResults: number;
}

function setContext(key: string, value: unknown): void {
    void commands.executeCommand('setContext', key, value);
}

export function registerSearchView(server: ServerManager, output: LogOutputChannel): Disposable[] {
    const folders = () => workspaceFolders().map((f) => ({ name: f.name, fsPath: f.uri.fsPath }));
    const form = new SearchForm();
    const tree = new ResultsTree(folders);
    const view: TreeView<Node> = window.createTreeView(RESULTS_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });

    let generation = 0;
    let running: { cts: CancellationTokenSource; subs: Disposable[] } | undefined;
    let timer: NodeJS.Timeout | undefined;
    /** The search whose rows the tree shows (complete or cancelled), and the one running. */
    let shown: Shown | undefined;
    let pending: Shown | undefined;
    let lastKey = '';

    const setStatus = (text: string, searching: boolean) => {
        view.message = text;
        form.setStatus({ text, searching });
        setContext('sleuth.searching', searching);
    };

    const cancelRunning = () => {
        if (!running) return;
        running.cts.cancel();
        running.cts.dispose();
        running.subs.forEach((d) => d.dispose());
        running = undefined;
        setContext('sleuth.searching', false);
    };

    /** Runs the form's search; `more` keeps the rows on screen and asks for a bigger page. */
    const search = async (query: ViewQuery, maxResults: number, since: number, more = false) => {
        cancelRunning();
        const gen = ++generation;
        if (!isSearchable(query)) {
            shown = undefined;
            tree.show(new ResultModel(), false);
            view.badge = undefined;
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
        const previous = tree.results;
        const model = new ResultModel();
        if (!more) tree.show(model, false); // the old rows answer another query: gone at once
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
        let flushTimer: NodeJS.Timeout | undefined;
        let firstShown: number | undefined;
        let percent = '';
        const swapIn = () => more && model.events < previous.events && model !== tree.results;
        const flush = () => {
            flushTimer = undefined;
            if (gen !== generation) return;
            if (swapIn()) {
                setStatus(`Loading more… ${model.events.toLocaleString('en-US')} of ${previous.events.toLocaleString('en-US')} shown reloaded`, true);
                return;
            }
            tree.show(model, false);
            view.badge = { value: model.matches, tooltip: countLine(model) };
            setStatus(`Searching…${percent} ${countLine(model)}`, true);
            if (firstShown === undefined && model.files.length > 0) {
                firstShown = Date.now();
                output.info(`view ${JSON.stringify(query.pattern)}: first result shown ${firstShown - since} ms after the keystroke`);
            }
        };
        const add = (batch: unknown) => {
            if (gen !== generation || !Array.isArray(batch)) return;
            model.add(batch);
            // The first rows go out at once, later ones coalesced (each refresh re-reads the tree).
            if (!flushTimer) flushTimer = setTimeout(flush, firstShown === undefined ? 0 : model.files.length > 2000 ? 400 : 150);
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
            const result = await window.withProgress({ location: { viewId: RESULTS_VIEW_ID } }, () =>
                client.sendRequest<Record<string, unknown>>(Requests.grep, { ...args, partialResultToken, workDoneToken }, cts.token),
            );
            if (gen !== generation) return;
            add(result?.[PartialKeys.grep]);
            if (flushTimer) clearTimeout(flushTimer);
            flushTimer = undefined;
            const canLoadMore = !!result?.truncated && result?.truncated_reason === 'max_results' && maxResults < cap;
            shown = { query, args, maxResults };
            tree.show(model, canLoadMore);
            view.badge = model.matches > 0 ? { value: model.matches, tooltip: countLine(model) } : undefined;
            setStatus(model.events === 0 ? 'No results' : doneLine(model, result ?? {}, canLoadMore), false);
            setContext('sleuth.hasResults', model.matches > 0);
            output.info(`view ${JSON.stringify(query.pattern)}: ${model.matches} results in ${model.files.length} files, complete ${Date.now() - sentAt} ms after the request`);
        } catch (e) {
            if (gen !== generation || cts.token.isCancellationRequested) return;
            if (flushTimer) clearTimeout(flushTimer);
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
        const model = tree.results;
        // The rows on screen answer the cancelled search's query (a cancelled "Load more" shows the
        // same query's previous page): replacing them must use that query.
        if (pending && (!shown || searchKey(pending.query) !== searchKey(shown.query))) shown = pending;
        tree.show(model, false);
        setStatus(`Cancelled: ${countLine(model)} shown`, false);
        setContext('sleuth.hasResults', model.matches > 0);
    };

    const open = async (node: Node | undefined, side = false) => {
        const target = node ?? view.selection[0];
        if (!target || target.kind === 'more') return;
        const uri = tree.uriOf(target.group);
        if (!uri) {
            void window.showErrorMessage(`Sleuth: cannot tell which workspace folder holds "${target.group.path}".`);
            return;
        }
        try {
            const doc = await workspace.openTextDocument(uri);
            const line = target.kind === 'line' ? target.line : target.group.lines.find((l) => l.kind === 'match');
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
                preserveFocus: !side && target.kind === 'line',
                viewColumn: side ? ViewColumn.Beside : undefined,
            });
            editor.selection = new Selection(range.start, range.end);
            editor.revealRange(range, TextEditorRevealType.InCenterIfOutsideViewport);
        } catch (e) {
            output.error(`Opening ${uri.fsPath}: ${errorText(e)}`);
            void window.showErrorMessage(`Sleuth: could not open ${target.group.path}: ${errorText(e)}`);
        }
    };

    /** The text the edits apply to: an open document's (unsaved) text, else the file's. */
    const currentText = async (uri: Uri): Promise<string> => {
        const doc = workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        if (doc) return doc.getText();
        return new TextDecoder('utf-8').decode(await workspace.fs.readFile(uri));
    };

    const replace = async (groups: readonly FileGroup[], only?: ResultLine) => {
        if (!shown || running) {
            void window.showInformationMessage('Sleuth: wait for the search to finish, then replace.');
            return;
        }
        const replaceText = form.current.replace;
        const spec: ReplaceSpec = {
            pattern: shown.query.pattern,
            replace: replaceText,
            regex: shown.query.regex,
            wholeWord: shown.query.wholeWord,
            caseInsensitive: isCaseInsensitive(shown.args),
        };
        if (spec.regex) {
            try {
                jsRegex(spec);
            } catch (e) {
                void window.showErrorMessage(`Sleuth: the view computes regex replacements with JavaScript's RegExp, which cannot compile this pattern (${errorText(e)}); rewrite it in the common syntax.`);
                return;
            }
        }
        const edit = new WorkspaceEdit();
        const label = `Replace "${spec.pattern}" with "${replaceText}"`;
        let count = 0;
        let stale = 0;
        let disagree = 0;
        for (const group of groups) {
            const uri = tree.uriOf(group);
            if (!uri) continue;
            let text: string;
            try {
                text = await currentText(uri);
            } catch (e) {
                output.warn(`Replace: reading ${uri.fsPath}: ${errorText(e)}`);
                stale += group.matches;
                continue;
            }
            const plan = planFile(text, only ? [only] : group.lines, spec);
            stale += plan.stale;
            disagree += plan.disagree;
            for (const e of plan.edits) {
                edit.replace(uri, new Range(e.line, e.start, e.line, e.end), e.newText, {
                    needsConfirmation: true,
                    label,
                    description: group.path,
                    iconPath: new ThemeIcon('replace'),
                });
                count++;
            }
        }
        const skipped = [
            stale ? `${stale} changed since the search` : '',
            disagree ? `${disagree} where JavaScript's regex matched differently from the server's` : '',
        ].filter((s) => s).join(', ');
        if (count === 0) {
            void window.showInformationMessage(`Sleuth: nothing to replace${skipped ? ` (skipped: ${skipped})` : ''}.`);
            return;
        }
        if (skipped) void window.showWarningMessage(`Sleuth: ${skipped}; those were left out of the replacement.`);
        output.info(`replace ${JSON.stringify(spec.pattern)} -> ${JSON.stringify(replaceText)}: ${count} edits offered for review`);
        // Files with unsaved changes keep them: their edits land in the editor only. Every other file
        // the person let the preview change is saved, as VS Code's own Replace All writes files.
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

    setContext(FOCUS_CONTEXT_KEY, false);
    return [
        form,
        view,
        window.registerWebviewViewProvider(FORM_VIEW_ID, form, { webviewOptions: { retainContextWhenHidden: true } }),
        form.onDidChangeQuery(({ query, now }) => schedule(query, now)),
        form.onDidRequestReplaceAll(() => void replace(tree.results.files)),
        form.onDidRequestCancel(cancel),
        registerCommand(ViewCommands.search, seed),
        registerCommand(ViewCommands.toggleCase, toggle('matchCase')),
        registerCommand(ViewCommands.toggleWholeWord, toggle('wholeWord')),
        registerCommand(ViewCommands.toggleRegex, toggle('regex')),
        registerCommand(ViewCommands.cancel, cancel),
        registerCommand(ViewCommands.clear, () => {
            lastKey = '';
            form.update({ pattern: '' }, true);
        }),
        registerCommand(ViewCommands.replaceAll, () => replace(tree.results.files)),
        registerCommand(ViewCommands.open, (node?: Node) => open(node)),
        registerCommand(ViewCommands.openToSide, (node?: Node) => open(node, true)),
        registerCommand(ViewCommands.loadMore, loadMore),
        registerCommand(ViewCommands.replaceFile, (node?: Node) => {
            const target = node ?? view.selection[0];
            if (target && target.kind !== 'more') return replace([target.group]);
        }),
        registerCommand(ViewCommands.replaceLine, (node?: Node) => {
            const target = node ?? view.selection[0];
            if (target?.kind === 'line') return replace([target.group], target.line);
        }),
        { dispose: () => {
            if (timer) clearTimeout(timer);
            cancelRunning();
        } },
    ];
}
