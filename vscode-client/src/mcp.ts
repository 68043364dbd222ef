/**
 * Offers `sleuth mcp` to VS Code's chat (Copilot agent mode and other MCP consumers) through
 * `vscode.lm.registerMcpServerDefinitionProvider` (stable since VS Code 1.101). The definition is
 * rebuilt on each request from the interpreter the language server would use and the current
 * workspace folders, and re-announced when either changes. On a VS Code without the API nothing is
 * registered and the rest of the extension works as before.
 */
import * as vscode from 'vscode';
import { Disposable, EventEmitter, LogOutputChannel, Uri } from 'vscode';
import { SERVER_ID } from './constants';
import { MCP_PROVIDER_ID, McpLaunch, mcpLaunch } from './mcpdef';
import { selectedInterpreter } from './python';
import { ownInterpreter } from './selfinstall';
import { resolveInterpreter, shellQuote } from './settings';
import { getConfiguration, workspaceFolders } from './vscodeapi';

/** The launch VS Code would start now: interpreter resolved as for the language server. */
export async function currentMcpLaunch(): Promise<McpLaunch> {
    const folder = workspaceFolders()[0];
    const interp = resolveInterpreter(getConfiguration(SERVER_ID, folder?.uri).get('interpreter'), await selectedInterpreter(folder?.uri), {
        workspaceFolder: folder?.uri.fsPath,
    });
    // The language server runs from Sleuth's own environment when the configured Python lacks Sleuth.
    const own = interp.source === 'setting' ? undefined : ownInterpreter();
    return mcpLaunch(own ?? interp.command, workspaceFolders().map((f) => f.uri.fsPath));
}

/** True when this VS Code has the MCP provider API (1.101+). */
export function hasMcpApi(): boolean {
    return typeof vscode.lm?.registerMcpServerDefinitionProvider === 'function' && typeof vscode.McpStdioServerDefinition === 'function';
}

/**
 * Registers the provider; returns the disposables and `changed()`, which re-announces the
 * definition (call it when the interpreter or the folders change). Empty without the API.
 */
export function registerMcpProvider(output: LogOutputChannel): { disposables: Disposable[]; changed: () => void } {
    if (!hasMcpApi()) {
        output.info('This VS Code has no MCP server provider API (1.101+): the Sleuth MCP server is not offered to chat.');
        return { disposables: [], changed: () => undefined };
    }
    const emitter = new EventEmitter<void>();
    const build = async (): Promise<vscode.McpStdioServerDefinition> => {
        const launch = await currentMcpLaunch();
        const def = new vscode.McpStdioServerDefinition(launch.label, launch.command, launch.args, launch.env);
        if (launch.cwd) def.cwd = Uri.file(launch.cwd);
        return def;
    };
    const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
        onDidChangeMcpServerDefinitions: emitter.event,
        provideMcpServerDefinitions: async () => [await build()],
        // Started later than provided: take the interpreter and folders of this moment.
        resolveMcpServerDefinition: async (server) => {
            const fresh = await build();
            server.command = fresh.command;
            server.args = fresh.args;
            server.env = fresh.env;
            server.cwd = fresh.cwd;
            output.info(`Starting the MCP server for chat: ${shellQuote([server.command, ...server.args])}`);
            return server;
        },
    };
    const registration = vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider);
    output.info(`Offered the Sleuth MCP server to chat (provider ${MCP_PROVIDER_ID}).`);
    return {
        disposables: [registration, emitter, vscode.workspace.onDidChangeWorkspaceFolders(() => emitter.fire())],
        changed: () => emitter.fire(),
    };
}
