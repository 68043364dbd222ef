/**
 * The palette commands: the three search pickers, the index commands and Restart Server.
 */
import { CancellationToken, Disposable, LogOutputChannel, ProgressLocation, QuickInputButton, QuickInputButtonLocation, ThemeIcon, window } from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import { GrepToggles, filesArgs, grepArgs, textArgs } from './args';
import type { ServerManager } from './client';
import { Commands, PartialKeys, Requests, SERVER_ID, ServerCommands } from './constants';
import { FileItem, GrepMatch, TextResult, fileRow, grepRow, indexStatusLine, textRow } from './format';
import { errorText, showSearchPicker } from './picker';
import { getConfiguration, registerCommand } from './vscodeapi';

/** Toggle state survives between openings of the Grep picker. */
const toggles: GrepToggles = { matchCase: false, wholeWord: false, regex: false };

function toggleButton(icon: string, tooltip: string, checked: boolean): QuickInputButton {
    return { iconPath: new ThemeIcon(icon), tooltip, toggle: { checked }, location: QuickInputButtonLocation.Input };
}

function pickerSettings(): { debounceMs: number; maxResults: number; configuredCase: unknown } {
    const cfg = getConfiguration(SERVER_ID);
    return {
        debounceMs: cfg.get<number>('search.debounceMs', 100),
        maxResults: cfg.get<number>('search.maxResults', 200),
        configuredCase: cfg.get('case'),
    };
}

/** Text of a server answer for the "not available yet" case (command unknown to this server version). */
function isUnavailable(e: unknown): boolean {
    return /unknown command|not available|method not found|unhandled method|not supported/i.test(errorText(e));
}

async function executeServerCommand(
    server: ServerManager,
    command: string,
    args: Record<string, unknown>,
    token?: CancellationToken,
): Promise<Record<string, unknown>> {
    const client = await server.ready();
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] }, token)) as Record<string, unknown>;
}

export function registerPaletteCommands(server: ServerManager, output: LogOutputChannel): Disposable[] {
    const grep = () => {
        const s = pickerSettings();
        const caseBtn = toggleButton('case-sensitive', 'Match Case', toggles.matchCase);
        const wordBtn = toggleButton('whole-word', 'Match Whole Word', toggles.wholeWord);
        const regexBtn = toggleButton('regex', 'Use Regular Expression', toggles.regex);
        const selection = window.activeTextEditor?.selection;
        const selected = selection && !selection.isEmpty && selection.isSingleLine ? window.activeTextEditor!.document.getText(selection) : '';
        showSearchPicker(server, output, {
            kind: 'grep',
            title: 'Sleuth: Grep',
            placeholder: 'Search file contents (literal; toggle regex, case and whole word on the right)',
            method: Requests.grep,
            partialKey: PartialKeys.grep,
            buttons: [caseBtn, wordBtn, regexBtn],
            args: (value) => {
                toggles.matchCase = !!caseBtn.toggle?.checked;
                toggles.wholeWord = !!wordBtn.toggle?.checked;
                toggles.regex = !!regexBtn.toggle?.checked;
                return value.trim() === '' ? undefined : grepArgs(value, toggles, s.maxResults, s.configuredCase);
            },
            row: (m) => ((m as GrepMatch)?.type === 'match' ? grepRow(m as GrepMatch) : undefined),
        }, s.debounceMs, selected);
    };
    const files = () => {
        const s = pickerSettings();
        showSearchPicker(server, output, {
            kind: 'files',
            title: 'Sleuth: Find Files',
            placeholder: 'File name, abbreviated as in Quick Open (usrctl finds UserController.cs), or globs (src/**/*.ts)',
            method: Requests.files,
            partialKey: PartialKeys.files,
            args: (value) => (value.trim() === '' ? undefined : filesArgs(value, s.maxResults)),
            row: (f) => (typeof (f as FileItem)?.path === 'string' ? fileRow(f as FileItem) : undefined),
        }, s.debounceMs);
    };
    const text = () => {
        const s = pickerSettings();
        showSearchPicker(server, output, {
            kind: 'text',
            title: 'Sleuth: Search Text',
            placeholder: 'Ranked search: words, "exact phrase", OR, -exclude, prefix*',
            method: Requests.text,
            partialKey: PartialKeys.text,
            args: (value) => (value.trim() === '' ? undefined : textArgs(value, s.maxResults)),
            row: (r) => (typeof (r as TextResult)?.path === 'string' ? textRow(r as TextResult) : undefined),
        }, s.debounceMs);
    };
    const rebuildIndex = async () => {
        try {
            const status = await window.withProgress(
                { location: ProgressLocation.Notification, title: 'Sleuth: rebuilding the index', cancellable: true },
                (_progress, token) => executeServerCommand(server, ServerCommands.indexBuild, { full: true }, token),
            );
            void window.showInformationMessage(indexStatusLine(status ?? {}));
        } catch (e) {
            const prefix = isUnavailable(e) ? 'Sleuth: the index is not available yet in this server' : 'Sleuth: rebuilding the index failed';
            void window.showErrorMessage(`${prefix}: ${errorText(e)}`);
        }
    };
    const indexStatus = async () => {
        try {
            const status = await executeServerCommand(server, ServerCommands.indexStatus, {});
            output.info(`Index status: ${JSON.stringify(status)}`);
            void window.showInformationMessage(indexStatusLine(status ?? {}));
        } catch (e) {
            const prefix = isUnavailable(e) ? 'Sleuth: index status not available yet' : 'Sleuth: index status failed';
            void window.showErrorMessage(`${prefix}: ${errorText(e)}`);
        }
    };
    const restart = async () => {
        const client = await server.restart();
        if (client) void window.setStatusBarMessage('Sleuth server restarted', 3000);
    };
    return [
        registerCommand(Commands.grep, grep),
        registerCommand(Commands.files, files),
        registerCommand(Commands.text, text),
        registerCommand(Commands.rebuildIndex, rebuildIndex),
        registerCommand(Commands.indexStatus, indexStatus),
        registerCommand(Commands.restart, restart),
    ];
}
