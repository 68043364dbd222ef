/** Names shared by the extension's modules: ids, commands, LSP methods. */
export const SERVER_ID = 'sleuth';
export const SERVER_NAME = 'Sleuth';

/** Palette commands contributed in package.json. */
export const Commands = {
    grep: 'sleuth.grepPick',
    files: 'sleuth.filesPick',
    text: 'sleuth.textPick',
    rebuildIndex: 'sleuth.rebuildIndex',
    indexStatus: 'sleuth.showIndexStatus',
    restart: 'sleuth.restart',
    toggleCase: 'sleuth.grepPick.toggleMatchCase',
    toggleWholeWord: 'sleuth.grepPick.toggleWholeWord',
    toggleRegex: 'sleuth.grepPick.toggleRegex',
} as const;

/** Custom requests with partial results (docs/SPEC.md §6). */
export const Requests = {
    grep: 'sleuth/grep',
    files: 'sleuth/files',
    text: 'sleuth/text',
} as const;

/** Server commands reached through workspace/executeCommand (docs/SPEC.md §4). */
export const ServerCommands = {
    indexStatus: 'sleuth.index.status',
    indexBuild: 'sleuth.index.build',
    toolsList: 'sleuth.tools.list',
    toolsCall: 'sleuth.tools.call',
} as const;

/** Key of each partial-result batch in `$/progress` values, per request. */
export const PartialKeys = {
    grep: 'matches',
    files: 'items',
    text: 'results',
} as const;
