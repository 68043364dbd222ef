/**
 * "Open in Editor": the results as a read-only document (scheme `sleuth-results`), like VS Code's
 * search editor, with `Go to` on each line: F12 (Go to Definition) and Ctrl+click (a document link)
 * open the file at that line's match. The document is a snapshot of the results when it was opened.
 */
import {
    CancellationToken,
    Definition,
    Disposable,
    DocumentLink,
    EventEmitter,
    Location,
    Position,
    Range,
    TextDocument,
    TextDocumentContentProvider,
    Uri,
    languages,
    window,
    workspace,
} from 'vscode';
import { matchRange } from '../format';
import { DocTarget, ResultsDocument, resultsDocument } from './document';
import type { FileGroup, ResultModel } from './results';

export const RESULTS_SCHEME = 'sleuth-results';

export class ResultsDocuments implements TextDocumentContentProvider, Disposable {
    private readonly docs = new Map<string, ResultsDocument>();
    private count = 0;
    private readonly changed = new EventEmitter<Uri>();
    readonly onDidChange = this.changed.event;

    constructor(private readonly uriOf: (group: FileGroup) => Uri | undefined) {}

    register(): Disposable[] {
        const selector = { scheme: RESULTS_SCHEME };
        return [
            workspace.registerTextDocumentContentProvider(RESULTS_SCHEME, this),
            languages.registerDefinitionProvider(selector, { provideDefinition: (doc, pos) => this.definition(doc, pos) }),
            languages.registerDocumentLinkProvider(selector, { provideDocumentLinks: (doc) => this.links(doc) }),
        ];
    }

    provideTextDocumentContent(uri: Uri, _token: CancellationToken): string {
        return this.docs.get(uri.toString())?.text ?? '';
    }

    /** Opens a new results document for `model` (`header`: its `#` lines). */
    async open(header: readonly string[], model: ResultModel): Promise<void> {
        const uri = Uri.from({ scheme: RESULTS_SCHEME, path: `/Sleuth Results ${++this.count}` });
        this.docs.set(uri.toString(), resultsDocument(header, model));
        const doc = await workspace.openTextDocument(uri);
        await window.showTextDocument(doc, { preview: false });
    }

    private target(doc: TextDocument, line: number): DocTarget | undefined {
        return this.docs.get(doc.uri.toString())?.targets.get(line);
    }

    /** Where a target leads: its file, at the match of its line. */
    private location(t: DocTarget): Location | undefined {
        const uri = this.uriOf(t.group);
        if (!uri) return undefined;
        const line = t.line ?? t.group.lines.find((l) => l.kind === 'match');
        if (!line) return new Location(uri, new Position(0, 0));
        const span = line.spans[0];
        // Columns are the server's (UTF-8 bytes of the line as found); the line text it sent locates them.
        const r = matchRange(line.text, line.line, span?.column, span?.endColumn);
        return new Location(uri, new Range(r.line, r.start, r.line, r.end));
    }

    private definition(doc: TextDocument, pos: Position): Definition | undefined {
        const t = this.target(doc, pos.line);
        return t ? this.location(t) : undefined;
    }

    private links(doc: TextDocument): DocumentLink[] {
        const out: DocumentLink[] = [];
        const targets = this.docs.get(doc.uri.toString())?.targets;
        if (!targets) return out;
        for (const [line, t] of targets) {
            const loc = this.location(t);
            if (!loc || line >= doc.lineCount) continue;
            const text = doc.lineAt(line).text;
            // The link covers the path (a file row) or the line number (a result row).
            const m = t.line ? /^\s*\d+/.exec(text) : /^.*(?=:$)/.exec(text);
            if (!m) continue;
            const start = text.length - text.trimStart().length;
            const link = new DocumentLink(new Range(line, t.line ? start : 0, line, m[0].length),
                loc.uri.with({ fragment: `L${loc.range.start.line + 1},${loc.range.start.character + 1}` }));
            link.tooltip = `Go to ${t.group.path}${t.line ? `:${t.line.line}` : ''}`;
            out.push(link);
        }
        return out;
    }

    dispose(): void {
        this.changed.dispose();
        this.docs.clear();
    }
}
