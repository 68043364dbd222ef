import { strict as assert } from 'assert';
import { describe, it } from 'node:test';
import { ago, duration, humanBytes, localTime, statusBarView, statusPage } from '../../src/status';

const now = new Date(2026, 10, 25, 21, 50, 0);
const at = (h: number, m: number, dayOffset = 0) => new Date(2026, 10, 25 + dayOffset, h, m).toISOString();

describe('index status for people', () => {
    it('shows times in local time with how long ago, never the UTC ISO string', () => {
        assert.equal(localTime(at(21, 41), now), 'today at 21:41 (9 minutes ago)');
        assert.equal(localTime(at(9, 5, -1), now), 'yesterday at 09:05 (37 hours ago)');
        assert.equal(localTime(at(8, 0, -5), now), '2026-11-20 08:00 (6 days ago)');
        assert.equal(localTime('not a date', now), undefined);
        assert.equal(ago(30_000), 'just now');
    });
    it('shows sizes and durations in human units', () => {
        assert.equal(humanBytes(1536), '1.5 KB');
        assert.equal(humanBytes(3 * 1024 ** 3), '3.0 GB');
        assert.equal(duration(0.25), '250 ms');
        assert.equal(duration(125), '2 min 5 s');
    });
    it('the status bar shows state and file count; the tooltip has no store path or ISO time', () => {
        const st = { state: 'ready', files: 78123, bytes: 1.2 * 1024 ** 3, store_bytes: 512 * 1024 ** 2, last_build: at(21, 41), last_build_seconds: 35.2, store_path: '/root/.cache/sleuth/774c/gen-1' };
        const view = statusBarView(st, undefined, now);
        assert.equal(view.text, '$(database) Sleuth 78,123 files');
        assert.match(view.tooltip, /ready/);
        assert.match(view.tooltip, /78,123 files \(1\.2 GB of text\)/);
        assert.match(view.tooltip, /Last built today at 21:41 \(9 minutes ago\), in 35 s/);
        assert.match(view.tooltip, /512\.0 MB/);
        assert.doesNotMatch(view.tooltip, /\/root|Z\b|T21/);
    });
    it('a building index spins; a failed server says why', () => {
        assert.equal(statusBarView({ state: 'building', files: 0 }, undefined, now).severity, 'busy');
        const down = statusBarView(undefined, 'Sleuth cannot start: no Python 3.11', now);
        assert.equal(down.severity, 'error');
        assert.match(down.tooltip, /no Python 3\.11/);
    });
    it('the status page lists every field readably, store path included', () => {
        const page = statusPage({ state: 'stale', files: 2, bytes: 24, pending_updates: 1, store_path: '/c/gen-1', store_bytes: 192524, last_build: at(21, 41), last_build_seconds: 0.39, watcher: { state: 'watching', overflows: 0 } }, now);
        assert.match(page, /^# Sleuth index status/);
        assert.match(page, /catching up with 1 changed file/);
        assert.match(page, /Last built\*\*: +today at 21:41 \(9 minutes ago\), in 390 ms/);
        assert.match(page, /Size on disk\*\*: +188\.0 KB/);
        assert.match(page, /`\/c\/gen-1`/);
        assert.match(page, /Rebuild Index/);
    });
});
