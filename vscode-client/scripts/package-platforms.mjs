// Builds one platform-specific .vsix per VS Code target (VS Code installs the one matching the
// machine): the same extension code, each with its platform's wheels (scripts/bundle-wheels.mjs).
//   node scripts/package-platforms.mjs [target ...]   (default: all five below)
// Writes packages/sleuth-<version>-<target>.vsix. Needs `npm ci` first (esbuild, tsc, vsce).
import { execFileSync } from 'child_process';
import { mkdirSync, readFileSync, rmSync } from 'fs';
import { dirname, join, resolve } from 'path';
import { fileURLToPath } from 'url';

const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'];
const HERE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const targets = process.argv.slice(2).length ? process.argv.slice(2) : TARGETS;
const unknown = targets.filter((t) => !TARGETS.includes(t));
if (unknown.length) throw new Error(`unknown target(s) ${unknown.join(', ')}; known: ${TARGETS.join(' ')}`);
const { version } = JSON.parse(readFileSync(join(HERE, 'package.json'), 'utf8'));
const bin = (name) => join(HERE, 'node_modules', '.bin', name);
const sh = (cmd, ...a) => execFileSync(cmd, a, { cwd: HERE, stdio: ['ignore', 'inherit', 'inherit'] });

sh(bin('tsc'), '-p', '.', '--noEmit');
sh(process.execPath, join(HERE, 'scripts', 'build.mjs'));
mkdirSync(join(HERE, 'packages'), { recursive: true });
try {
    for (const target of targets) {
        sh(process.execPath, join(HERE, 'scripts', 'bundle-wheels.mjs'), '--target', target);
        sh(bin('vsce'), 'package', '--no-dependencies', '--allow-missing-repository', '--target', target,
            '-o', join(HERE, 'packages', `sleuth-${version}-${target}.vsix`));
    }
} finally {
    rmSync(join(HERE, 'wheels'), { recursive: true, force: true }); // one target's wheels must not leak into the next `npm run package`
}
