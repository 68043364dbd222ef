// End-to-end steps of the Sleuth search view (issue 18), driven as a person would in code-server:
//   view        type a query in the view's form: results grouped by file stream in, the match ranges
//               highlighted; include / exclude globs narrow them; Alt+C / Alt+W / Alt+R flip the
//               toggles (visibly) and Alt+R / Alt+W change what is found; Enter on a row opens it
//               (issue 31) each row is centred on its match: the highlight is in sight in the side bar
//   view_more   a 20,000-match query stops at the first page with "Load more", which loads the next
//   view_replace  Replace with Preview…: the Refactor Preview shows the edits and nothing changes on
//               disk until Apply; an open file with unsaved changes is edited in its editor, not on disk;
//               the $1/${2} template of a (?x) pattern is expanded by the server
//   view_replace_all  Replace All after one confirmation, with Preserve Case
//   view_nav    F4 / Shift+F4 open the next / previous result; Up/Down in the query box walk the
//               search history; collapse all / expand all; copy (row, file, all); context lines;
//               Open in Editor (a read-only results document whose lines go to their match)
//   view_timing keystroke to first row and to complete, Sleuth's view against VS Code's own search
//               on five queries in the same run (medians in report.timings.view_vs_builtin)
// Every step leaves screenshots. The fixture's replace/ folder is written by writeViewFixture.
// The form and the results are webviews: their elements live in frames (formFrame, resultsFrame).
import { mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { HALF_WORD, NEEDLE, NEEDLE_LINE, STREAM_WORD } from './fixture.mjs';

const SIDEBAR = '[id="workbench.view.extension.sleuth"]';
/** Rows of the results list (in its frame). */
const ROWS = '#list .row';
/** VS Code's own search view. */
const BUILTIN = '.search-view';
const BUILTIN_ROWS = `${BUILTIN} .monaco-list-row`;
/** VS Code's search is running while its view's progress bar is on. */
const BUILTIN_BUSY = '[id="workbench.parts.sidebar"] .monaco-progress-container.active';
/** A summary that has not changed for this long (and no progress shown) is the search's end. */
const SETTLE_MS = 600;
const BUILTIN_INPUT = `${BUILTIN} .search-widget .search-container textarea, ${BUILTIN} .search-widget .search-container input`;

export const REPLACE_FILES = {
    'replace/users.py': 'def load():\n    naïve = "é→ü"; a = get_user(1) + get_user(22)\n    return a\n',
    'replace/orders.py': 'order = get_user(3)\n',
    'replace/open_unsaved.py': '# opened and edited without saving\nvalue = get_user(4)\n',
};
/** Replace All with Preserve Case: "color" -> "shade" keeps each match's case. */
export const CASE_FILE = ['replace/case.txt', 'color Color COLOR back-color\n'];
/** Every file has this line once, and no other line holds it: 20,000 matches, one a file. */
export const MORE_QUERY = 'streamwo mword';

export function writeViewFixture(root) {
    for (const [rel, text] of [...Object.entries(REPLACE_FILES), CASE_FILE]) {
        mkdirSync(join(root, rel, '..'), { recursive: true });
        writeFileSync(join(root, rel), text);
    }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function viewSteps(ctx) {
    const { log, shot, report, runCommand, WAIT } = ctx;
    const page = () => ctx.page();

    /** Every frame holding `selector`, with whether it is shown (a hidden one belongs to a webview no longer on screen). */
    async function framesWith(selector) {
        const found = [];
        for (const f of page().frames()) {
            if (f.isDetached()) continue;
            const el = await f.$(selector).catch(() => null);
            if (el) found.push({ frame: f, visible: await el.isVisible().catch(() => false) });
        }
        return found;
    }

    /**
     * The webview frame holding `selector` (a webview: an iframe inside an iframe), the one on screen:
     * a frame left over from an earlier webview still holds the same ids, and typing or clicking there
     * reaches nobody (the messages of a disposed webview are dropped), so the one shown is preferred.
     */
    async function frameWith(selector, what) {
        const deadline = Date.now() + WAIT;
        for (;;) {
            const found = await framesWith(selector);
            const shown = found.filter((x) => x.visible);
            if (found.length > 1) log(`${found.length} frames hold the ${what} (${shown.length} shown): the one shown is used`);
            if (shown.length) return shown[shown.length - 1].frame;
            // The view may be hidden on purpose (VS Code's own search in front): then the only one there is.
            if (found.length === 1) return found[0].frame;
            if (Date.now() > deadline) throw new Error(`the Sleuth ${what} did not appear (${found.length} hidden frames hold it)`);
            await page().waitForTimeout(200);
        }
    }
    const formFrame = () => frameWith('#pattern', 'search form');
    const resultsFrame = () => frameWith('#list', 'results list');

    async function openView() {
        await runCommand('Sleuth: Search in the Sleuth View');
        const frame = await formFrame();
        await frame.locator('#pattern').waitFor({ timeout: WAIT });
        await frame.locator('#pattern').focus();
        return frame;
    }

    /** The results' message (progress or summary). */
    const message = async () => (await resultsFrame()).locator('#message').innerText().catch(() => '');

    async function waitMessage(re, timeout = WAIT) {
        const rf = await resultsFrame();
        await rf.waitForFunction((src) => {
            const text = document.getElementById('message')?.textContent ?? '';
            return !/^(Searching|Loading)/.test(text) && new RegExp(src).test(text);
        }, re.source, { timeout, polling: 50 }).catch(async () => {
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

    async function dumpResults(name) {
        const rf = await resultsFrame().catch(() => undefined);
        const html = rf ? await rf.locator('body').evaluate((e) => e.outerHTML).catch((e) => String(e)) : 'no results frame';
        writeFileSync(join(report.artifacts, `${name}.html`), html);
    }

    const clipboard = () => page().evaluate(() => navigator.clipboard.readText()).catch((e) => `clipboard unreadable: ${e}`);

    async function stepView() {
        const frame = await openView();
        await shot('view-open');
        await setField(frame, 'pattern', NEEDLE);
        const rf = await resultsFrame();
        const fileRow = rf.locator(`${ROWS}.file`, { hasText: 'main.py' }).first();
        try {
            await fileRow.waitFor({ timeout: WAIT });
        } catch (e) {
            await dumpResults('view-no-rows');
            throw e;
        }
        await waitMessage(/1 result in 1 file/);
        const matchRow = rf.locator(`${ROWS}.line`, { hasText: NEEDLE }).first();
        const highlight = (await matchRow.locator('.highlight').allInnerTexts()).join('|');
        if (highlight !== NEEDLE) {
            await dumpResults('view-highlight');
            throw new Error(`the match row highlights "${highlight}", not "${NEEDLE}"`);
        }
        const dir = await fileRow.locator('.dir').innerText();
        const count = await fileRow.locator('.count').innerText();
        if (dir !== 'src/app' || count !== '1') throw new Error(`the file row lacks its folder and count: "${dir}" "${count}"`);
        // Issue 31: the row is centred on its match, which is in sight at the side bar's width.
        const preview = matchRow.locator('.preview');
        const shownText = await preview.innerText();
        const inSight = await preview.evaluate((el) => {
            const h = el.querySelector('.highlight').getBoundingClientRect();
            const box = el.getBoundingClientRect();
            return h.left >= box.left && h.right <= box.right + 0.5;
        });
        if (!inSight || !shownText.startsWith('…')) throw new Error(`the row is not centred on its match: "${shownText}" (match in sight: ${inSight})`);
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
        if (await rf.locator(ROWS, { hasText: 'orders.py' }).count()) throw new Error('orders.py still listed though excluded');
        // File types (as ripgrep, an include glob would take precedence over -t: none here).
        await setField(frame, 'include', '');
        await waitMessage(/3 results in 2 files/);
        await setField(frame, 'types', 'cs');
        await waitMessage(/No results/);
        await setField(frame, 'types', 'py');
        await waitMessage(/3 results in 2 files/);
        await shot('view-exclude-orders');
        const counts = await rf.locator(`${ROWS}.file`, { hasText: 'users.py' }).first().locator('.count').innerText();
        if (counts !== '2') throw new Error(`users.py's row does not count 2 results: "${counts}"`);

        // Keyboard: focus the list, go to the first match line, Enter opens the file at the match.
        await setField(frame, 'exclude', '');
        await setField(frame, 'types', '');
        await setField(frame, 'include', '');
        await setField(frame, 'pattern', NEEDLE);
        await waitMessage(/1 result in 1 file/);
        const status = page().locator('[id="status.editor.selection"]');
        const openedAtMatch = async (how) => {
            await page().locator('.tab.active', { hasText: 'main.py' }).first().waitFor({ timeout: WAIT }).catch(async (e) => {
                // What to look at when a row's click opened nothing: which frames hold the list, and what they show.
                const lists = await framesWith('#list');
                const seen = await Promise.all(lists.map(async (x) => `${x.visible ? 'shown' : 'hidden'} "${await x.frame.locator('#message').innerText().catch(() => '?')}"`));
                throw new Error(`${how} opened no main.py tab (frames holding the results: ${seen.join('; ') || 'none'}): ${e.message.split('\n')[0]}`);
            });
            await page().waitForFunction((sel) => /\(20 selected\)/.test(document.querySelector(sel)?.textContent ?? ''), '[id="status.editor.selection"]', { timeout: WAIT })
                .catch(async () => { throw new Error(`${how} did not select the match: "${await status.innerText().catch(() => '?')}"`); });
            const where = await status.innerText();
            if (!where.includes(`Ln ${NEEDLE_LINE},`)) throw new Error(`${how} opened at "${where}", not line ${NEEDLE_LINE}`);
            return where;
        };
        // A click on the match line opens the file at the match.
        await rf.locator(`${ROWS}.line`, { hasText: NEEDLE }).first().click();
        const where = await openedAtMatch('a click on the match');
        await shot('view-click-opens-at-match');
        // Keyboard: the results keep the focus; Up to the file, Down to the match, Ctrl+Enter opens it to the side.
        await rf.locator(`${ROWS}.focused`, { hasText: NEEDLE }).first().waitFor({ timeout: WAIT });
        await page().keyboard.press('ArrowUp');
        await rf.locator(`${ROWS}.focused`, { hasText: 'main.py' }).first().waitFor({ timeout: WAIT });
        await page().keyboard.press('ArrowDown');
        await rf.locator(`${ROWS}.focused`, { hasText: NEEDLE }).first().waitFor({ timeout: WAIT });
        await page().keyboard.press('Control+Enter');
        await page().waitForFunction(() => document.querySelectorAll('.editor-group-container').length >= 2, undefined, { timeout: WAIT })
            .catch(() => { throw new Error('Ctrl+Enter on the match did not open it to the side'); });
        await openedAtMatch('Ctrl+Enter on the match');
        await shot('view-keyboard-open-to-side');
        await runCommand('View: Close All Editor Groups');
        // Issue 31: the context-lines box is labelled (it was an unlabelled "0").
        const ctxLabel = await frame.locator('label[for="context"]').innerText();
        report.steps.view = `grouped + highlighted "${highlight}" in main.py (src/app · 1); row centred on its match "${shownText}"; context box labelled "${ctxLabel}"; Alt+R/Alt+W changed the results, Alt+C/W/R shown pressed; include "replace" 4 results in 3 files, exclude orders.py 3 in 2, types cs none; a click opened ${where}; Up/Down/Ctrl+Enter opened it to the side`;
    }

    async function stepViewMore() {
        const frame = await openView();
        await setField(frame, 'pattern', MORE_QUERY);
        const first = await waitMessage(/10,000 results in 10,000 files \(more exist: Load more\)/, 300_000);
        const rf = await resultsFrame();
        const more = rf.locator(ROWS, { hasText: 'Load more' }).first();
        // The "Load more" row is the last: go there with the keyboard (End) and press Enter.
        await rf.locator(ROWS).first().click();
        await page().keyboard.press('End');
        await rf.locator(`${ROWS}.focused`, { hasText: 'Load more' }).first().waitFor({ timeout: WAIT });
        if (!(await more.isVisible())) throw new Error('the Load more row is not in sight after End');
        await shot('view-load-more-offered');
        await page().keyboard.press('Enter');
        const second = await waitMessage(/20,000 results in 20,000 files/, 300_000);
        await shot('view-loaded-more');
        report.steps.view_more = `first page: "${first}"; after Load more: "${second}"`;
    }

    /** Text of the editor tab's model as shown (the visible lines). */
    const editorText = async () => (await page().locator('.editor-instance .monaco-editor .view-lines').first().innerText().catch(() => '')).replace(/\u00a0/g, ' ');

    /** Back to a plain literal search over everything (what VS Code's search does by default). */
    async function resetForm(frame) {
        for (const id of ['replace', 'include', 'exclude', 'types']) await setField(frame, id, '');
        await setField(frame, 'context', '0');
        for (const id of ['case', 'word', 'regex', 'preserve']) {
            if ((await pressed(frame, id)) === 'true') await frame.locator(`#${id}`).click();
        }
    }

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
        await resetForm(frame);
        await setField(frame, 'include', 'replace');
        await setField(frame, 'replace', 'fetch_$1(${2})');
        if ((await pressed(frame, 'regex')) !== 'true') await frame.locator('#pattern').press('Alt+r');
        // A pattern in the verbose syntax ((?x): blanks ignored), which JavaScript's RegExp cannot read:
        // the server expands the template with the captures of the regex that found each match.
        await setField(frame, 'pattern', '(?x) get_ (\\w+) \\( (\\d+) \\)');
        await waitMessage(/4 results in 3 files/);
        await shot('view-replace-ready');
        const before = Object.fromEntries(Object.keys(REPLACE_FILES).map((rel) => [rel, disk(rel)]));
        await frame.locator('#replacePreview').click();
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
        await runCommand('File: Revert File');
        report.steps.view_replace = `preview shown, disk unchanged until Apply; users.py -> ${JSON.stringify(users)}; open_unsaved.py edited in its editor (dirty, disk unchanged)`;
    }

    async function stepViewReplaceAll() {
        const root = ctx.workspaceRoot();
        const [rel, text] = CASE_FILE;
        const disk = () => readFileSync(join(root, rel), 'utf8');
        const frame = await openView();
        await resetForm(frame);
        await setField(frame, 'include', 'replace');
        await setField(frame, 'pattern', 'color');
        await waitMessage(/4 results in 1 file/);
        await setField(frame, 'replace', 'shade');
        await frame.locator('#replace').press('Alt+p');
        if ((await pressed(frame, 'preserve')) !== 'true') throw new Error('Alt+P did not show Preserve Case on');
        await frame.locator('#replaceAll').click();
        // One confirmation (a modal dialog), nothing to tick.
        const dialog = page().locator('.monaco-dialog-box').first();
        await dialog.waitFor({ timeout: WAIT });
        const question = (await dialog.innerText()).replace(/\s+/g, ' ');
        await shot('view-replace-all-confirm');
        if (disk() !== text) throw new Error('the file changed before the confirmation');
        await dialog.locator('.monaco-button', { hasText: /^Replace$/ }).first().click();
        const deadline = Date.now() + WAIT;
        while (disk() === text) {
            if (Date.now() > deadline) throw new Error(`${rel} was not replaced after the confirmation`);
            await page().waitForTimeout(200);
        }
        const after = disk();
        if (after !== 'shade Shade SHADE back-shade\n') throw new Error(`Preserve Case replaced wrongly: ${JSON.stringify(after)}`);
        await waitMessage(/No results/);
        await shot('view-replace-all-done');
        await frame.locator('#preserve').click();
        report.steps.view_replace_all = `asked once: "${question.slice(0, 160)}"; ${rel} -> ${JSON.stringify(after)}`;
    }

    async function stepViewNav() {
        const frame = await openView();
        await resetForm(frame);
        await setField(frame, 'include', 'replace');
        // "_user(" is in the replace/ files whether or not view_replace has run (get_user / fetch_user).
        await setField(frame, 'pattern', '_user(');
        await waitMessage(/4 results in 3 files/);
        const status = page().locator('[id="status.editor.selection"]');
        const where = async () => `${await page().locator('.tab.active').first().innerText().catch(() => '?')} ${await status.innerText().catch(() => '?')}`.replace(/\s+/g, ' ');
        // F4 from the query box: the first result opens in the editor, then the next; Shift+F4 goes back.
        await frame.locator('#pattern').press('F4');
        const rf = await resultsFrame();
        await rf.locator(`${ROWS}.focused.line`).first().waitFor({ timeout: WAIT });
        await page().locator('.tab.active').first().waitFor({ timeout: WAIT });
        await page().waitForTimeout(300);
        const first = await where();
        const changed = async (from) => {
            const deadline = Date.now() + WAIT;
            for (;;) {
                await page().waitForTimeout(200);
                const now = await where();
                if (now !== from || Date.now() > deadline) return now;
            }
        };
        await page().keyboard.press('F4');
        const second = await changed(first);
        await shot('view-f4-next-result');
        await page().keyboard.press('Shift+F4');
        const back = await changed(second);
        if (first === second || back !== first || !/selected/.test(first)) throw new Error(`F4 / Shift+F4 did not walk the results: "${first}" -> "${second}" -> "${back}"`);

        // Collapse all / expand all (the view's title bar commands).
        const rowCount = () => rf.locator(ROWS).count();
        const expanded = await rowCount();
        await runCommand('Sleuth: Collapse All');
        await rf.waitForFunction(() => document.querySelectorAll('#list .row.line').length === 0, undefined, { timeout: WAIT });
        const collapsed = await rowCount();
        await shot('view-collapsed-all');
        await runCommand('Sleuth: Expand All');
        await rf.waitForFunction((n) => document.querySelectorAll('#list .row').length === n, expanded, { timeout: WAIT });

        // Copy: a row (Ctrl+C in the list), all results (the command).
        await rf.locator(`${ROWS}.line`).first().click();
        await page().keyboard.press('Control+c');
        await page().waitForTimeout(300);
        const row = await clipboard();
        await runCommand('Sleuth: Copy All');
        await page().waitForTimeout(300);
        const all = await clipboard();
        if (!/^\s+\d+: .*_user\(/.test(row) || all.split('\n').filter((l) => /_user\(/.test(l)).length !== 3) {
            throw new Error(`copy wrote ${JSON.stringify(row)} for a row and ${JSON.stringify(all)} for all`);
        }

        // Context lines: 1 line around each match shows the lines before/after.
        await setField(frame, 'context', '1');
        await waitMessage(/4 results in 3 files/);
        await rf.locator(`${ROWS}.line.context`).first().waitFor({ timeout: WAIT });
        const contextRows = await rf.locator(`${ROWS}.line.context`).count();
        await shot('view-context-lines');
        await setField(frame, 'context', '0');
        await waitMessage(/4 results in 3 files/);

        // Open in Editor: a read-only document of the results; F12 on a result line goes to its match.
        await runCommand('Sleuth: Open in Editor');
        await page().locator('.tab.active', { hasText: 'Sleuth Results' }).first().waitFor({ timeout: WAIT });
        const lines = page().locator('.editor-instance .monaco-editor .view-lines', { hasText: 'Query: _user(' }).first();
        await lines.waitFor({ timeout: WAIT });
        const docText = (await lines.innerText()).replace(/\u00a0/g, ' ');
        await shot('view-open-in-editor');
        const target = page().locator('.editor-instance .monaco-editor .view-line', { hasText: /^\s*1:\sorder\s=\s\w+_user\(3\)/ }).first();
        await target.click();
        await page().keyboard.press('F12');
        await page().locator('.tab.active', { hasText: 'orders.py' }).first().waitFor({ timeout: WAIT });
        const goTo = await where();
        await shot('view-open-in-editor-go-to');

        // Search history: Up in the query box brings back the previous searches, Down returns.
        await runCommand('View: Close All Editor Groups');
        const f2 = await openView();
        await setField(f2, 'pattern', 'get_user_history_probe');
        await waitMessage(/No results/);
        await f2.locator('#pattern').press('ArrowUp');
        const up1 = await f2.locator('#pattern').inputValue();
        await f2.locator('#pattern').press('ArrowUp');
        const up2 = await f2.locator('#pattern').inputValue();
        await f2.locator('#pattern').press('ArrowDown');
        await f2.locator('#pattern').press('ArrowDown');
        const down = await f2.locator('#pattern').inputValue();
        await shot('view-history');
        if (up1 !== '_user(' || down !== 'get_user_history_probe') throw new Error(`history: Up gave "${up1}", "${up2}"; Down back to "${down}"`);
        await setField(f2, 'pattern', '');
        report.steps.view_nav = `F4 opened ${first}, F4 ${second}, Shift+F4 ${back}; collapse all ${expanded} -> ${collapsed} rows, expand all back; copied row ${JSON.stringify(row)}, all ${all.split('\n').length} lines; context 1 showed ${contextRows} context rows; Open in Editor: ${JSON.stringify(docText.slice(0, 120))}, F12 went to ${goTo}; history Up "${up1}", "${up2}", Down "${down}"`;
    }

    /**
     * ms from `act()` to the first row in `rows` (in `frame`) and to the last change of the message
     * `msg` once it reads as a summary (`done`, a regex source) with nothing `busy` left and no change
     * for SETTLE_MS: both timestamped in that frame by a MutationObserver, so the polling adds nothing
     * (VS Code's own view updates its count while it searches: its first "N results" is not the end).
     */
    async function timeSearch(frame, { rows, msg, done, busy }, act) {
        await frame.evaluate(([rowSel, msgSel]) => {
            window.__obs?.disconnect();
            window.__first = undefined;
            window.__msg = document.querySelector(msgSel)?.textContent ?? '';
            window.__msgAt = undefined;
            const obs = new MutationObserver(() => {
                if (window.__first === undefined && document.querySelector(rowSel)) window.__first = Date.now();
                const text = document.querySelector(msgSel)?.textContent ?? '';
                if (text !== window.__msg) {
                    window.__msg = text;
                    window.__msgAt = Date.now();
                }
            });
            obs.observe(document.body, { childList: true, subtree: true, characterData: true });
            window.__obs = obs;
        }, [rows, msg]);
        const t0 = Date.now();
        await act();
        await frame.waitForFunction(([src, busySel, settle]) => {
            const text = window.__msg ?? '';
            if (window.__msgAt === undefined || /^(Searching|Loading)/.test(text) || !new RegExp(src).test(text)) return false;
            if (busySel && document.querySelector(busySel)) return false;
            return Date.now() - window.__msgAt > settle;
        }, [done, busy, SETTLE_MS], { timeout: 300_000, polling: 20 });
        await frame.locator(rows).first().waitFor({ timeout: WAIT });
        const { first, last } = await frame.evaluate(() => ({ first: window.__first, last: window.__msgAt }));
        return { first: first - t0, complete: last - t0 };
    }

    async function sleuthSample(query) {
        const frame = await openView();
        await setField(frame, 'pattern', '');
        const rf = await resultsFrame();
        // Empty: no rows and no message (a stale "No results" would end the timing at once).
        await rf.waitForFunction(() => !document.querySelector('#list .row') && (document.getElementById('message')?.textContent ?? '').trim() === '', undefined, { timeout: WAIT });
        return timeSearch(rf, { rows: ROWS, msg: '#message', done: 'results? in \\d|No results', busy: '#progress.on' }, async () => {
            await frame.locator('#pattern').fill(query);
            await frame.locator('#pattern').press('Enter');
        });
    }

    async function openBuiltin() {
        await page().keyboard.press('Escape');
        await page().keyboard.press('Control+Shift+f');
        const input = page().locator(BUILTIN_INPUT).first();
        await input.waitFor({ timeout: WAIT });
        return input;
    }

    async function builtinSample(query) {
        const input = await openBuiltin();
        await input.focus();
        await page().keyboard.press('Control+a');
        await page().keyboard.press('Delete');
        await page().waitForFunction(([rows, msg]) => !document.querySelector(rows) && !/results? in \d/.test(document.querySelector(msg)?.textContent ?? ''),
            [BUILTIN_ROWS, `${BUILTIN} .messages`], { timeout: WAIT });
        return timeSearch(page().mainFrame(), { rows: BUILTIN_ROWS, msg: `${BUILTIN} .messages`, done: 'results? in \\d|No results', busy: BUILTIN_BUSY }, async () => {
            await page().keyboard.insertText(query);
            await page().keyboard.press('Enter');
        });
    }

    /** Sets the regex and whole-word toggles of both views. */
    async function setToggles({ regex = false, word = false }) {
        const frame = await openView();
        for (const [id, on] of [['regex', regex], ['word', word]]) {
            if (((await pressed(frame, id)) === 'true') !== on) await frame.locator(`#${id}`).click();
        }
        await openBuiltin();
        for (const [label, on] of [['Use Regular Expression', regex], ['Match Whole Word', word]]) {
            const toggle = page().locator(`${BUILTIN} .search-widget .monaco-custom-toggle[aria-label^="${label}"]`).first();
            if (((await toggle.getAttribute('aria-checked')) === 'true') !== on) await toggle.click();
        }
    }

    /** The index is ready (the status bar counts its files), as it is when a person searches. */
    async function indexReady() {
        await page().waitForFunction((sel) => /Sleuth [\d,]+ files/.test(document.querySelector(sel)?.textContent ?? ''), '.statusbar-item[id$="sleuth.indexStatus"]', { timeout: 300_000 });
    }

    async function stepViewTiming() {
        await indexReady();
        await resetForm(await openView());
        // Selective; 2,000 files; 10,000 rows; a regex with no literal (stream numbers >= 1000: 1,900
        // lines); a word search (whole word: alpha7 but not alpha70..alpha79).
        const queries = [
            { name: 'selective', q: NEEDLE },
            { name: '2,000 files', q: STREAM_WORD },
            { name: '10,000 rows', q: HALF_WORD },
            { name: 'regex, no literal', q: '\\b\\d{4,}\\b', regex: true },
            { name: 'whole word', q: 'alpha7', word: true },
        ];
        const out = {};
        for (const { name, q, regex, word } of queries) {
            await setToggles({ regex, word });
            const s = [];
            const b = [];
            for (let i = 0; i < 3; i++) {
                s.push(await sleuthSample(q));
                if (i === 0) await shot(`timing-sleuth-${name.replace(/\W+/g, '_')}`);
                b.push(await builtinSample(q));
                if (i === 0) await shot(`timing-builtin-${name.replace(/\W+/g, '_')}`);
            }
            const summary = (xs) => ({ first_row_ms: median(xs.map((x) => x.first)), complete_ms: median(xs.map((x) => x.complete)), samples: xs });
            const sleuthMsg = await message();
            const builtinMsg = await page().locator(`${BUILTIN} .messages`).first().innerText().catch(() => '?');
            out[name] = { query: q, regex: !!regex, word: !!word, sleuth_view: summary(s), builtin_search: summary(b), sleuth_message: sleuthMsg, builtin_message: builtinMsg.replace(/\s+/g, ' ') };
            log(`timing ${name}: ${JSON.stringify(out[name])}`);
        }
        await setToggles({});
        report.timings.view_vs_builtin = out;
        report.steps.view_timing = Object.entries(out).map(([name, t]) =>
            `${name} "${t.query}": Sleuth view first row ${t.sleuth_view.first_row_ms} ms / complete ${t.sleuth_view.complete_ms} ms; built-in search ${t.builtin_search.first_row_ms} / ${t.builtin_search.complete_ms} ms`).join('; ');
    }

    return [['view', stepView], ['view_more', stepViewMore], ['view_replace', stepViewReplace], ['view_replace_all', stepViewReplaceAll],
        ['view_nav', stepViewNav], ['view_timing', stepViewTiming]];
}
