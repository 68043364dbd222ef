/**
 * Makes Sleuth's own Python environment on first start (see bootstrap.ts for the why): finds a
 * Python >= 3.11, makes a venv in the extension's global storage without ensurepip (Debian's
 * python3 lacks it unless python3-venv is installed), and installs Sleuth into it with the bundled
 * pip from the bundled wheels, offline first, then with PyPI for what is missing. Progress shows
 * in a notification; every command and pip's output go to the Sleuth output channel.
 *
 * The venv is made in a temporary folder and renamed into place when complete, so a window that
 * starts at the same time, or a start interrupted half-way, never finds a half-made environment.
 */
import { execFile } from 'child_process';
import { randomUUID } from 'crypto';
import { existsSync, promises as fs } from 'fs';
import * as path from 'path';
import { ExtensionContext, LogOutputChannel, ProgressLocation, window } from 'vscode';
import {
    FoundPython,
    PYTHON_CANDIDATES,
    bundledVersions,
    choosePython,
    environmentDir,
    environmentPython,
    findWheels,
    installFailedMessage,
    noPythonMessage,
} from './bootstrap';

/** The interpreter of the environment this extension made, once the server runs from it (mcp.ts reads it). */
let ownPython: string[] | undefined;
export function ownInterpreter(): string[] | undefined {
    return ownPython;
}
export function setOwnInterpreter(command: string[] | undefined): void {
    ownPython = command;
}

interface Run {
    code: number | string | null;
    stdout: string;
    stderr: string;
}

function run(command: string[], timeoutMs: number): Promise<Run> {
    return new Promise((resolve) => {
        execFile(command[0], command.slice(1), { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
            const code = error ? ((error as NodeJS.ErrnoException).code ?? 1) : 0;
            resolve({ code, stdout: `${stdout}`, stderr: `${stderr}` });
        });
    });
}

const VERSION_PROBE = 'import sys, venv; print("%d.%d" % sys.version_info[:2]); print(sys.executable)';

/** Each candidate's version (or why it cannot be used), in order. */
async function findPythons(first: string[] | undefined): Promise<{ found: FoundPython[]; tried: { command: string; result: string }[] }> {
    const found: FoundPython[] = [];
    const tried: { command: string; result: string }[] = [];
    const candidates = [...(first ? [first] : []), ...PYTHON_CANDIDATES.map((c) => [c])];
    for (const command of candidates) {
        const r = await run([...command, '-c', VERSION_PROBE], 20_000);
        const name = command.join(' ');
        if (r.code === 0) {
            const [version, executable] = r.stdout.trim().split('\n');
            found.push({ command, version, executable });
            tried.push({ command: name, result: `Python ${version}` });
        } else {
            tried.push({ command: name, result: r.code === 'ENOENT' ? 'not found' : (r.stderr.trim().split('\n').pop() ?? `exit ${r.code}`) });
        }
    }
    return { found, tried };
}

export type OwnEnvironment = { command: string[] } | { error: string } | undefined;

/**
 * Sleuth's own environment: made now when missing, else the existing one. Undefined when this .vsix
 * carries no wheels (a build without them: the configured interpreter is all there is).
 * `configured`: the interpreter that lacked Sleuth, tried first as the base when it is new enough.
 */
export async function ownEnvironment(context: ExtensionContext, output: LogOutputChannel, configured: string[] | undefined): Promise<OwnEnvironment> {
    const wheelsDir = context.asAbsolutePath('wheels');
    const names = existsSync(wheelsDir) ? await fs.readdir(wheelsDir) : [];
    const { sleuth: sleuthWheel, pip: pipWheel } = findWheels(names);
    if (!sleuthWheel || !pipWheel) return undefined;
    const storage = context.globalStorageUri.fsPath;
    const { found, tried } = await findPythons(configured);
    const base = choosePython(found, bundledVersions(names));
    if (!base) return { error: noPythonMessage(tried) };
    const dir = environmentDir(storage, sleuthWheel, base.version);
    const python = environmentPython(dir);
    if (existsSync(python)) {
        output.info(`Sleuth's own environment: ${dir}`);
        return { command: [python] };
    }
    return window.withProgress(
        { location: ProgressLocation.Notification, title: 'Sleuth: setting up its Python environment (first start only)', cancellable: false },
        async (progress) => {
            const tmp = path.join(storage, `.making-${randomUUID()}`);
            const step = async (message: string, command: string[], timeoutMs: number): Promise<Run> => {
                progress.report({ message });
                output.info(`${message}: ${command.join(' ')}`);
                const r = await run(command, timeoutMs);
                const text = `${r.stdout}${r.stderr}`.trim();
                if (text) output.info(text);
                return r;
            };
            try {
                await fs.mkdir(storage, { recursive: true });
                output.info(`Making Sleuth's own environment from ${base.executable ?? base.command.join(' ')} (Python ${base.version}) in ${dir}`);
                const venv = await step(`creating a Python ${base.version} environment`, [...base.command, '-m', 'venv', '--without-pip', tmp], 120_000);
                if (venv.code !== 0) return { error: installFailedMessage(base, `"python -m venv" failed: ${lastLine(venv)}`) };
                const tmpPython = environmentPython(tmp);
                const pip = [tmpPython, path.join(wheelsDir, pipWheel, 'pip'), 'install', '--disable-pip-version-check', '--no-input'];
                // --isolated: the bundled wheels need no index, whatever pip.conf says.
                let install = await step('installing Sleuth from the bundled wheels', [...pip, '--isolated', '--no-index', '--find-links', wheelsDir, 'sleuth'], 600_000);
                if (install.code !== 0) {
                    install = await step('installing Sleuth (fetching missing wheels from PyPI)', [...pip, '--find-links', wheelsDir, 'sleuth'], 900_000);
                }
                if (install.code !== 0) return { error: installFailedMessage(base, `pip install failed: ${lastLine(install)}`) };
                try {
                    await fs.rename(tmp, dir);
                } catch (e) {
                    if (!existsSync(python)) throw e; // another window finished first: use its environment
                }
                output.info(`Sleuth's own environment is ready: ${dir}`);
                return { command: [python] };
            } catch (e) {
                return { error: installFailedMessage(base, e instanceof Error ? e.message : String(e)) };
            } finally {
                await fs.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
            }
        },
    );
}

function lastLine(r: Run): string {
    const lines = `${r.stderr}\n${r.stdout}`.split('\n').map((l) => l.trim()).filter((l) => l && !/^WARNING: Location/.test(l));
    return lines.pop() ?? `exit code ${r.code}`;
}
