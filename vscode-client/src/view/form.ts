/**
 * The search view's form: a webview view (a tree view cannot hold text boxes) with the query box,
 * its Match Case / Match Whole Word / Use Regular Expression toggles, the replace box, the include
 * and exclude globs, file types and context lines, plus the running search's status and a Cancel
 * button. It only reports what is typed. The toggles' Alt+C / Alt+W / Alt+R are keybindings
 * (package.json) when the results tree has focus; in the form the page handles them itself, because
 * a webview forwards its key presses to the workbench, where the forwarded Alt also drives the menu
 * bar's mnemonics (in the end-to-end test the second Alt+R opened the Run menu).
 */
import { randomBytes } from 'crypto';
import { CancellationToken, Disposable, EventEmitter, Webview, WebviewView, WebviewViewProvider, WebviewViewResolveContext, commands } from 'vscode';
import { EMPTY_QUERY, ViewQuery } from './query';

export const FORM_VIEW_ID = 'sleuth.searchForm';
export const FOCUS_CONTEXT_KEY = 'sleuth.searchFormFocus';

/** Messages from the webview. */
type FromForm =
    | { type: 'ready' }
    | { type: 'query'; query: ViewQuery; now?: boolean }
    | { type: 'focus'; focused: boolean }
    | { type: 'replaceAll'; preview?: boolean }
    | { type: 'results' }
    | { type: 'cancel' };

export interface FormStatus {
    text: string;
    searching: boolean;
}

export class SearchForm implements WebviewViewProvider, Disposable {
    private view: WebviewView | undefined;
    private query: ViewQuery = { ...EMPTY_QUERY };
    private status: FormStatus = { text: '', searching: false };
    private readonly changed = new EventEmitter<{ query: ViewQuery; now: boolean }>();
    private readonly replaceAll = new EventEmitter<{ preview: boolean }>();
    private readonly cancel = new EventEmitter<void>();
    private readonly results = new EventEmitter<void>();
    /** The query changed (typed, toggled); `now` when Enter asked for the search at once. */
    readonly onDidChangeQuery = this.changed.event;
    readonly onDidRequestReplaceAll = this.replaceAll.event;
    readonly onDidRequestCancel = this.cancel.event;
    /** Ctrl+Down in the query box: on to the results. */
    readonly onDidRequestResults = this.results.event;
    private subs: Disposable[] = [];

    /** `history`: the workspace's earlier patterns, oldest first (Up/Down in the query box). */
    constructor(private history: string[]) {}

    setHistory(history: string[]): void {
        this.history = history;
        this.post({ type: 'history', history });
    }

    get current(): ViewQuery {
        return this.query;
    }

    resolveWebviewView(view: WebviewView, _context: WebviewViewResolveContext, _token: CancellationToken): void {
        this.view = view;
        view.webview.options = { enableScripts: true, localResourceRoots: [] };
        view.webview.html = formHtml(view.webview);
        this.subs.forEach((d) => d.dispose());
        this.subs = [
            view.webview.onDidReceiveMessage((m: FromForm) => this.receive(m)),
            view.onDidDispose(() => {
                this.view = undefined;
                void commands.executeCommand('setContext', FOCUS_CONTEXT_KEY, false);
            }),
        ];
    }

    private receive(m: FromForm): void {
        if (m.type === 'ready') {
            this.post({ type: 'history', history: this.history });
            this.post({ type: 'state', query: this.query, focus: true, initial: true });
            this.post({ type: 'status', ...this.status });
        } else if (m.type === 'query') {
            this.query = { ...EMPTY_QUERY, ...m.query };
            this.changed.fire({ query: this.query, now: !!m.now });
        } else if (m.type === 'focus') {
            void commands.executeCommand('setContext', FOCUS_CONTEXT_KEY, m.focused);
        } else if (m.type === 'replaceAll') this.replaceAll.fire({ preview: !!m.preview });
        else if (m.type === 'results') this.results.fire();
        else if (m.type === 'cancel') this.cancel.fire();
    }

    /** Change the form from the extension side (a toggle's keybinding, a seeded pattern). */
    update(patch: Partial<ViewQuery>, now = false): void {
        this.query = { ...this.query, ...patch };
        this.post({ type: 'state', query: this.query });
        this.changed.fire({ query: this.query, now });
    }

    setStatus(status: FormStatus): void {
        this.status = status;
        this.post({ type: 'status', ...status });
    }

    /** Reveal the view and put the cursor in the query box. */
    async focus(): Promise<void> {
        await commands.executeCommand(`${FORM_VIEW_ID}.focus`);
        this.post({ type: 'focus' });
    }

    private post(message: Record<string, unknown>): void {
        void this.view?.webview.postMessage(message);
    }

    dispose(): void {
        this.subs.forEach((d) => d.dispose());
        this.changed.dispose();
        this.replaceAll.dispose();
        this.cancel.dispose();
        this.results.dispose();
    }
}

/** The form's page: VS Code's theme variables, no remote content, one nonce'd script. */
function formHtml(webview: Webview): string {
    const nonce = randomBytes(16).toString('base64');
    return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource} 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<style nonce="${nonce}">
  body { padding: 4px 8px 4px 8px; color: var(--vscode-foreground); font-size: var(--vscode-font-size); font-family: var(--vscode-font-family); }
  .row { display: flex; align-items: center; margin: 3px 0; gap: 2px; position: relative; }
  input[type=text], input[type=number] { flex: 1; min-width: 0; box-sizing: border-box; padding: 3px 4px; color: var(--vscode-input-foreground);
    background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); border-radius: 2px; font: inherit; }
  input:focus { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
  #pattern, #replace { padding-right: 78px; }
  .toggles { position: absolute; right: 3px; display: flex; gap: 1px; }
  .toggle { width: 22px; height: 20px; padding: 0; border: 1px solid transparent; border-radius: 3px; background: transparent; color: var(--vscode-foreground);
    opacity: 0.7; cursor: pointer; font: 12px var(--vscode-editor-font-family, monospace); }
  .toggle:hover { background: var(--vscode-toolbar-hoverBackground); opacity: 1; }
  .toggle[aria-pressed=true] { opacity: 1; color: var(--vscode-inputOption-activeForeground); background: var(--vscode-inputOption-activeBackground);
    border-color: var(--vscode-inputOption-activeBorder); }
  #word { text-decoration: underline; }
  button.action { padding: 3px 8px; color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: none; border-radius: 2px; cursor: pointer; font: inherit; white-space: nowrap; }
  button.action:hover { background: var(--vscode-button-hoverBackground); }
  button.action:disabled { opacity: 0.5; cursor: default; }
  label.small { font-size: 11px; opacity: 0.8; margin-top: 6px; display: block; }
  #status { margin-top: 6px; min-height: 1.4em; display: flex; gap: 6px; align-items: center; opacity: 0.9; }
  #status .text { flex: 1; }
  #cancel { display: none; }
  #status.searching #cancel { display: inline-block; }
  .ctx { flex: 0 0 48px; }
  .ctx-label { font-size: 11px; opacity: 0.8; margin: 0 4px 0 8px; white-space: nowrap; }
  #replace { padding-right: 28px; }
  button.secondary { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); }
  button.secondary:hover { background: var(--vscode-button-secondaryHoverBackground); }
</style></head>
<body>
  <div class="row">
    <input id="pattern" type="text" placeholder="Search" aria-label="Search" spellcheck="false">
    <div class="toggles">
      <button id="case" class="toggle" title="Match Case (Alt+C)" aria-label="Match Case (Alt+C)" aria-pressed="false">Aa</button>
      <button id="word" class="toggle" title="Match Whole Word (Alt+W)" aria-label="Match Whole Word (Alt+W)" aria-pressed="false">ab</button>
      <button id="regex" class="toggle" title="Use Regular Expression (Alt+R)" aria-label="Use Regular Expression (Alt+R)" aria-pressed="false">.*</button>
    </div>
  </div>
  <div class="row">
    <input id="replace" type="text" placeholder="Replace (regex: $1, \${name})" aria-label="Replace" spellcheck="false">
    <div class="toggles">
      <button id="preserve" class="toggle" title="Preserve Case (Alt+P)" aria-label="Preserve Case (Alt+P)" aria-pressed="false">AB</button>
    </div>
  </div>
  <div class="row">
    <button id="replaceAll" class="action" title="Replace All (Ctrl+Alt+Enter): replaces every result after one confirmation">Replace All</button>
    <button id="replacePreview" class="action secondary" title="Review the edits in the Refactor Preview, then apply or discard them">Replace with Preview…</button>
  </div>
  <label class="small" for="include">files to include</label>
  <div class="row"><input id="include" type="text" placeholder="e.g. *.ts, src/**/include" aria-label="files to include" spellcheck="false"></div>
  <label class="small" for="exclude">files to exclude</label>
  <div class="row"><input id="exclude" type="text" placeholder="e.g. *.ts, src/**/exclude" aria-label="files to exclude" spellcheck="false"></div>
  <label class="small" for="types">file types</label>
  <div class="row">
    <input id="types" type="text" placeholder="e.g. py, ts" aria-label="file types" spellcheck="false">
    <label class="ctx-label" for="context">context lines</label>
    <input id="context" class="ctx" type="number" min="0" max="10" value="0" title="lines shown around each match" aria-label="context lines">
  </div>
  <div id="status" role="status"><span class="text"></span><button id="cancel" class="action" title="Cancel the search">Cancel</button></div>
<script nonce="${nonce}">
(() => {
  const vscode = acquireVsCodeApi();
  const $ = (id) => document.getElementById(id);
  const texts = ['pattern', 'replace', 'include', 'exclude', 'types'];
  const toggles = { case: 'matchCase', word: 'wholeWord', regex: 'regex', preserve: 'preserveCase' };
  let state = { pattern: '', replace: '', matchCase: false, wholeWord: false, regex: false, include: '', exclude: '', types: '', context: 0, preserveCase: false };
  // Search history (Up/Down in the query box, as VS Code's): -1 is what is being typed.
  let history = [];
  let back = -1;
  let draft = '';
  const send = (now) => {
    for (const id of texts) state[id] = $(id).value;
    state.context = Math.max(0, Math.min(10, parseInt($('context').value || '0', 10) || 0));
    vscode.postMessage({ type: 'query', query: state, now: !!now });
  };
  const show = (q) => {
    state = { ...state, ...q };
    for (const id of texts) if ($(id).value !== state[id]) $(id).value = state[id];
    $('context').value = String(state.context || 0);
    for (const [id, key] of Object.entries(toggles)) $(id).setAttribute('aria-pressed', String(!!state[key]));
  };
  for (const id of texts) $(id).addEventListener('input', () => send(false));
  $('context').addEventListener('input', () => send(false));
  for (const id of ['pattern', 'include', 'exclude', 'types', 'context']) {
    $(id).addEventListener('keydown', (e) => { if (e.key === 'Enter') send(true); });
  }
  $('replace').addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) vscode.postMessage({ type: 'replaceAll' }); });
  $('pattern').addEventListener('input', () => { back = -1; });
  $('pattern').addEventListener('keydown', (e) => {
    if (e.altKey || e.shiftKey || e.metaKey) return;
    if (e.ctrlKey) {
      if (e.key === 'ArrowDown') { e.preventDefault(); vscode.postMessage({ type: 'results' }); }
      return;
    }
    if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
    e.preventDefault();
    e.stopPropagation();
    if (back === -1) draft = $('pattern').value;
    const next = e.key === 'ArrowUp' ? Math.min(back + 1, history.length - 1) : back - 1;
    if (next < -1 || (e.key === 'ArrowUp' && history.length === 0)) return;
    back = next;
    $('pattern').value = back === -1 ? draft : history[history.length - 1 - back];
    send(true);
  });
  for (const [id, key] of Object.entries(toggles)) {
    $(id).addEventListener('click', () => { state[key] = !state[key]; show({}); send(key !== 'preserveCase'); $(key === 'preserveCase' ? 'replace' : 'pattern').focus(); });
  }
  // Alt+C / Alt+W / Alt+R are handled here and kept from VS Code: a webview forwards its keys to
  // the workbench, where the forwarded Alt also reaches the menu bar (Alt+R opened the Run menu).
  const combos = { KeyC: 'matchCase', KeyW: 'wholeWord', KeyR: 'regex', KeyP: 'preserveCase' };
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Alt') { e.stopPropagation(); return; }
    const key = combos[e.code];
    if (!key || !e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    e.stopPropagation();
    state[key] = !state[key];
    show({});
    send(key !== 'preserveCase');
  }, true);
  document.addEventListener('keyup', (e) => { if (e.key === 'Alt' || (e.altKey && combos[e.code])) e.stopPropagation(); }, true);
  $('replaceAll').addEventListener('click', () => vscode.postMessage({ type: 'replaceAll' }));
  $('replacePreview').addEventListener('click', () => vscode.postMessage({ type: 'replaceAll', preview: true }));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && e.ctrlKey && e.altKey) { e.preventDefault(); e.stopPropagation(); vscode.postMessage({ type: 'replaceAll' }); }
  }, true);
  $('cancel').addEventListener('click', () => vscode.postMessage({ type: 'cancel' }));
  window.addEventListener('focus', () => vscode.postMessage({ type: 'focus', focused: true }));
  window.addEventListener('blur', () => vscode.postMessage({ type: 'focus', focused: false }));
  window.addEventListener('message', (e) => {
    const m = e.data;
    if (m.type === 'state') {
      // The first state may arrive after the person started typing: then what is typed wins.
      if (m.initial && texts.some((id) => $(id).value !== '')) send(true);
      else show(m.query);
      if (m.focus) $('pattern').focus();
    }
    else if (m.type === 'focus') { $('pattern').focus(); $('pattern').select(); }
    else if (m.type === 'history') {
      // The same list again (the view re-shown posts it): keep the place Up/Down reached.
      const next = m.history || [];
      if (JSON.stringify(next) !== JSON.stringify(history)) { history = next; back = -1; }
    }
    else if (m.type === 'status') {
      $('status').classList.toggle('searching', !!m.searching);
      $('status').querySelector('.text').textContent = m.text;
    }
  });
  vscode.postMessage({ type: 'ready' });
})();
</script>
</body></html>`;
}
