/**
 * Sleuth's own Python environment, the pure part (unit-tested): which Pythons to try, which one
 * to build the environment from, where it lives and what to say when there is none.
 *
 * The .vsix carries wheels/ (scripts/bundle-wheels.mjs): Sleuth's wheel, pip's, and the
 * dependencies' wheels for Linux x86-64 and the CPython versions current distributions ship. When
 * no interpreter with Sleuth is configured, the extension makes a venv in its global storage from
 * the first Python >= 3.11 it finds and installs Sleuth there from those wheels (offline; PyPI only
 * for a Python whose compiled wheels are not bundled). `sleuth.interpreter` stays an override.
 */
import * as path from 'path';

/** Commands tried, in order, for a Python to build the environment from (after the one configured). */
export const PYTHON_CANDIDATES: readonly string[] = ['python3', 'python3.14', 'python3.13', 'python3.12', 'python3.11', 'python'];

export const MIN_PYTHON: readonly [number, number] = [3, 11];

/** A Python found on the machine. */
export interface FoundPython {
    command: string[];
    /** `3.12` */
    version: string;
    /** sys.executable, for the log */
    executable?: string;
}

/** `3.12` -> [3, 12]; undefined when not a version. */
export function parseVersion(v: string): [number, number] | undefined {
    const m = /^(\d+)\.(\d+)/.exec(v.trim());
    return m ? [Number(m[1]), Number(m[2])] : undefined;
}

export function isSupported(version: string): boolean {
    const v = parseVersion(version);
    return !!v && (v[0] > MIN_PYTHON[0] || (v[0] === MIN_PYTHON[0] && v[1] >= MIN_PYTHON[1]));
}

/** CPython versions (`3.12`) whose compiled wheels are bundled, from the wheels' names (`cp312`). */
export function bundledVersions(wheelNames: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (const name of wheelNames) {
        const m = /-cp3(\d+)-cp3\d+-/.exec(name);
        if (m) out.add(`3.${m[1]}`);
    }
    return out;
}

/**
 * The Python to build from: the first supported one whose wheels are bundled (an offline install),
 * else the first supported one (pip fetches what is missing from PyPI); undefined when none is >= 3.11.
 * Duplicates (`python3` and `python3.11` being the same interpreter) are harmless: the first wins.
 */
export function choosePython(found: readonly FoundPython[], bundled: Set<string>): FoundPython | undefined {
    const ok = found.filter((p) => isSupported(p.version));
    return ok.find((p) => bundled.has(p.version)) ?? ok[0];
}

/** Sleuth's wheel in `wheelNames`, and pip's. */
export function findWheels(wheelNames: readonly string[]): { sleuth?: string; pip?: string } {
    return {
        sleuth: wheelNames.find((n) => /^sleuth-[^-]+-.*\.whl$/.test(n)),
        pip: wheelNames.find((n) => /^pip-[^-]+-.*\.whl$/.test(n)),
    };
}

/** The environment's folder: one per Sleuth wheel and Python version, so an update makes a new one. */
export function environmentDir(storage: string, sleuthWheel: string, pythonVersion: string): string {
    const version = /^sleuth-([^-]+)-/.exec(sleuthWheel)?.[1] ?? 'unknown';
    return path.join(storage, `python${pythonVersion}-sleuth${version}`);
}

/** The environment's interpreter. */
export function environmentPython(dir: string, platform: NodeJS.Platform = process.platform): string {
    return platform === 'win32' ? path.join(dir, 'Scripts', 'python.exe') : path.join(dir, 'bin', 'python');
}

/** What a person reads when no Python >= 3.11 exists, with what was tried. */
export function noPythonMessage(tried: readonly { command: string; result: string }[]): string {
    const list = tried.map((t) => `${t.command} (${t.result})`).join(', ');
    return `Sleuth needs Python 3.11 or newer to run, and none was found (tried: ${list}). Install one ` +
        `(for example "sudo apt install python3.12" or from python.org), then run "Sleuth: Restart Server"; ` +
        `or set "sleuth.interpreter" to a Python 3.11+ that has Sleuth installed.`;
}

/** What a person reads when the install itself failed (the log has pip's output). */
export function installFailedMessage(python: FoundPython, detail: string): string {
    return `Sleuth could not set up its Python environment with ${python.command.join(' ')} (Python ${python.version}): ${detail}. ` +
        `See the "Sleuth" output channel for pip's output; or set "sleuth.interpreter" to a Python that has Sleuth installed.`;
}
