// The workspace the end-to-end test opens: a few known files (a grep target whose line has
// multi-byte characters before the match, controllers for Quick-Open abbreviations) and a large
// generated tree under big/ so that a search over it takes long enough to watch results stream in.
import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';

export const NEEDLE = 'find_the_needle_here';
export const NEEDLE_LINE = 42;
export const NEEDLE_TEXT = `    naïve = "é→ü"; value = ${NEEDLE}(42)  # 😀 done`;
export const STREAM_WORD = 'streamword';
/** In every other big file once: 10,000 lines. */
export const HALF_WORD = 'halfword';
export const DENY_GLOB = 'secret/**';

/** Lines of filler text, deterministic from `seed`. */
function filler(seed, count) {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'kernel', 'buffer', 'socket', 'thread', 'queue', 'value', 'index', 'token'];
    const out = [];
    let x = seed * 2654435761 >>> 0;
    for (let i = 0; i < count; i++) {
        const parts = [];
        for (let w = 0; w < 11; w++) {
            x = (x * 1103515245 + 12345) >>> 0;
            parts.push(words[x % words.length] + (x % 97));
        }
        out.push(parts.join(' '));
    }
    return out;
}

/** Writes the workspace under `root`: `bigFiles` files of `linesPerFile` lines under big/, every `streamEvery`-th holding STREAM_WORD. */
export function writeFixture(root, { bigFiles = 20000, linesPerFile = 40, streamEvery = 10 } = {}) {
    const file = (rel, text) => {
        mkdirSync(join(root, rel, '..'), { recursive: true });
        writeFileSync(join(root, rel), text);
    };
    const main = filler(1, NEEDLE_LINE - 1).map((l) => `# ${l}`);
    main.push(NEEDLE_TEXT, ...filler(2, 20).map((l) => `# ${l}`));
    file('src/app/main.py', main.join('\n') + '\n');
    file('src/controllers/UserController.cs', 'public class UserController {\n    public string Name => "users";\n}\n');
    file('src/controllers/OrderController.cs', 'public class OrderController {\n}\n');
    file('src/models/User.cs', 'public record User(string Name);\n');
    // Listed in the e2e settings' sleuth.denyGlobs: a grep that finds only main.py proves that
    // the client's settings reached the server.
    file('secret/keys.txt', `${NEEDLE} in a denied folder\n`);
    file('docs/guide.md', '# Guide\n\nThe user controller returns users by id.\n');
    for (let i = 0; i < bigFiles; i++) {
        const lines = filler(i + 100, linesPerFile);
        if (i % streamEvery === 0) lines[(i * 7) % linesPerFile] += ` ${STREAM_WORD} ${i}`;
        // Every file holds all of STREAM_WORD's trigrams without the word itself, so an index
        // prefilter cannot skip files and the search really reads the whole tree.
        lines[(i * 3 + 1) % linesPerFile] += ' streamwo mword';
        if (i % 2 === 0) lines[(i * 5 + 2) % linesPerFile] += ` ${HALF_WORD}`;
        file(`big/part_${String(Math.floor(i / 100)).padStart(3, '0')}/file_${String(i).padStart(5, '0')}.txt`, lines.join('\n') + '\n');
    }
}
