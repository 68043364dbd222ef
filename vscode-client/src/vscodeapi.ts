/**
 * Thin wrappers over the VS Code API the extension calls, so the rest of the code names one module
 * (and unit tests of the pure modules never load `vscode`).
 */
import {
    ConfigurationChangeEvent,
    Disposable,
    LogOutputChannel,
    Uri,
    WorkspaceConfiguration,
    WorkspaceFolder,
    commands,
    env,
    window,
    workspace,
} from 'vscode';

export function createOutputChannel(name: string): LogOutputChannel {
    return window.createOutputChannel(name, { log: true });
}

export function getConfiguration(section: string, scope?: Uri): WorkspaceConfiguration {
    return workspace.getConfiguration(section, scope);
}

export function registerCommand(command: string, callback: (...args: any[]) => unknown): Disposable {
    return commands.registerCommand(command, callback);
}

export function workspaceFolders(): readonly WorkspaceFolder[] {
    return workspace.workspaceFolders ?? [];
}

export function onConfigurationChanged(listener: (e: ConfigurationChangeEvent) => unknown): Disposable {
    return workspace.onDidChangeConfiguration(listener);
}

export async function copyToClipboard(text: string): Promise<void> {
    await env.clipboard.writeText(text);
}

export function openSettings(query: string): Thenable<unknown> {
    return commands.executeCommand('workbench.action.openSettings', query);
}
