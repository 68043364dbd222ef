/**
 * The index status in the status bar (state and file count; a tooltip in local time and human
 * sizes) and the status page that Show Index Status opens: a read-only Markdown document of the
 * virtual scheme `sleuth-status`, so nothing is written to disk and it always shows the last status.
 *
 * The item polls `sleuth.index.status` only while a server runs (it never starts one): every few
 * seconds while the index is being built, rarely once it is ready.
 */
import {
    Disposable,
    EventEmitter,
    LogOutputChannel,
    StatusBarAlignment,
    StatusBarItem,
    TextDocumentContentProvider,
    ThemeColor,
    Uri,
    window,
    workspace,
} from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import type { ServerManager } from './client';
import { Commands, ServerCommands } from './constants';
import { IndexStatus, statusBarView, statusPage } from './status';

const SCHEME = 'sleuth-status';
const PAGE = Uri.from({ scheme: SCHEME, path: '/Sleuth Index Status.md' });
const BUSY_POLL_MS = 3_000;
const IDLE_POLL_MS = 30_000;

export class IndexStatusView implements Disposable {
    private readonly item: StatusBarItem;
    private readonly changed = new EventEmitter<Uri>();
    private readonly disposables: Disposable[] = [];
    private last: IndexStatus | undefined;
    private timer: NodeJS.Timeout | undefined;
    private stopped = false;

    constructor(
        private readonly server: ServerManager,
        private readonly output: LogOutputChannel,
    ) {
        this.item = window.createStatusBarItem('sleuth.indexStatus', StatusBarAlignment.Left, 10);
        this.item.name = 'Sleuth Index';
        this.item.command = Commands.indexStatus;
        const provider: TextDocumentContentProvider = {
            onDidChange: this.changed.event,
            provideTextDocumentContent: () => statusPage(this.last ?? {}),
        };
        this.disposables.push(this.item, this.changed, workspace.registerTextDocumentContentProvider(SCHEME, provider));
        this.render();
        this.item.show();
        this.schedule(0);
    }

    /** Shows `status` (from a command that just fetched it) and updates an open status page. */
    show(status: IndexStatus): void {
        this.last = status;
        this.render();
        this.changed.fire(PAGE);
        this.schedule(this.busy() ? BUSY_POLL_MS : IDLE_POLL_MS);
    }

    /** Opens the status page (read-only) beside nothing else: a preview tab. */
    async openPage(status: IndexStatus): Promise<void> {
        this.show(status);
        const doc = await workspace.openTextDocument(PAGE);
        await window.showTextDocument(doc, { preview: true });
    }

    private busy(): boolean {
        const state = this.last?.state;
        return state === undefined || state === 'building' || state === 'loading' || state === 'absent' || state === 'stale';
    }

    private render(): void {
        const view = statusBarView(this.last, this.last ? undefined : this.server.failure());
        this.item.text = view.text;
        this.item.tooltip = view.tooltip;
        this.item.backgroundColor =
            view.severity === 'error' ? new ThemeColor('statusBarItem.errorBackground')
            : view.severity === 'warning' ? new ThemeColor('statusBarItem.warningBackground') : undefined;
    }

    private schedule(ms: number): void {
        if (this.stopped) return;
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.poll(), ms);
    }

    private async poll(): Promise<void> {
        const client = this.server.current();
        if (!client) {
            this.last = undefined; // no server: the item says why (or that it is starting)
            this.render();
            this.schedule(BUSY_POLL_MS);
            return;
        }
        try {
            const status = (await client.sendRequest(ExecuteCommandRequest.type, {
                command: ServerCommands.indexStatus,
                arguments: [{}],
            })) as IndexStatus | null;
            this.show(status ?? {});
        } catch (e) {
            this.output.debug(`Index status poll failed: ${e instanceof Error ? e.message : String(e)}`);
            this.schedule(BUSY_POLL_MS);
        }
    }

    dispose(): void {
        this.stopped = true;
        if (this.timer) clearTimeout(this.timer);
        this.disposables.forEach((d) => d.dispose());
    }
}
