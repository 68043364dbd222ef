/**
 * The interpreter selected in the Python extension (ms-python.python), when it is installed, and its
 * change event. Read through the extension's public `environments` API, typed here only as far as used.
 */
import { Disposable, Event, Uri, extensions } from 'vscode';

interface EnvironmentPath {
    id: string;
    path: string;
}
interface ResolvedEnvironment {
    executable: { uri?: Uri };
}
interface PythonEnvironmentsApi {
    getActiveEnvironmentPath(resource?: Uri): EnvironmentPath;
    resolveEnvironment(env: EnvironmentPath | string): Promise<ResolvedEnvironment | undefined>;
    onDidChangeActiveEnvironmentPath: Event<unknown>;
}

async function api(): Promise<PythonEnvironmentsApi | undefined> {
    const ext = extensions.getExtension<{ environments?: PythonEnvironmentsApi }>('ms-python.python');
    if (!ext) return undefined;
    try {
        const exports = ext.isActive ? ext.exports : await ext.activate();
        return exports?.environments;
    } catch {
        return undefined;
    }
}

/** The selected interpreter's executable for `resource`, or undefined without the Python extension. */
export async function selectedInterpreter(resource?: Uri): Promise<string[] | undefined> {
    const environments = await api();
    if (!environments) return undefined;
    try {
        const active = environments.getActiveEnvironmentPath(resource);
        const resolved = await environments.resolveEnvironment(active);
        const exe = resolved?.executable.uri?.fsPath;
        return exe ? [exe] : undefined;
    } catch {
        return undefined;
    }
}

/** Calls `listener` when the Python extension's selection changes (no-op without it). */
export async function onInterpreterChanged(listener: () => unknown): Promise<Disposable> {
    const environments = await api();
    if (!environments) return new Disposable(() => undefined);
    return environments.onDidChangeActiveEnvironmentPath(() => listener());
}
