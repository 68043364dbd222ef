// Puts the wheels the extension installs Sleuth from into wheels/ (packaged into the .vsix):
// Sleuth's own wheel built from this checkout, pip's wheel (a venv made without ensurepip gets pip
// from it), every dependency's wheel for one VS Code platform target (default linux-x64) and each
// CPython in SLEUTH_BUNDLE_PYTHONS (default: 3.11 3.12 3.13 3.14), and WHEELS.json (what is there,
// for which Pythons, and which dependency this platform does without and Sleuth's fallback for it).
// Pure-Python and abi3 wheels are shared between versions; the compiled ones are per version.
// scripts/target_wheels.py does the download with the target's environment markers (see there why).
// The dependency wheels are cached per target under ~/.cache/sleuth-wheels/<target>/ and downloaded
// again only when pyproject.toml, the versions or target_wheels.py change.
// SLEUTH_BUNDLE_PYTHONS="" bundles only Sleuth's wheel and pip.
//   node scripts/bundle-wheels.mjs [--target linux-x64] [python]   (python: one with pip, default python3)
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'fs';
import { homedir } from 'os';
import { dirname, join, resolve } from 'path';
import { fileURLToPath } from 'url';

const HERE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REPO = resolve(HERE, '..');
const OUT = join(HERE, 'wheels');
const HELPER = join(HERE, 'scripts', 'target_wheels.py');
const args = process.argv.slice(2);
const targetAt = args.indexOf('--target');
const target = targetAt >= 0 ? args.splice(targetAt, 2)[1] : 'linux-x64';
const python = args[0] ?? process.env.SLEUTH_BUNDLE_PYTHON ?? 'python3';
const versions = (process.env.SLEUTH_BUNDLE_PYTHONS ?? '3.11 3.12 3.13 3.14').split(/[\s,]+/).filter((v) => v);
const cacheRoot = process.env.SLEUTH_WHEEL_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'sleuth-wheels');
const CACHE = join(cacheRoot, target);

// SLEUTH_PURE_WHEEL: Sleuth's wheel without its optional compiled build loop (setup.py), so one wheel
// installs on every target and Python; the index build then takes its numpy path.
const run = (...a) => execFileSync(python, a, { stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, SLEUTH_PURE_WHEEL: '1' } });
const pip = (...a) => run('-m', 'pip', '--disable-pip-version-check', ...a);

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
pip('wheel', '--quiet', '--no-deps', '--wheel-dir', OUT, REPO);
const sleuth = readdirSync(OUT).find((f) => /^sleuth-.*\.whl$/.test(f));
if (!sleuth) throw new Error(`pip wheel left no sleuth wheel in ${OUT}`);

const STAMP = join(CACHE, '.deps-stamp');
const stamp = createHash('sha256').update(readFileSync(join(REPO, 'pyproject.toml'))).update(readFileSync(HELPER))
    .update(`${target} ${versions.join(' ')}`).digest('hex');
if (!(existsSync(STAMP) && readFileSync(STAMP, 'utf8') === stamp)) {
    rmSync(CACHE, { recursive: true, force: true });
    mkdirSync(CACHE, { recursive: true });
    pip('download', '--quiet', '--only-binary=:all:', '--no-deps', '--dest', CACHE, 'pip');
    if (versions.length) {
        run(HELPER, '--target', target, '--pythons', versions.join(','), '--dest', CACHE, join(OUT, sleuth));
    }
    writeFileSync(STAMP, stamp);
}
for (const f of readdirSync(CACHE)) if (f.endsWith('.whl') || f === 'WHEELS.json') copyFileSync(join(CACHE, f), join(OUT, f));
const files = readdirSync(OUT).filter((f) => f.endsWith('.whl'));
const bytes = files.reduce((n, f) => n + statSync(join(OUT, f)).size, 0);
console.log(`wheels/ (${target}): ${files.length} wheels, ${(bytes / 1024 / 1024).toFixed(1)} MB (Sleuth ${sleuth}; Pythons ${versions.join(' ') || 'none'})`);
