/**
 * Entry point: wires the output channel, the server manager, the palette commands, settings and
 * interpreter changes (debounced restart) and the language-model tools. Kept short on purpose; the
 * work lives in client.ts, picker.ts, commands.ts and tools.ts.
 */
import { ExtensionContext } from 'vscode';
import { ServerManager } from './client';
import { registerPaletteCommands } from './commands';
import { SERVER_ID, SERVER_NAME } from './constants';
import { onInterpreterChanged } from './python';
import { SERVER_KEYS } from './settings';
import { registerTools } from './tools';
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

    context.subscriptions.push(
        ...registerPaletteCommands(server, output),
        ...registerTools(context, server, output),
        onConfigurationChanged((e) => {
            if (e.affectsConfiguration(`${SERVER_ID}.interpreter`)) restartSoon('sleuth.interpreter changed');
            else if (SERVER_KEYS.some((k) => e.affectsConfiguration(`${SERVER_ID}.${k}`))) void server.settingsChanged();
        }),
        await onInterpreterChanged(() => restartSoon('the Python extension selected another interpreter')),
        { dispose: () => restartTimer && clearTimeout(restartTimer) },
    );
    void server.restart();
}

export async function deactivate(): Promise<void> {
    await manager?.stop();
    manager = undefined;
}
