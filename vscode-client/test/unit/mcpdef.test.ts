import { strict as assert } from 'assert';
import { describe, it } from 'node:test';
import { MCP_PROVIDER_ID, mcpLaunch } from '../../src/mcpdef';

describe('mcpLaunch', () => {
    it('runs python -m sleuth mcp with every workspace folder as --root, in the first folder', () => {
        assert.deepEqual(mcpLaunch(['/venv/bin/python'], ['/w/a', '/w/b c']), {
            label: 'Sleuth',
            command: '/venv/bin/python',
            args: ['-m', 'sleuth', 'mcp', '--root', '/w/a', '--root', '/w/b c'],
            env: { PYTHONUNBUFFERED: '1' },
            cwd: '/w/a',
        });
    });
    it('keeps the leading arguments of sleuth.interpreter before -m', () => {
        const l = mcpLaunch(['/usr/bin/env', 'python3', '-X', 'utf8'], ['/w']);
        assert.equal(l.command, '/usr/bin/env');
        assert.deepEqual(l.args, ['python3', '-X', 'utf8', '-m', 'sleuth', 'mcp', '--root', '/w']);
    });
    it('without folders passes no --root and no cwd; drops duplicate and empty folders', () => {
        assert.deepEqual(mcpLaunch(['python3'], []).args, ['-m', 'sleuth', 'mcp']);
        assert.equal(mcpLaunch(['python3'], []).cwd, undefined);
        assert.deepEqual(mcpLaunch(['py'], ['/w', '', '/w', '/x']).args, ['-m', 'sleuth', 'mcp', '--root', '/w', '--root', '/x']);
    });
    it('falls back to python3 for an empty interpreter command', () => {
        assert.equal(mcpLaunch([], ['/w']).command, 'python3');
        assert.equal(mcpLaunch([''], ['/w']).command, 'python3');
    });
    it('uses the provider id package.json declares', () => {
        // eslint-disable-next-line @typescript-eslint/no-var-requires
        const pkg = require('../../../package.json');
        const ids = (pkg.contributes.mcpServerDefinitionProviders ?? []).map((p: { id: string }) => p.id);
        assert.deepEqual(ids, [MCP_PROVIDER_ID]);
    });
});
