import { strict as assert } from 'assert';
import { describe, it } from 'node:test';
import * as path from 'path';
import { bundledVersions, choosePython, environmentDir, environmentPython, findWheels, isSupported, noPythonMessage } from '../../src/bootstrap';

const WHEELS = [
    'sleuth-0.1.0-py3-none-any.whl',
    'pip-26.3-py3-none-any.whl',
    'numpy-2.4.6-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl',
    'numpy-2.4.6-cp313-cp313-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl',
    'cryptography-50.0.2-cp311-abi3-manylinux_2_28_x86_64.whl',
    'pygls-2.1.1-py3-none-any.whl',
];

describe("Sleuth's own environment", () => {
    it('knows which Pythons the bundled wheels serve (abi3 wheels say nothing)', () => {
        assert.deepEqual([...bundledVersions(WHEELS)].sort(), ['3.11', '3.13']);
    });
    it('needs Python 3.11 or newer', () => {
        assert.ok(isSupported('3.11') && isSupported('3.14') && isSupported('4.0'));
        assert.ok(!isSupported('3.10') && !isSupported('2.7') && !isSupported('garbage'));
    });
    it('prefers a Python whose wheels are bundled (offline), else any supported one', () => {
        const py = (c: string, version: string) => ({ command: [c], version });
        assert.equal(choosePython([py('python3', '3.12'), py('python3.11', '3.11')], bundledVersions(WHEELS))?.command[0], 'python3.11');
        assert.equal(choosePython([py('python3', '3.10'), py('python3.12', '3.12')], bundledVersions(WHEELS))?.command[0], 'python3.12');
        assert.equal(choosePython([py('python3', '3.9')], bundledVersions(WHEELS)), undefined);
    });
    it('finds its wheels and keeps one environment per Sleuth version and Python', () => {
        assert.deepEqual(findWheels(WHEELS), { sleuth: 'sleuth-0.1.0-py3-none-any.whl', pip: 'pip-26.3-py3-none-any.whl' });
        assert.equal(environmentDir('/s', 'sleuth-0.2.0-py3-none-any.whl', '3.12'), path.join('/s', 'python3.12-sleuth0.2.0'));
        assert.equal(environmentPython('/s/e', 'linux'), path.join('/s/e', 'bin', 'python'));
    });
    it('says what was tried and what to do when there is no Python 3.11', () => {
        const m = noPythonMessage([{ command: 'python3', result: 'Python 3.9' }, { command: 'python3.11', result: 'not found' }]);
        assert.match(m, /Python 3\.11 or newer/);
        assert.match(m, /python3 \(Python 3\.9\), python3\.11 \(not found\)/);
        assert.match(m, /sleuth\.interpreter/);
    });
});
