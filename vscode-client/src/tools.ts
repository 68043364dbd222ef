/**
 * Sleuth's AI-assistant tools as VS Code language-model tools.
 *
 * package.json declares them (`contributes.languageModelTools`, names `sleuth_<profile>_<tool>`,
 * schemas copied from `sleuth.tools.list` by `npm run sync-tools`); here each declared tool is
 * registered with `vscode.lm.registerTool` and its invocation forwarded to `sleuth.tools.call`,
 * whose `content` string (the seed tool's exact output, errors included) goes back to the model.
 */
import {
    CancellationToken,
    Disposable,
    ExtensionContext,
    LanguageModelTextPart,
    LanguageModelToolInvocationOptions,
    LanguageModelToolResult,
    LogOutputChannel,
    lm,
} from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import { toolCallName } from './args';
import type { ServerManager } from './client';
import { ServerCommands } from './constants';
import { errorText } from './picker';

interface ToolContribution {
    name: string;
    displayName?: string;
}

interface ToolCallResult {
    content?: unknown;
    is_error?: boolean;
}

export function registerTools(context: ExtensionContext, server: ServerManager, output: LogOutputChannel): Disposable[] {
    const declared: ToolContribution[] = context.extension.packageJSON?.contributes?.languageModelTools ?? [];
    const disposables: Disposable[] = [];
    const registered: string[] = [];
    for (const tool of declared) {
        const sleuthName = toolCallName(tool.name);
        if (!sleuthName || typeof lm?.registerTool !== 'function') continue;
        registered.push(tool.name);
        disposables.push(
            lm.registerTool<Record<string, unknown>>(tool.name, {
                prepareInvocation: () => ({ invocationMessage: `Searching the workspace with Sleuth (${sleuthName})` }),
                invoke: async (options: LanguageModelToolInvocationOptions<Record<string, unknown>>, token: CancellationToken) => {
                    const text = await callTool(server, sleuthName, options.input ?? {}, token, output);
                    return new LanguageModelToolResult([new LanguageModelTextPart(text)]);
                },
            }),
        );
    }
    output.info(`Registered ${registered.length} language-model tools: ${registered.join(', ')}`);
    return disposables;
}

/** The `content` of `sleuth.tools.call`, or an error text a model can read. */
export async function callTool(
    server: ServerManager,
    name: string,
    input: Record<string, unknown>,
    token: CancellationToken | undefined,
    output: LogOutputChannel,
): Promise<string> {
    try {
        const client = await server.ready();
        const result = (await client.sendRequest(
            ExecuteCommandRequest.type,
            { command: ServerCommands.toolsCall, arguments: [{ name, arguments: input }] },
            token,
        )) as ToolCallResult | null;
        const content = result?.content;
        return typeof content === 'string' ? content : JSON.stringify(content ?? result);
    } catch (e) {
        output.warn(`Tool ${name} failed: ${errorText(e)}`);
        return JSON.stringify({ error: errorText(e) });
    }
}
