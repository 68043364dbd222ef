/**
 * Results as text (pure, unit-tested): what Copy puts on the clipboard and what "Open in Editor"
 * shows, laid out as VS Code's own search copies and its search editor shows them: the file's path,
 * then each line as `  42: text` (context lines `  43  text`). The document keeps, for each of its
 * lines, the result line it shows, so `Go to` can open that place.
 */
import type { FileGroup, ResultLine, ResultModel } from './results';

/** `  42: text` for a match line, `  43  text` for a context line (the line as found, unshortened). */
export function lineText(line: ResultLine): string {
    return `  ${line.line}${line.kind === 'match' ? ':' : ' '} ${line.text.replace(/\s+$/, '')}`;
}

/** A file and its lines, as Copy writes them. */
export function fileText(group: FileGroup): string {
    return [group.path, ...group.lines.map(lineText)].join('\n');
}

/** Every file, separated by a blank line. */
export function allText(groups: readonly FileGroup[]): string {
    return groups.map(fileText).join('\n\n');
}

/** Where a line of the results document leads. */
export interface DocTarget {
    group: FileGroup;
    line?: ResultLine;
}

export interface ResultsDocument {
    text: string;
    /** 0-based document line -> what it shows (file header or result line) */
    targets: Map<number, DocTarget>;
}

/**
 * The search-editor-like document: a header with the query and the count, then each file and its
 * lines. `header` lines are written as `# ...`.
 */
export function resultsDocument(header: readonly string[], model: ResultModel): ResultsDocument {
    const out: string[] = header.map((h) => `# ${h}`);
    const targets = new Map<number, DocTarget>();
    for (const group of model.files) {
        out.push('');
        targets.set(out.length, { group });
        out.push(`${group.path}:`);
        for (const line of group.lines) {
            targets.set(out.length, { group, line });
            out.push(lineText(line));
        }
    }
    return { text: out.join('\n') + '\n', targets };
}
