/**
 * The language client's life cycle: resolve the interpreter, check that it can import Sleuth, start
 * `python -m sleuth serve` over stdio, stop and restart it. Everything else asks `ServerManager.ready()`
 * for a running client.
 */
import { execFile } from 'child_process';
import { ExtensionContext, LogOutputChannel, Uri, window } from 'vscode';
import {
    DidChangeConfigurationNotification,
    LanguageClient,
    LanguageClientOptions,
    RevealOutputChannelOn,
    ServerOptions,
    TransportKind,
} from 'vscode-languageclient/node';
import { SERVER_ID, SERVER_NAME } from './constants';
import { selectedInterpreter } from './python';
import { ownEnvironment, setOwnInterpreter } from './selfinstall';
import { Interpreter, SERVER_ARGS, missingSleuthMessage, resolveInterpreter, serverSettings, shellQuote } from './settings';
import { copyToClipboard, getConfiguration, openSettings, workspaceFolders } from './vscodeapi';

/** Python that prints the Python version and where Sleuth lives; exit 3 = too old, 4 = no Sleuth. */
const PROBE = [
    'import sys',
    'if sys.version_info < (3, 11): print(sys.version.split()[0]); sys.exit(3)',
    'try:\n    import sleuth\nexcept Exception as e:\n    print(type(e).__name__ + ": " + str(e)); sys.exit(4)',
    'print(sleuth.__file__)',
].join('\n');

interface ProbeResult {
    ok: boolean;
    failure?: 'not-found' | 'no-sleuth' | 'too-old';
    detail: string;
}

function probe(command: string[]): Promise<ProbeResult> {
    return new Promise((resolve) => {
        execFile(command[0], [...command.slice(1), '-c', PROBE], { timeout: 30_000 }, (error, stdout, stderr) => {
            const out = `${stdout}`.trim();
            if (!error) return resolve({ ok: true, detail: out });
            const code = (error as NodeJS.ErrnoException).code;
            if (code === 'ENOENT' || code === 'EACCES') return resolve({ ok: false, failure: 'not-found', detail: String(code) });
            const exit = (error as { code?: number }).code;
            if (exit === 3) return resolve({ ok: false, failure: 'too-old', detail: `Python ${out}` });
            return resolve({ ok: false, failure: 'no-sleuth', detail: out || `${stderr}`.trim().split('\n').pop() || error.message });
        });
    });
}

/** Owns the one LanguageClient; restarts are serialised. */
export class ServerManager {
    private client: LanguageClient | undefined;
    private starting: Promise<LanguageClient | undefined> | undefined;
    private lastError: string | undefined;

    constructor(
        private readonly context: ExtensionContext,
        private readonly output: LogOutputChannel,
    ) {}

    /** The running client, starting it when needed; throws with a message a user can act on. */
    async ready(): Promise<LanguageClient> {
        if (this.client?.isRunning()) return this.client;
        let client = await (this.starting ?? this.restart());
        // Started once but gone since (crashed past the client's own restarts): start again.
        if (client && !client.isRunning() && client === this.client) client = await this.restart();
        if (!client) throw new Error(this.lastError ?? 'The Sleuth server is not running; run "Sleuth: Restart Server".');
        return client;
    }

    /** The running client without starting one (for polling: the status bar never starts the server). */
    current(): LanguageClient | undefined {
        return this.client?.isRunning() ? this.client : undefined;
    }

    /** Why the last start failed, while no server runs. */
    failure(): string | undefined {
        return this.current() ? undefined : this.lastError;
    }

    /** Stop the current server (if any) and start a new one. */
    restart(): Promise<LanguageClient | undefined> {
        const previous = this.starting ?? Promise.resolve(undefined);
        this.starting = previous.catch(() => undefined).then(() => this.startFresh());
        return this.starting;
    }

    private async startFresh(): Promise<LanguageClient | undefined> {
        await this.stop();
        this.lastError = undefined;
        const folder = workspaceFolders()[0];
        const config = getConfiguration(SERVER_ID, folder?.uri);
        let interp: Interpreter = resolveInterpreter(config.get('interpreter'), await selectedInterpreter(folder?.uri), {
            workspaceFolder: folder?.uri.fsPath,
        });
        this.output.info(`Interpreter (${interp.source}): ${shellQuote(interp.command)}`);
        let checked = await probe(interp.command);
        setOwnInterpreter(undefined);
        if (!checked.ok && interp.source !== 'setting') {
            // No interpreter with Sleuth was configured: use (or make) the extension's own environment.
            const own = await ownEnvironment(this.context, this.output, interp.source === 'python-extension' ? interp.command : undefined);
            if (own && 'error' in own) {
                this.failWith(own.error);
                return undefined;
            }
            if (own) {
                interp = { command: own.command, source: 'own' };
                checked = await probe(own.command);
                if (checked.ok) setOwnInterpreter(own.command);
            }
        }
        if (!checked.ok) {
            this.fail(interp, checked);
            return undefined;
        }
        this.output.info(`Sleuth package: ${checked.detail}`);
        const client = this.create(interp, folder?.uri);
        try {
            await client.start();
        } catch (e) {
            this.lastError = `The Sleuth server did not start: ${e instanceof Error ? e.message : String(e)}. See the "Sleuth" output channel.`;
            this.output.error(this.lastError);
            void window.showErrorMessage(this.lastError, 'Show Log').then((pick) => pick && this.output.show());
            return undefined;
        }
        this.client = client;
        return client;
    }

    private fail(interp: Interpreter, checked: ProbeResult): void {
        const message = missingSleuthMessage(interp, checked.failure ?? 'no-sleuth', checked.detail);
        this.lastError = message;
        this.output.error(message);
        const install = `${shellQuote(interp.command)} -m pip install sleuth`;
        void window.showErrorMessage(message, 'Open Settings', 'Copy Install Command', 'Show Log').then(async (pick) => {
            if (pick === 'Open Settings') await openSettings('sleuth.interpreter');
            else if (pick === 'Copy Install Command') await copyToClipboard(install);
            else if (pick === 'Show Log') this.output.show();
        });
    }

    /** A failure before any interpreter could be checked (no Python, the environment not made). */
    private failWith(message: string): void {
        this.lastError = message;
        this.output.error(message);
        void window.showErrorMessage(message, 'Open Settings', 'Show Log').then(async (pick) => {
            if (pick === 'Open Settings') await openSettings('sleuth.interpreter');
            else if (pick === 'Show Log') this.output.show();
        });
    }

    private create(interp: Interpreter, scope: Uri | undefined): LanguageClient {
        const folder = workspaceFolders()[0];
        const serverOptions: ServerOptions = {
            command: interp.command[0],
            args: [...interp.command.slice(1), ...SERVER_ARGS],
            transport: TransportKind.stdio,
            options: { cwd: folder?.uri.fsPath, env: { ...process.env, PYTHONUNBUFFERED: '1' } },
        };
        const inspectIn = (scopeUri?: string) => {
            const cfg = getConfiguration(SERVER_ID, scopeUri ? Uri.parse(scopeUri) : scope);
            return (key: string) => cfg.inspect(key);
        };
        const clientOptions: LanguageClientOptions = {
            // Open files are sent so searches see unsaved text (use_open_buffers).
            documentSelector: [{ scheme: 'file' }],
            outputChannel: this.output,
            revealOutputChannelOn: RevealOutputChannelOn.Never,
            // No storagePath: the server keeps one index per set of folders in the user cache directory
            // (or `sleuth.index.path`), shared with the CLI and other windows on the same folders.
            initializationOptions: {
                settings: serverSettings(inspectIn()),
            },
            middleware: {
                workspace: {
                    // Answer section `sleuth` with the settings a user set, never the client-only ones.
                    configuration: async (params, token, next) => {
                        const answers = await next(params, token);
                        if (!Array.isArray(answers)) return answers;
                        return params.items.map((item, i) =>
                            item.section === SERVER_ID ? serverSettings(inspectIn(item.scopeUri)) : answers[i],
                        );
                    },
                },
            },
        };
        return new LanguageClient(SERVER_ID, SERVER_NAME, serverOptions, clientOptions);
    }

    /** Tell the server to pull `sleuth` settings again (pull model: no payload). */
    async settingsChanged(): Promise<void> {
        if (this.client?.isRunning()) {
            await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
        }
    }

    async stop(): Promise<void> {
        const client = this.client;
        this.client = undefined;
        if (client) {
            try {
                await client.stop(5000);
            } catch (e) {
                this.output.warn(`Stopping the server: ${e instanceof Error ? e.message : String(e)}`);
            }
        }
    }
}
