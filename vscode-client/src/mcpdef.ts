/**
 * The MCP server VS Code's chat starts (pure, unit-tested): `python -m sleuth mcp` with the
 * interpreter the language server uses and the workspace folders as `--root`.
 *
 * VS Code's MCP client shares the workspace folders as MCP roots, which `sleuth mcp` prefers; the
 * `--root` arguments are the same folders, for hosts or versions that send no roots, so the server
 * never falls back to its working directory.
 */

/** Id declared under `contributes.mcpServerDefinitionProviders` in package.json. */
export const MCP_PROVIDER_ID = 'sleuth.mcp';
export const MCP_LABEL = 'Sleuth';

/** The arguments appended to the interpreter to start the MCP server (stdio). */
export const MCP_ARGS: readonly string[] = ['-m', 'sleuth', 'mcp'];

/** What `new McpStdioServerDefinition(label, command, args, env)` is built from. */
export interface McpLaunch {
    label: string;
    command: string;
    args: string[];
    env: Record<string, string>;
    /** The folder the server starts in (the first workspace folder), if any. */
    cwd?: string;
}

/**
 * The launch of the MCP server: `interpreter` is the full interpreter command (the executable and
 * any leading arguments from `sleuth.interpreter`), `folders` the workspace folders' paths.
 * Duplicate and empty folders are dropped; the order is kept (the first folder is the cwd).
 */
export function mcpLaunch(interpreter: readonly string[], folders: readonly string[]): McpLaunch {
    const roots: string[] = [];
    for (const f of folders) if (f && !roots.includes(f)) roots.push(f);
    const [command, ...leading] = interpreter.length > 0 && interpreter[0] ? interpreter : ['python3'];
    return {
        label: MCP_LABEL,
        command,
        args: [...leading, ...MCP_ARGS, ...roots.flatMap((r) => ['--root', r])],
        env: { PYTHONUNBUFFERED: '1' },
        cwd: roots[0],
    };
}
