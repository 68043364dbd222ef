import { strict as assert } from 'assert';
import { describe, it } from 'node:test';
import { caseArg, filesArgs, grepArgs, lmToolName, textArgs, toolCallName } from '../../src/args';
import { CLIENT_KEYS, Inspected, SERVER_KEYS, explicitValue, missingSleuthMessage, resolveInterpreter, serverSettings, shellQuote, substitute } from '../../src/settings';

describe('resolveInterpreter', () => {
    const vars = { workspaceFolder: '/w/proj', userHome: '/home/me' };
    it('prefers the setting, with variables substituted', () => {
        const r = resolveInterpreter(['${workspaceFolder}/.venv/bin/python', '-X', 'utf8'], ['/usr/bin/python3.12'], vars);
        assert.deepEqual(r, { command: ['/w/proj/.venv/bin/python', '-X', 'utf8'], source: 'setting' });
    });
    it('falls back to the Python extension, then to python3', () => {
        assert.deepEqual(resolveInterpreter([], ['/opt/py/bin/python'], vars), { command: ['/opt/py/bin/python'], source: 'python-extension' });
        assert.deepEqual(resolveInterpreter([], undefined, vars), { command: ['python3'], source: 'default' });
        assert.deepEqual(resolveInterpreter(['  '], [], vars), { command: ['python3'], source: 'default' });
    });
    it('accepts a plain string and expands ~', () => {
        assert.deepEqual(resolveInterpreter('~/venv/bin/python', undefined, vars).command, ['/home/me/venv/bin/python']);
    });
    it('leaves unknown variables and a missing workspace folder as written', () => {
        assert.equal(substitute('${env:HOME}/x', {}), '${env:HOME}/x');
        assert.equal(substitute('${workspaceFolder}/py', {}), '${workspaceFolder}/py');
    });
});

describe('serverSettings', () => {
    const table: Record<string, Inspected> = {
        case: { globalValue: 'insensitive', workspaceValue: 'sensitive' },
        maxResults: { globalValue: 500 },
        'index.enabled': { workspaceFolderValue: false, globalValue: true },
        'index.path': { globalValue: null },
        'rateLimit.perMinute': { workspaceValue: 10 },
        hidden: {},
        interpreter: { globalValue: ['/x/python'] },
    };
    it('sends only explicitly set server keys, nested on dots, most specific level first', () => {
        assert.deepEqual(serverSettings((k) => table[k]), {
            case: 'sensitive',
            maxResults: 500,
            index: { enabled: false },
            rateLimit: { perMinute: 10 },
        });
    });
    it('sends nothing when nothing is set', () => {
        assert.deepEqual(serverSettings(() => undefined), {});
    });
    it('explicitValue ignores defaults', () => {
        assert.equal(explicitValue({}), undefined);
        assert.equal(explicitValue({ globalValue: 0 }), 0);
    });
});

describe('messages', () => {
    it('quotes commands for copying', () => {
        assert.equal(shellQuote(['/a b/python', '-m', 'x']), "'/a b/python' -m x");
    });
    it('missing Sleuth names the interpreter, where it came from and the fix', () => {
        const m = missingSleuthMessage({ command: ['/v/bin/python'], source: 'setting' }, 'no-sleuth', "ModuleNotFoundError: No module named 'sleuth'");
        assert.match(m, /\/v\/bin\/python/);
        assert.match(m, /sleuth\.interpreter/);
        assert.match(m, /-m pip install/);
        const nf = missingSleuthMessage({ command: ['python3'], source: 'default' }, 'not-found', 'ENOENT');
        assert.match(nf, /not found/);
    });
});

describe('request arguments', () => {
    it('grep toggles map onto fixed_strings, word and case', () => {
        assert.deepEqual(grepArgs('a.b', { matchCase: false, wholeWord: false, regex: false }, 200, 'smart'), {
            pattern: 'a.b', fixed_strings: true, word: false, case: 'smart', max_results: 200, max_matches_per_file: 50,
        });
        const r = grepArgs('a.b', { matchCase: true, wholeWord: true, regex: true }, 20, 'smart');
        assert.equal(r.fixed_strings, false);
        assert.equal(r.word, true);
        assert.equal(r.case, 'sensitive');
    });
    it('Match Case off follows the configured case unless that is sensitive', () => {
        assert.equal(caseArg(false, 'insensitive'), 'insensitive');
        assert.equal(caseArg(false, 'sensitive'), 'insensitive');
        assert.equal(caseArg(false, undefined), 'smart');
    });
    it('files: globs go as patterns, anything else as a fuzzy query', () => {
        assert.deepEqual(filesArgs('usrctl', 50), { query: 'usrctl', max_results: 50 });
        assert.deepEqual(filesArgs(' src/**/*.ts  *.md ', 50), { patterns: ['src/**/*.ts', '*.md'], max_results: 50 });
    });
    it('text asks for a bounded number of results', () => {
        assert.equal(textArgs('user id', 200).max_results, 20);
        assert.equal(textArgs('user id', 10000).max_results, 100);
    });
    it('language-model tool names round-trip to Sleuth tool names', () => {
        for (const name of ['forge.search_files', 'forge.Search', 'codex.grep_files', 'acode.grep']) {
            assert.equal(toolCallName(lmToolName(name)), name);
        }
        assert.equal(toolCallName('other_tool'), undefined);
    });
});

describe('package.json settings', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pkg = require('../../../package.json');
    const props: Record<string, { scope?: string; description?: string; markdownDescription?: string; enum?: unknown[]; enumDescriptions?: string[] }> =
        pkg.contributes.configuration.properties;
    const keys = Object.keys(props).map((k) => k.slice('sleuth.'.length));
    it('every setting is either sent to the server or read by the client, never both', () => {
        assert.deepEqual([...keys].sort(), [...SERVER_KEYS, ...CLIENT_KEYS].sort());
    });
    it('every setting has a scope, a description and, for enums, one description per value', () => {
        for (const [key, p] of Object.entries(props)) {
            assert.ok(p.scope, `${key} has no scope`);
            assert.ok(p.description || p.markdownDescription, `${key} has no description`);
            if (p.enum) assert.equal(p.enumDescriptions?.length, p.enum.length, `${key} enumDescriptions`);
        }
    });
});
