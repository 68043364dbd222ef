// Puts the wheels the extension installs Sleuth from into wheels/ (packaged into the .vsix):
// Sleuth's own wheel built from this checkout, pip's wheel (a venv made without ensurepip gets pip
// from it), and every dependency's wheel for Linux x86-64 and each CPython in SLEUTH_BUNDLE_PYTHONS
// (default: 3.11 3.12 3.13 3.14, the versions current distributions ship). Pure-Python and abi3
// wheels are shared between versions; the compiled ones (numpy, regex, re2, ...) are per version.
// With these the first start installs Sleuth offline; for another Python pip takes the missing
// wheels from PyPI. SLEUTH_BUNDLE_PYTHONS="" bundles only Sleuth's wheel and pip.
//   node scripts/bundle-wheels.mjs [python]   (python: one with pip, default python3)
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'fs';
import { dirname, join, resolve } from 'path';
import { fileURLToPath } from 'url';

const HERE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REPO = resolve(HERE, '..');
const OUT = join(HERE, 'wheels');
const python = process.argv[2] ?? process.env.SLEUTH_BUNDLE_PYTHON ?? 'python3';
const versions = (process.env.SLEUTH_BUNDLE_PYTHONS ?? '3.11 3.12 3.13 3.14').split(/[\s,]+/).filter((v) => v);
const PLATFORMS = ['manylinux_2_28_x86_64', 'manylinux_2_17_x86_64', 'manylinux2014_x86_64', 'linux_x86_64'];

const pip = (...args) => execFileSync(python, ['-m', 'pip', '--disable-pip-version-check', ...args], { stdio: ['ignore', 'ignore', 'inherit'] });

// The dependency wheels change only with pyproject.toml or the versions: downloaded again only then.
const STAMP = join(OUT, '.deps-stamp');
const stamp = createHash('sha256').update(readFileSync(join(REPO, 'pyproject.toml'))).update(versions.join(' ')).digest('hex');
const fresh = existsSync(STAMP) && readFileSync(STAMP, 'utf8') === stamp;
if (!fresh) rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
for (const f of readdirSync(OUT)) if (/^sleuth-.*\.whl$/.test(f)) rmSync(join(OUT, f));
pip('wheel', '--quiet', '--no-deps', '--wheel-dir', OUT, REPO);
const sleuth = readdirSync(OUT).find((f) => /^sleuth-.*\.whl$/.test(f));
if (!sleuth) throw new Error(`pip wheel left no sleuth wheel in ${OUT}`);
if (!fresh) pip('download', '--quiet', '--only-binary=:all:', '--no-deps', '--dest', OUT, 'pip');
for (const v of fresh ? [] : versions) {
    pip('download', '--quiet', '--only-binary=:all:', '--implementation', 'cp', '--python-version', v,
        ...PLATFORMS.flatMap((p) => ['--platform', p]), '--dest', OUT, join(OUT, sleuth));
}
writeFileSync(STAMP, stamp);
const files = readdirSync(OUT).filter((f) => f.endsWith('.whl'));
const bytes = files.reduce((n, f) => n + statSync(join(OUT, f)).size, 0);
console.log(`wheels/: ${files.length} wheels, ${(bytes / 1024 / 1024).toFixed(1)} MB (Sleuth ${sleuth}; Pythons ${versions.join(' ') || 'none'})`);
