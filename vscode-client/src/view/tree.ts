/**
 * The search view's results: a tree of files (name, folder, how many results) and their match and
 * context lines, each match line labelled with the server's match ranges highlighted
 * (`TreeItemLabel.highlights`), plus a "Load more" row while more results exist.
 */
import * as path from 'path';
import {
    Event,
    EventEmitter,
    MarkdownString,
    ThemeIcon,
    TreeDataProvider,
    TreeItem,
    TreeItemCollapsibleState,
    Uri,
} from 'vscode';
import { resolveResultPath, splitPath } from '../format';
import { FileGroup, ResultLine, ResultModel, highlightRanges, lineLabel } from './results';

export const RESULTS_VIEW_ID = 'sleuth.results';

export type Node =
    | { kind: 'file'; group: FileGroup }
    | { kind: 'line'; group: FileGroup; line: ResultLine }
    | { kind: 'more'; shown: number };

export const Commands = {
    open: 'sleuth.view.open',
    openToSide: 'sleuth.view.openToSide',
    loadMore: 'sleuth.view.loadMore',
    replaceFile: 'sleuth.view.replaceFile',
    replaceLine: 'sleuth.view.replaceLine',
} as const;

export class ResultsTree implements TreeDataProvider<Node> {
    private model = new ResultModel();
    private canLoadMore = false;
    private fileNodes = new Map<FileGroup, Node>();
    private lineNodes = new WeakMap<ResultLine, Node>();
    private readonly emitter = new EventEmitter<Node | undefined>();
    readonly onDidChangeTreeData: Event<Node | undefined> = this.emitter.event;

    constructor(private readonly folders: () => { name: string; fsPath: string }[]) {}

    get results(): ResultModel {
        return this.model;
    }

    /** Show `model` (a new search, or a bigger one replacing the rows it repeats). */
    show(model: ResultModel, canLoadMore: boolean): void {
        if (model !== this.model) {
            this.model = model;
            this.fileNodes = new Map();
            this.lineNodes = new WeakMap();
        }
        this.canLoadMore = canLoadMore;
        this.emitter.fire(undefined);
    }

    uriOf(group: FileGroup): Uri | undefined {
        const fsPath = resolveResultPath(group.path, this.folders());
        return fsPath ? Uri.file(fsPath) : undefined;
    }

    private fileNode(group: FileGroup): Node {
        let node = this.fileNodes.get(group);
        if (!node) {
            node = { kind: 'file', group };
            this.fileNodes.set(group, node);
        }
        return node;
    }

    private lineNode(group: FileGroup, line: ResultLine): Node {
        let node = this.lineNodes.get(line);
        if (!node) {
            node = { kind: 'line', group, line };
            this.lineNodes.set(line, node);
        }
        return node;
    }

    getChildren(element?: Node): Node[] {
        if (!element) {
            const files = this.model.files.map((g) => this.fileNode(g));
            return this.canLoadMore ? [...files, { kind: 'more', shown: this.model.events }] : files;
        }
        if (element.kind === 'file') return element.group.lines.map((l) => this.lineNode(element.group, l));
        return [];
    }

    getParent(element: Node): Node | undefined {
        return element.kind === 'line' ? this.fileNode(element.group) : undefined;
    }

    getTreeItem(node: Node): TreeItem {
        if (node.kind === 'more') {
            const item = new TreeItem(`Load more… (${node.shown.toLocaleString('en-US')} shown)`, TreeItemCollapsibleState.None);
            item.id = 'sleuth-load-more';
            item.iconPath = new ThemeIcon('unfold');
            item.command = { command: Commands.loadMore, title: 'Load more' };
            item.contextValue = 'sleuth.more';
            return item;
        }
        if (node.kind === 'file') {
            const g = node.group;
            const [name, dir] = splitPath(g.path);
            const item = new TreeItem({ label: name }, TreeItemCollapsibleState.Expanded);
            item.id = `f:${g.path}`;
            item.description = `${dir ? dir + ' · ' : ''}${g.matches.toLocaleString('en-US')}`;
            item.tooltip = `${g.path}: ${g.matches} result${g.matches === 1 ? '' : 's'}`;
            item.resourceUri = this.uriOf(g);
            item.iconPath = ThemeIcon.File;
            item.contextValue = 'sleuth.file';
            return item;
        }
        const { group, line } = node;
        const { label, highlights } = lineLabel(line.text, highlightRanges(line.text, line.spans));
        const item = new TreeItem({ label, highlights }, TreeItemCollapsibleState.None);
        item.id = `${line.kind === 'match' ? 'm' : 'c'}:${group.path}:${line.line}`;
        item.description = line.kind === 'match' ? `${line.line}` : `${line.line} ·`;
        const tip = new MarkdownString();
        tip.appendText(`${path.basename(group.path)}:${line.line}${line.kind === 'context' ? ' (context)' : ''}`);
        item.tooltip = tip;
        item.contextValue = line.kind === 'match' ? 'sleuth.match' : 'sleuth.context';
        item.command = { command: Commands.open, title: 'Open', arguments: [node] };
        return item;
    }
}
