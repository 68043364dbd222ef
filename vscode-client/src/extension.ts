/**
 * Entry point: wires the output channel, the server manager, the palette commands, settings and
 * interpreter changes (debounced restart), the language-model tools and the MCP server offered to
 * chat. Kept short on purpose; the work lives in client.ts, picker.ts, commands.ts, tools.ts and mcp.ts.
 */
import { ExtensionContext } from 'vscode';
import { ServerManager } from './client';
import { registerPaletteCommands } from './commands';
import { SERVER_ID, SERVER_NAME } from './constants';
import { registerMcpProvider } from './mcp';
import { onInterpreterChanged } from './python';
import { SERVER_KEYS } from './settings';
import { IndexStatusView } from './statusbar';
import { registerTools } from './tools';
import { registerSearchView } from './view';
import { createOutputChannel, onConfigurationChanged } from './vscodeapi';

let manager: ServerManager | undefined;

const RESTART_DEBOUNCE_MS = 500;

export async function activate(context: ExtensionContext): Promise<void> {
    const output = createOutputChannel(SERVER_NAME);
    context.subscriptions.push(output);
    const server = new ServerManager(context, output);
    manager = server;

    let restartTimer: NodeJS.Timeout | undefined;
    const restartSoon = (why: string) => {
        if (restartTimer) clearTimeout(restartTimer);
        restartTimer = setTimeout(() => {
            output.info(`Restarting the server: ${why}`);
            void server.restart();
        }, RESTART_DEBOUNCE_MS);
    };

    const mcp = registerMcpProvider(output);
    const statusView = new IndexStatusView(server, output);
    context.subscriptions.push(
        statusView,
        ...registerPaletteCommands(server, output, statusView),
        ...mcp.disposables,
        ...registerTools(context, server, output),
        ...registerSearchView(server, output, context.extensionUri, context.workspaceState),
        onConfigurationChanged((e) => {
            if (e.affectsConfiguration(`${SERVER_ID}.interpreter`)) {
                restartSoon('sleuth.interpreter changed');
                mcp.changed();
            }
            else if (SERVER_KEYS.some((k) => e.affectsConfiguration(`${SERVER_ID}.${k}`))) void server.settingsChanged();
        }),
        await onInterpreterChanged(() => {
            restartSoon('the Python extension selected another interpreter');
            mcp.changed();
        }),
        { dispose: () => restartTimer && clearTimeout(restartTimer) },
    );
    void server.restart();
}

export async function deactivate(): Promise<void> {
    await manager?.stop();
    manager = undefined;
}
