// End-to-end steps of the Sleuth search view (issue 18), driven as a person would in code-server:
//   view        type a query in the view's form: results grouped by file stream in, the match ranges
//               highlighted; include / exclude globs narrow them; Alt+C / Alt+W / Alt+R flip the
//               toggles (visibly) and Alt+R / Alt+W change what is found; Enter on a row opens it
//   view_more   a 20,000-match query stops at the first page with "Load more", which loads the next
//   view_replace  replace with captures: the Refactor Preview shows the edits and nothing changes on
//               disk until Apply; an open file with unsaved changes is edited in its editor, not on disk
//   view_timing keystroke to first row and to complete, Sleuth's view against VS Code's own search
//               on the same queries in the same run (medians in report.timings.view_vs_builtin)
// Every step leaves screenshots. The fixture's replace/ folder is written by writeViewFixture.
import { mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { NEEDLE, NEEDLE_LINE, STREAM_WORD } from './fixture.mjs';

const SIDEBAR = '[id="workbench.view.extension.sleuth"]';
const TREE_ROWS = `${SIDEBAR} .monaco-list-row`;
/** VS Code's own search view. */
const BUILTIN = '.search-view';
const BUILTIN_ROWS = `${BUILTIN} .monaco-list-row`;
const BUILTIN_INPUT = `${BUILTIN} .search-widget .search-container textarea, ${BUILTIN} .search-widget .search-container input`;

export const REPLACE_FILES = {
    'replace/users.py': 'def load():\n    naïve = "é→ü"; a = get_user(1) + get_user(22)\n    return a\n',
    'replace/orders.py': 'order = get_user(3)\n',
    'replace/open_unsaved.py': '# opened and edited without saving\nvalue = get_user(4)\n',
};
/** Every file has this line once, and no other line holds it: 20,000 matches, one a file. */
export const MORE_QUERY = 'streamwo mword';

export function writeViewFixture(root) {
    for (const [rel, text] of Object.entries(REPLACE_FILES)) {
        mkdirSync(join(root, rel, '..'), { recursive: true });
        writeFileSync(join(root, rel), text);
    }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function viewSteps(ctx) {
    const { log, shot, report, runCommand, WAIT } = ctx;
    const page = () => ctx.page();

    /** The form's frame (a webview: an iframe inside an iframe). */
    async function formFrame() {
        const deadline = Date.now() + WAIT;
        for (;;) {
            for (const f of page().frames()) {
                if (await f.$('#pattern').catch(() => null)) return f;
            }
            if (Date.now() > deadline) throw new Error('the Sleuth search form did not appear');
            await page().waitForTimeout(200);
        }
    }

    async function openView() {
        await runCommand('Sleuth: Search in the Sleuth View');
        const frame = await formFrame();
        await frame.locator('#pattern').waitFor({ timeout: WAIT });
        await frame.locator('#pattern').focus();
        return frame;
    }

    /** The results view's message (progress or summary). */
    const message = () => page().locator(`${SIDEBAR} .message`).first().innerText().catch(() => '');

    async function waitMessage(re, timeout = WAIT) {
        await page().waitForFunction(([sel, src]) => {
            const el = document.querySelector(sel);
            const text = el?.textContent ?? '';
            return !/^(Searching|Loading)/.test(text) && new RegExp(src).test(text);
        }, [`${SIDEBAR} .message`, re.source], { timeout }).catch(async () => {
            throw new Error(`the view's message never matched ${re}: "${await message()}"`);
        });
        return message();
    }

    /** Sets a form field as typing would (one input event), optionally pressing Enter. */
    async function setField(frame, id, value, enter = false) {
        await frame.locator(`#${id}`).fill(value);
        if (enter) await frame.locator(`#${id}`).press('Enter');
    }

    const pressed = (frame, id) => frame.locator(`#${id}`).getAttribute('aria-pressed');

    async function dumpSidebar(name) {
        const html = await page().locator(SIDEBAR).first().evaluate((e) => e.outerHTML).catch((e) => String(e));
        writeFileSync(join(report.artifacts, `${name}.html`), html);
    }

    async function stepView() {
        const frame = await openView();
        await shot('view-open');
        await setField(frame, 'pattern', NEEDLE);
        const fileRow = page().locator(TREE_ROWS, { hasText: 'main.py' }).first();
        try {
            await fileRow.waitFor({ timeout: WAIT });
        } catch (e) {
            await dumpSidebar('view-no-rows');
            throw e;
        }
        await waitMessage(/1 result in 1 file/);
        const matchRow = page().locator(TREE_ROWS, { hasText: 'naïve' }).first();
        const highlight = (await matchRow.locator('.highlight').allInnerTexts()).join('|');
        if (highlight !== NEEDLE) {
            await dumpSidebar('view-highlight');
            throw new Error(`the match row highlights "${highlight}", not "${NEEDLE}"`);
        }
        const fileText = (await fileRow.innerText()).replace(/\s+/g, ' ');
        if (!/src\/app · 1/.test(fileText)) throw new Error(`the file row lacks its folder and count: "${fileText}"`);
        await shot('view-results-highlighted');

        // Alt+R: the same text as a regex finds the line; off again, it does not.
        await setField(frame, 'pattern', 'find_the_\\w+_here\\(\\d+\\)');
        await waitMessage(/No results/);
        await frame.locator('#pattern').press('Alt+r');
        await waitMessage(/1 result in 1 file/);
        if ((await pressed(frame, 'regex')) !== 'true') throw new Error('Alt+R did not show the regex toggle on');
        await shot('view-alt-r-regex-on');
        await frame.locator('#pattern').press('Alt+r');
        await waitMessage(/No results/);
        if ((await pressed(frame, 'regex')) !== 'false') throw new Error('Alt+R did not turn the regex toggle off');
        // Alt+W: "needle" is part of a longer word in main.py: found, then not as a whole word.
        await setField(frame, 'pattern', 'needle');
        await waitMessage(/1 result in 1 file/);
        await frame.locator('#pattern').press('Alt+w');
        await waitMessage(/No results/);
        if ((await pressed(frame, 'word')) !== 'true') throw new Error('Alt+W did not show the whole-word toggle on');
        await shot('view-alt-w-whole-word-on');
        await frame.locator('#pattern').press('Alt+w');
        // Alt+C: smart case (off) finds "NEEDLE" nowhere but "needle" everywhere; on, it is shown pressed.
        await frame.locator('#pattern').press('Alt+c');
        if ((await pressed(frame, 'case')) !== 'true') throw new Error('Alt+C did not show the match-case toggle on');
        await shot('view-alt-c-match-case-on');
        await frame.locator('#pattern').press('Alt+c');
        if ((await pressed(frame, 'case')) !== 'false') throw new Error('Alt+C did not turn the match-case toggle off');

        // Include and exclude globs; file types.
        await setField(frame, 'pattern', 'get_user');
        await setField(frame, 'include', 'replace');
        await waitMessage(/4 results in 3 files/);
        await shot('view-include-replace');
        await setField(frame, 'exclude', 'orders.py');
        await waitMessage(/3 results in 2 files/);
        if (await page().locator(TREE_ROWS, { hasText: 'orders.py' }).count()) throw new Error('orders.py still listed though excluded');
        // File types (as ripgrep, an include glob would take precedence over -t: none here).
        await setField(frame, 'include', '');
        await waitMessage(/3 results in 2 files/);
        await setField(frame, 'types', 'cs');
        await waitMessage(/No results/);
        await setField(frame, 'types', 'py');
        await waitMessage(/3 results in 2 files/);
        await shot('view-exclude-orders');
        const counts = (await page().locator(TREE_ROWS, { hasText: 'users.py' }).first().innerText()).replace(/\s+/g, ' ');
        if (!/· 2\b/.test(counts)) throw new Error(`users.py's row does not count 2 results: "${counts}"`);

        // Keyboard: focus the tree, go to the first match line, Enter opens the file at the match.
        await setField(frame, 'exclude', '');
        await setField(frame, 'types', '');
        await setField(frame, 'include', '');
        await setField(frame, 'pattern', NEEDLE);
        await waitMessage(/1 result in 1 file/);
        const status = page().locator('[id="status.editor.selection"]');
        const openedAtMatch = async (how) => {
            await page().locator('.tab.active', { hasText: 'main.py' }).first().waitFor({ timeout: WAIT });
            await page().waitForFunction((sel) => /\(20 selected\)/.test(document.querySelector(sel)?.textContent ?? ''), '[id="status.editor.selection"]', { timeout: WAIT })
                .catch(async () => { throw new Error(`${how} did not select the match: "${await status.innerText().catch(() => '?')}"`); });
            const where = await status.innerText();
            if (!where.includes(`Ln ${NEEDLE_LINE},`)) throw new Error(`${how} opened at "${where}", not line ${NEEDLE_LINE}`);
            return where;
        };
        // A click on the match line opens the file at the match.
        await page().locator(TREE_ROWS, { hasText: 'naïve' }).first().click();
        const where = await openedAtMatch('a click on the match');
        await shot('view-click-opens-at-match');
        // Keyboard: the results keep the focus; Up to the file, Down to the match, Ctrl+Enter opens it to the side.
        await page().locator(`${TREE_ROWS}.focused`, { hasText: 'naïve' }).first().waitFor({ timeout: WAIT });
        await page().keyboard.press('ArrowUp');
        await page().locator(`${TREE_ROWS}.focused`, { hasText: 'main.py' }).first().waitFor({ timeout: WAIT });
        await page().keyboard.press('ArrowDown');
        await page().locator(`${TREE_ROWS}.focused`, { hasText: 'naïve' }).first().waitFor({ timeout: WAIT });
        await page().keyboard.press('Control+Enter');
        await page().waitForFunction(() => document.querySelectorAll('.editor-group-container').length >= 2, undefined, { timeout: WAIT })
            .catch(() => { throw new Error('Ctrl+Enter on the match did not open it to the side'); });
        await openedAtMatch('Ctrl+Enter on the match');
        await shot('view-keyboard-open-to-side');
        await runCommand('View: Close All Editor Groups');
        report.steps.view = `grouped + highlighted "${highlight}" in main.py (src/app · 1); Alt+R/Alt+W changed the results, Alt+C/W/R shown pressed; include "replace" 4 results in 3 files, exclude orders.py 3 in 2, types cs none; a click opened ${where}; Up/Down/Ctrl+Enter opened it to the side`;
    }

    async function stepViewMore() {
        const frame = await openView();
        await setField(frame, 'pattern', MORE_QUERY);
        const first = await waitMessage(/5,000 results in 5,000 files \(more exist: Load more\)/, 300_000);
        const more = page().locator(TREE_ROWS, { hasText: 'Load more' }).first();
        // The "Load more" row is the last: go there with the keyboard (End) and press Enter.
        await page().locator(TREE_ROWS).first().click();
        // The tree receives its 10,000 rows in batches: End again until the last row is there.
        const deadline = Date.now() + 180_000;
        for (;;) {
            await page().keyboard.press('End');
            if (await more.isVisible()) break;
            if (Date.now() > deadline) throw new Error('the Load more row did not appear at the end of the results');
            await page().waitForTimeout(1000);
        }
        await page().locator(`${TREE_ROWS}.focused`, { hasText: 'Load more' }).first().waitFor({ timeout: WAIT });
        await shot('view-load-more-offered');
        await page().keyboard.press('Enter');
        const second = await waitMessage(/10,000 results in 10,000 files \(more exist: Load more\)/, 300_000);
        await shot('view-loaded-more');
        report.steps.view_more = `first page: "${first}"; after Load more: "${second}"`;
    }

    /** Text of the editor tab's model as shown (the visible lines). */
    const editorText = async () => (await page().locator('.editor-instance .monaco-editor .view-lines').first().innerText().catch(() => '')).replace(/\u00a0/g, ' ');

    async function stepViewReplace() {
        const root = ctx.workspaceRoot();
        const disk = (rel) => readFileSync(join(root, rel), 'utf8');
        // Open replace/open_unsaved.py and change it without saving: a line above shifts the match.
        await page().keyboard.press('Escape');
        await page().keyboard.press('Control+p');
        await page().locator('.quick-input-widget input').fill('open_unsaved.py');
        await page().locator('.quick-input-widget .monaco-list-row.focused', { hasText: 'open_unsaved.py' }).first().waitFor({ timeout: WAIT });
        await page().keyboard.press('Enter');
        await page().locator('.tab.active', { hasText: 'open_unsaved.py' }).first().waitFor({ timeout: WAIT });
        await page().locator('.editor-instance .monaco-editor .view-lines').first().click();
        await page().keyboard.press('Control+Home');
        await page().keyboard.type('UNSAVED = 1\n');
        await page().locator('.tab.active.dirty', { hasText: 'open_unsaved.py' }).first().waitFor({ timeout: WAIT });

        const frame = await openView();
        await setField(frame, 'include', 'replace');
        await setField(frame, 'replace', 'fetch_$1(${2})');
        if ((await pressed(frame, 'regex')) !== 'true') await frame.locator('#pattern').press('Alt+r');
        await setField(frame, 'pattern', 'get_(\\w+)\\((\\d+)\\)');
        await waitMessage(/4 results in 3 files/);
        await shot('view-replace-ready');
        const before = Object.fromEntries(Object.keys(REPLACE_FILES).map((rel) => [rel, disk(rel)]));
        await frame.locator('#replaceAll').click();
        const apply = page().locator('.monaco-button', { hasText: /^Apply$/ }).first();
        await apply.waitFor({ timeout: WAIT });
        await page().waitForTimeout(500); // let the preview tree render for the screenshot
        await shot('view-replace-preview');
        for (const rel of Object.keys(REPLACE_FILES)) {
            if (disk(rel) !== before[rel]) throw new Error(`${rel} changed on disk before the preview was applied`);
        }
        // Entries that need confirmation start unticked: tick each file (all its edits), then Apply.
        for (const rel of Object.keys(REPLACE_FILES)) {
            const name = rel.split('/').pop();
            const row = page().locator('.monaco-list-row', { has: page().locator('.monaco-checkbox'), hasText: name }).first();
            await row.locator('.monaco-checkbox').first().click();
        }
        await shot('view-replace-preview-ticked');
        await apply.click();
        const deadline = Date.now() + WAIT;
        while (!disk('replace/users.py').includes('fetch_user(22)')) {
            if (Date.now() > deadline) throw new Error(`replace/users.py was not replaced on disk: ${JSON.stringify(disk('replace/users.py'))}`);
            await page().waitForTimeout(200);
        }
        const users = disk('replace/users.py');
        if (users !== REPLACE_FILES['replace/users.py'].replaceAll('get_user(1)', 'fetch_user(1)').replaceAll('get_user(22)', 'fetch_user(22)')) {
            throw new Error(`replace/users.py replaced wrongly: ${JSON.stringify(users)}`);
        }
        if (!disk('replace/orders.py').includes('fetch_user(3)')) throw new Error('replace/orders.py was not replaced');
        // The unsaved buffer: edited in the editor (still dirty, with the new text), not on disk.
        await page().locator('.tab', { hasText: 'open_unsaved.py' }).first().click();
        await page().waitForFunction((sel) => /fetch_user\(4\)/.test(document.querySelector(sel)?.innerText ?? ''), '.editor-instance .monaco-editor .view-lines', { timeout: WAIT })
            .catch(async () => { throw new Error(`the open buffer was not edited: ${JSON.stringify(await editorText())}`); });
        const shown = await editorText();
        if (!/UNSAVED = 1/.test(shown)) throw new Error(`the unsaved edit is gone from the buffer: ${JSON.stringify(shown)}`);
        if (disk('replace/open_unsaved.py') !== REPLACE_FILES['replace/open_unsaved.py']) {
            throw new Error(`the unsaved file was written to disk: ${JSON.stringify(disk('replace/open_unsaved.py'))}`);
        }
        const dirty = await page().locator('.tab.dirty', { hasText: 'open_unsaved.py' }).count();
        if (!dirty) throw new Error('open_unsaved.py is no longer marked unsaved');
        await shot('view-replace-applied-unsaved-buffer-edited');
        await waitMessage(/No results/); // the view searched again after the edit
        report.steps.view_replace = `preview shown, disk unchanged until Apply; users.py -> ${JSON.stringify(users)}; open_unsaved.py edited in its editor (dirty, disk unchanged)`;
    }

    /** ms from `act()` to the first row in `rows` and to `done()` being true, timestamped in the page. */
    async function timeSearch(rows, act, doneFn, doneArg) {
        await page().evaluate((sel) => {
            window.__first = undefined;
            const obs = new MutationObserver(() => {
                if (document.querySelector(sel)) {
                    window.__first = Date.now();
                    obs.disconnect();
                }
            });
            obs.observe(document.body, { childList: true, subtree: true });
        }, rows);
        const t0 = Date.now();
        await act();
        await page().waitForFunction(doneFn, doneArg, { timeout: 300_000, polling: 50 });
        const complete = Date.now() - t0;
        await page().locator(rows).first().waitFor({ timeout: WAIT });
        const first = (await page().evaluate(() => window.__first)) - t0;
        return { first, complete };
    }

    async function sleuthSample(query) {
        const frame = await openView();
        await setField(frame, 'pattern', '');
        // Empty: no rows and no message (a stale "No results" would end the timing at once).
        await page().waitForFunction(([rows, msg]) => !document.querySelector(rows) && (document.querySelector(msg)?.textContent ?? '').trim() === '',
            [TREE_ROWS, `${SIDEBAR} .message`], { timeout: WAIT });
        return timeSearch(TREE_ROWS, async () => {
            await frame.locator('#pattern').fill(query);
            await frame.locator('#pattern').press('Enter');
        }, (sel) => /^(?!Searching|Loading).*(results? in \d|No results)/.test(document.querySelector(sel)?.textContent ?? ''), `${SIDEBAR} .message`);
    }

    async function builtinSample(query) {
        await page().keyboard.press('Escape');
        await page().keyboard.press('Control+Shift+f');
        const input = page().locator(BUILTIN_INPUT).first();
        await input.waitFor({ timeout: WAIT });
        await input.focus();
        await page().keyboard.press('Control+a');
        await page().keyboard.press('Delete');
        await page().waitForFunction(([rows, msg]) => !document.querySelector(rows) && !/results? in \d/.test(document.querySelector(msg)?.textContent ?? ''),
            [BUILTIN_ROWS, `${BUILTIN} .messages`], { timeout: WAIT });
        return timeSearch(BUILTIN_ROWS, async () => {
            await page().keyboard.insertText(query);
            await page().keyboard.press('Enter');
        }, (sel) => /results? in \d|No results/.test(document.querySelector(sel)?.textContent ?? ''), `${BUILTIN} .messages`);
    }

    /** Back to a plain literal search over everything (what VS Code's search does by default). */
    async function resetForm(frame) {
        for (const id of ['replace', 'include', 'exclude', 'types']) await setField(frame, id, '');
        for (const [id, key] of [['case', 'c'], ['word', 'w'], ['regex', 'r']]) {
            if ((await pressed(frame, id)) === 'true') await frame.locator('#pattern').press(`Alt+${key}`);
        }
    }

    async function stepViewTiming() {
        await resetForm(await openView());
        const queries = [STREAM_WORD, NEEDLE];
        const out = {};
        for (const q of queries) {
            const s = [];
            const b = [];
            for (let i = 0; i < 3; i++) {
                s.push(await sleuthSample(q));
                if (i === 0) await shot(`timing-sleuth-${q.replace(/\W+/g, '_')}`);
                b.push(await builtinSample(q));
                if (i === 0) await shot(`timing-builtin-${q.replace(/\W+/g, '_')}`);
            }
            const summary = (xs) => ({ first_row_ms: median(xs.map((x) => x.first)), complete_ms: median(xs.map((x) => x.complete)), samples: xs });
            out[q] = { sleuth_view: summary(s), builtin_search: summary(b) };
            log(`timing ${q}: ${JSON.stringify(out[q])}`);
        }
        report.timings.view_vs_builtin = out;
        report.steps.view_timing = Object.entries(out).map(([q, t]) =>
            `"${q}": Sleuth view first row ${t.sleuth_view.first_row_ms} ms / complete ${t.sleuth_view.complete_ms} ms; built-in search ${t.builtin_search.first_row_ms} / ${t.builtin_search.complete_ms} ms`).join('; ');
    }

    return [['view', stepView], ['view_more', stepViewMore], ['view_replace', stepViewReplace], ['view_timing', stepViewTiming]];
}
