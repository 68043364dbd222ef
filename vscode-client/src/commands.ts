/**
 * The palette commands: the three search pickers, the index commands and Restart Server, and the
 * Grep picker's toggle shortcuts (Alt+C/W/R, bound in package.json while the picker is open).
 */
import { CancellationToken, Disposable, LogOutputChannel, ProgressLocation, QuickInputButton, QuickInputButtonLocation, ThemeIcon, commands, window } from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import { GrepToggles, filesArgs, grepArgs, textArgs } from './args';
import type { ServerManager } from './client';
import { Commands, PartialKeys, Requests, SERVER_ID, ServerCommands } from './constants';
import { FileItem, GrepMatch, TextResult, fileRow, grepRow, indexStatusLine, textRow } from './format';
import { regexHint } from './messages';
import { SearchPicker, errorText, messageRow, showSearchPicker } from './picker';
import { IndexStatusView } from './statusbar';
import { getConfiguration, registerCommand } from './vscodeapi';

/** Toggle state survives between openings of the Grep picker (and the title says which are on). */
const toggles: GrepToggles = { matchCase: false, wholeWord: false, regex: false };

/** Context key set while the Grep picker is open: package.json binds Alt+C/W/R under it. */
const GREP_PICKER_OPEN = 'sleuth.grepPickerOpen';
/** The shortcut of each toggle, as the title and hints name it (VS Code's search view uses the same). */
export const TOGGLE_KEYS: Record<keyof GrepToggles, string> = process.platform === 'darwin'
    ? { matchCase: '⌥⌘C', wholeWord: '⌥⌘W', regex: '⌥⌘R' }
    : { matchCase: 'Alt+C', wholeWord: 'Alt+W', regex: 'Alt+R' };

/** The toggles' state in words, for the Grep picker's title. */
export function togglesLabel(t: GrepToggles): string {
    return [t.regex ? 'regex' : 'text', t.wholeWord ? 'whole word' : '', t.matchCase ? 'match case' : ''].filter((x) => x).join(', ');
}

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

export function registerPaletteCommands(server: ServerManager, output: LogOutputChannel, statusView?: IndexStatusView): Disposable[] {
    /** Flips a toggle of the open Grep picker (its shortcut was pressed), or undefined when none is open. */
    let flipToggle: ((which: keyof GrepToggles) => void) | undefined;
    const grep = () => {
        const s = pickerSettings();
        const makeButtons = () => ({
            matchCase: toggleButton('case-sensitive', `Match Case (${TOGGLE_KEYS.matchCase})`, toggles.matchCase),
            wholeWord: toggleButton('whole-word', `Match Whole Word (${TOGGLE_KEYS.wholeWord})`, toggles.wholeWord),
            regex: toggleButton('regex', `Use Regular Expression (${TOGGLE_KEYS.regex})`, toggles.regex),
        });
        // VS Code flips a clicked button's `toggle.checked` in place; a shortcut makes new buttons.
        let buttons: Record<keyof GrepToggles, QuickInputButton> = makeButtons();
        const selection = window.activeTextEditor?.selection;
        const selected = selection && !selection.isEmpty && selection.isSingleLine ? window.activeTextEditor!.document.getText(selection) : '';
        const syncFromButtons = () => {
            toggles.matchCase = !!buttons.matchCase.toggle?.checked;
            toggles.wholeWord = !!buttons.wholeWord.toggle?.checked;
            toggles.regex = !!buttons.regex.toggle?.checked;
        };
        let picker: SearchPicker | undefined;
        const flip = (which: keyof GrepToggles) => {
            syncFromButtons();
            toggles[which] = !toggles[which];
            buttons = makeButtons();
            picker?.setButtons([buttons.matchCase, buttons.wholeWord, buttons.regex]);
            picker?.refresh();
        };
        picker = showSearchPicker(server, output, {
            kind: 'grep',
            get title() {
                return `Sleuth: Grep · ${togglesLabel(toggles)}`;
            },
            placeholder: `Search file contents · ${TOGGLE_KEYS.matchCase} match case · ${TOGGLE_KEYS.wholeWord} whole word · ${TOGGLE_KEYS.regex} regular expression`,
            method: Requests.grep,
            partialKey: PartialKeys.grep,
            buttons: [buttons.matchCase, buttons.wholeWord, buttons.regex],
            regexToggleKey: TOGGLE_KEYS.regex,
            args: (value) => {
                syncFromButtons();
                return value.trim() === '' ? undefined : grepArgs(value, toggles, s.maxResults, s.configuredCase);
            },
            noResults: (value) => {
                const hint = regexHint(value, toggles.regex, 0, TOGGLE_KEYS.regex);
                return hint ? [messageRow(`$(regex) ${hint.label}`, hint.detail, () => flip('regex'))] : [];
            },
            row: (m) => ((m as GrepMatch)?.type === 'match' ? grepRow(m as GrepMatch) : undefined),
        }, s.debounceMs, selected);
        flipToggle = flip;
        void commands.executeCommand('setContext', GREP_PICKER_OPEN, true);
        picker.onDidHide(() => {
            if (flipToggle === flip) {
                flipToggle = undefined;
                void commands.executeCommand('setContext', GREP_PICKER_OPEN, false);
            }
        });
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
            statusView?.show(status ?? {});
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
            if (statusView) {
                statusView.show(status ?? {});
                await statusView.openPage(status ?? {});
            } else void window.showInformationMessage(indexStatusLine(status ?? {}));
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
        registerCommand(Commands.toggleCase, () => flipToggle?.('matchCase')),
        registerCommand(Commands.toggleWholeWord, () => flipToggle?.('wholeWord')),
        registerCommand(Commands.toggleRegex, () => flipToggle?.('regex')),
    ];
}
