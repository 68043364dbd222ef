// The Sleuth search view's results list (a webview): files and their lines, appended batch by batch
// as the extension posts them, drawn as a virtual list (only the rows in sight are in the DOM), so
// a batch costs what it adds, never a redraw of what is already shown.
// Keys: Up/Down/Home/End/PageUp/PageDown move, Left/Right collapse/expand a file, Enter or Space
// open (Ctrl+Enter to the side), Ctrl+C copies the row; other keys go on to VS Code (F4, Alt+C...).
(() => {
    const vscode = acquireVsCodeApi();
    const ROW = 22;
    const list = document.getElementById('list');
    const spacer = document.getElementById('spacer');
    const message = document.getElementById('message');
    const progress = document.getElementById('progress');
    /** @type {{p:string,n:string,d:string,c:number,l:{k:string,n:number,t:string,h:number[][]}[],collapsed:boolean}[]} */
    let files = [];
    let gen = 0;
    let more = null; // label of the "Load more" row, or null
    // The visible rows: file index and line index (-1: the file row, -2: the Load more row).
    let rowF = [];
    let rowL = [];
    let flatDirty = true;
    let focusF = -1;
    let focusL = -1;
    let scheduled = false;

    const esc = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

    function rebuild() {
        rowF = [];
        rowL = [];
        for (let f = 0; f < files.length; f++) {
            rowF.push(f);
            rowL.push(-1);
            if (files[f].collapsed) continue;
            const n = files[f].l.length;
            for (let l = 0; l < n; l++) {
                rowF.push(f);
                rowL.push(l);
            }
        }
        if (more !== null) {
            rowF.push(-1);
            rowL.push(-2);
        }
        flatDirty = false;
    }

    function focusIndex() {
        if (flatDirty) rebuild();
        if (focusF < 0 && focusL !== -2) return -1;
        for (let i = 0; i < rowF.length; i++) if (rowF[i] === focusF && rowL[i] === focusL) return i;
        return -1;
    }

    function preview(line, drop = 0) {
        // `drop`: characters cut from the start (after a leading "…" if any) so that the match is in sight.
        const t = drop > 0 ? '…' + line.t.slice(drop) : line.t;
        const shift = drop > 0 ? 1 - drop : 0;
        let out = '';
        let at = 0;
        for (const [s0, e0] of line.h) {
            const s = Math.max(0, s0 + shift);
            const e = e0 + shift;
            if (e <= at) continue;
            out += esc(t.slice(at, s)) + '<span class="highlight">' + esc(t.slice(s, e)) + '</span>';
            at = e;
        }
        return out + esc(t.slice(at));
    }

    /**
     * Centre the rows in sight on their match, as VS Code's search view does: where the first
     * highlight ends beyond the row's width, cut the line's start (at a word) so that it shows with
     * about a third of the width after it.
     */
    function centre() {
        for (const el of spacer.querySelectorAll('.row.line .preview')) {
            const h = el.querySelector('.highlight');
            if (!h) continue;
            const box = el.getBoundingClientRect();
            const hb = h.getBoundingClientRect();
            if (hb.right <= box.right) continue;
            const row = el.parentElement;
            const line = files[rowF[Number(row.dataset.i)]]?.l[rowL[Number(row.dataset.i)]];
            if (!line || !line.h.length) continue;
            const charW = el.scrollWidth / Math.max(1, line.t.length);
            const want = hb.right - box.right + Math.min(box.width / 3, Math.max(0, box.width - hb.width));
            const start = line.h[0][0];
            let drop = Math.min(start, Math.ceil(want / charW) + 1);
            const blank = line.t.slice(drop, start).search(/\s\S/);
            if (blank >= 0 && blank < 8) drop += blank + 1;
            if (drop > 0) el.innerHTML = preview(line, drop);
        }
    }

    function rowHtml(i) {
        const f = rowF[i];
        const l = rowL[i];
        const focused = f === focusF && l === focusL ? ' focused' : '';
        if (l === -2) return `<div class="row more${focused}" data-i="${i}" role="treeitem">${esc(more)}</div>`;
        const file = files[f];
        if (l === -1) {
            const ctx = esc(JSON.stringify({ webviewSection: 'file', f, preventDefaultContextMenuItems: true }));
            return `<div class="row file${focused}" data-i="${i}" role="treeitem" aria-expanded="${!file.collapsed}" title="${esc(file.p)}" data-vscode-context="${ctx}">`
                + `<span class="twistie">${file.collapsed ? '▸' : '▾'}</span><span class="name">${esc(file.n)}</span>`
                + `<span class="dir">${esc(file.d)}</span><span class="count">${file.c}</span>`
                + `<span class="actions"><button class="act" data-act="replaceFile" title="Replace All in this file">⇄</button></span></div>`;
        }
        const line = file.l[l];
        const ctx = esc(JSON.stringify({ webviewSection: line.k === 'm' ? 'match' : 'context', f, l, preventDefaultContextMenuItems: true }));
        const acts = line.k === 'm'
            ? `<span class="actions"><button class="act" data-act="replaceLine" title="Replace">⇄</button><button class="act" data-act="side" title="Open to the Side">↗</button></span>`
            : '';
        return `<div class="row line ${line.k === 'm' ? 'match' : 'context'}${focused}" data-i="${i}" role="treeitem" title="${esc(file.n)}:${line.n}" data-vscode-context="${ctx}">`
            + `<span class="preview">${preview(line)}</span><span class="ln">${line.n}</span>${acts}</div>`;
    }

    function render() {
        scheduled = false;
        if (flatDirty) rebuild();
        spacer.style.height = `${rowF.length * ROW}px`;
        const top = list.scrollTop;
        const first = Math.max(0, Math.floor(top / ROW) - 5);
        const last = Math.min(rowF.length, Math.ceil((top + list.clientHeight) / ROW) + 5);
        let html = '';
        for (let i = first; i < last; i++) html += rowHtml(i);
        spacer.innerHTML = html;
        // Positions through the CSSOM: the page's policy forbids style attributes in markup.
        for (const el of spacer.children) el.style.top = `${Number(el.dataset.i) * ROW}px`;
        centre();
    }

    function schedule() {
        if (scheduled) return;
        scheduled = true;
        requestAnimationFrame(render);
    }

    function reveal(i) {
        const top = i * ROW;
        if (top < list.scrollTop) list.scrollTop = top;
        else if (top + ROW > list.scrollTop + list.clientHeight) list.scrollTop = top + ROW - list.clientHeight;
    }

    function setFocus(i, tell = true) {
        if (flatDirty) rebuild();
        if (rowF.length === 0) return;
        i = Math.max(0, Math.min(rowF.length - 1, i));
        focusF = rowF[i];
        focusL = rowL[i];
        reveal(i);
        schedule();
        if (tell && focusL >= -1) vscode.postMessage({ type: 'cursor', gen, f: focusF, l: focusL });
    }

    function activate(i, side) {
        const f = rowF[i];
        const l = rowL[i];
        if (l === -2) return vscode.postMessage({ type: 'loadMore' });
        if (l === -1 && !side) {
            files[f].collapsed = !files[f].collapsed;
            flatDirty = true;
            return schedule();
        }
        vscode.postMessage({ type: 'open', gen, f, l, side: !!side });
    }

    function addFiles(entries) {
        for (const e of entries) {
            let file = files[e.f];
            if (!file) {
                file = files[e.f] = { p: e.p, n: e.n, d: e.d, c: 0, l: [], collapsed: !!e.collapsed };
            }
            file.c = e.c;
            for (const line of e.l) file.l.push(line);
        }
        flatDirty = true;
        schedule();
    }

    window.addEventListener('message', (event) => {
        const m = event.data;
        if (m.type === 'reset') {
            gen = m.gen;
            files = [];
            more = null;
            focusF = -1;
            focusL = -1;
            list.scrollTop = 0;
            addFiles(m.files);
        } else if (m.type === 'add') {
            if (m.gen === gen) addFiles(m.d);
        } else if (m.type === 'status') {
            message.textContent = m.text;
            progress.classList.toggle('on', !!m.searching);
            const next = m.more ?? null;
            if (next !== more) {
                more = next;
                flatDirty = true;
                schedule();
            }
        } else if (m.type === 'collapse') {
            for (const file of files) file.collapsed = m.all;
            flatDirty = true;
            schedule();
        } else if (m.type === 'select') {
            if (m.gen !== gen) return;
            if (files[m.f]?.collapsed && m.l >= 0) {
                files[m.f].collapsed = false;
                flatDirty = true;
            }
            focusF = m.f;
            focusL = m.l;
            const i = focusIndex();
            if (i >= 0) reveal(i);
            schedule();
        } else if (m.type === 'focus') {
            list.focus();
            if (focusIndex() < 0) setFocus(0);
        }
    });

    list.addEventListener('scroll', schedule);
    window.addEventListener('resize', schedule);
    list.addEventListener('click', (e) => {
        const row = e.target.closest('.row');
        if (!row) return;
        const i = Number(row.dataset.i);
        setFocus(i);
        const act = e.target.closest('.act');
        if (act) {
            const f = rowF[i];
            const l = rowL[i];
            if (act.dataset.act === 'side') vscode.postMessage({ type: 'open', gen, f, l, side: true });
            else vscode.postMessage({ type: 'replace', gen, f, l: act.dataset.act === 'replaceLine' ? l : -1 });
            return;
        }
        if (e.target.closest('.twistie') && rowL[i] === -1) return activate(i, false);
        activate(i, e.ctrlKey || e.metaKey);
    });
    list.addEventListener('contextmenu', (e) => {
        const row = e.target.closest('.row');
        if (row) setFocus(Number(row.dataset.i));
    });
    list.addEventListener('keydown', (e) => {
        const i = focusIndex();
        const page = Math.max(1, Math.floor(list.clientHeight / ROW) - 1);
        const handled = () => { e.preventDefault(); e.stopPropagation(); };
        const plain = !e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey;
        if (e.key === 'ArrowDown' && plain) { handled(); setFocus(i + 1); }
        else if (e.key === 'ArrowUp' && plain) { handled(); setFocus(i < 0 ? 0 : i - 1); }
        else if (e.key === 'Home' && plain) { handled(); setFocus(0); }
        else if (e.key === 'End' && plain) { handled(); setFocus(rowF.length - 1); }
        else if (e.key === 'PageDown' && plain) { handled(); setFocus(i + page); }
        else if (e.key === 'PageUp' && plain) { handled(); setFocus(i - page); }
        else if (e.key === 'ArrowLeft' && plain && i >= 0) {
            handled();
            const f = rowF[i];
            if (f >= 0 && rowL[i] === -1 && !files[f].collapsed) { files[f].collapsed = true; flatDirty = true; schedule(); }
            else if (f >= 0 && rowL[i] >= 0) { focusL = -1; setFocus(focusIndex()); }
        } else if (e.key === 'ArrowRight' && plain && i >= 0) {
            handled();
            const f = rowF[i];
            if (f >= 0 && rowL[i] === -1 && files[f].collapsed) { files[f].collapsed = false; flatDirty = true; schedule(); }
        } else if ((e.key === 'Enter' || e.key === ' ') && i >= 0 && !e.altKey) {
            handled();
            if (rowL[i] === -1 && !(e.ctrlKey || e.metaKey)) activate(i, false);
            else activate(i, e.ctrlKey || e.metaKey);
        } else if (e.key.toLowerCase() === 'c' && (e.ctrlKey || e.metaKey) && !e.altKey && i >= 0) {
            handled();
            vscode.postMessage({ type: 'copy', gen, f: rowF[i], l: rowL[i] });
        } else if (e.altKey && !e.ctrlKey && !e.metaKey && ['KeyC', 'KeyW', 'KeyR'].includes(e.code)) {
            // As in the form: handled here, so the forwarded Alt does not also reach the menu bar.
            handled();
            vscode.postMessage({ type: 'toggle', key: { KeyC: 'matchCase', KeyW: 'wholeWord', KeyR: 'regex' }[e.code] });
        }
    });
    document.addEventListener('keydown', (e) => { if (e.key === 'Alt') e.stopPropagation(); }, true);
    document.addEventListener('keyup', (e) => { if (e.key === 'Alt' || (e.altKey && ['KeyC', 'KeyW', 'KeyR'].includes(e.code))) e.stopPropagation(); }, true);
    list.addEventListener('focus', () => { if (focusIndex() < 0 && rowF.length) setFocus(0); });
    vscode.postMessage({ type: 'ready' });
})();
