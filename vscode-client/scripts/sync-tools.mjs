// Copies Sleuth's AI-assistant tools (`sleuth tools list --json`) into package.json's
// contributes.languageModelTools, so VS Code shows models the server's own names and JSON schemas,
// with the model descriptions of tool-descriptions.json (written for a model choosing among many
// tools: what each finds, when to use it, what it returns, its limits). Run after the server's
// tool profiles change:
//   npm run sync-tools -- /path/to/python
import { execFileSync } from 'child_process';
import { readFileSync, writeFileSync } from 'fs';

const python = process.argv[2] ?? 'python3';
const raw = execFileSync(python, ['-m', 'sleuth', 'tools', 'list', '--json'], { encoding: 'utf8' });
const parsed = JSON.parse(raw);
const tools = Array.isArray(parsed) ? parsed : parsed.tools ?? [];
if (tools.length === 0) throw new Error('sleuth tools list returned no tools');

const descriptions = JSON.parse(readFileSync(new URL('../tool-descriptions.json', import.meta.url), 'utf8'));
const undescribed = tools.map((t) => t.name).filter((n) => typeof descriptions[n] !== 'string');
if (undescribed.length > 0) throw new Error(`tool-descriptions.json has no description for ${undescribed.join(', ')}`);

const lmName = (name) => 'sleuth_' + name.replace('.', '_').replace(/[^A-Za-z0-9_-]/g, '_');
const pkgPath = new URL('../package.json', import.meta.url);
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
const seen = new Set();
pkg.contributes.languageModelTools = tools
    .filter((t) => !seen.has(t.name) && seen.add(t.name))
    .map((t) => ({
        name: lmName(t.name),
        toolReferenceName: lmName(t.name).slice('sleuth_'.length),
        displayName: `Sleuth ${t.name}`,
        modelDescription: descriptions[t.name],
        userDescription: `Search the workspace with Sleuth (${t.name}).`,
        canBeReferencedInPrompt: true,
        icon: '$(search)',
        tags: ['search', 'sleuth'],
        inputSchema: t.input_schema ?? t.inputSchema ?? { type: 'object' },
    }));
writeFileSync(pkgPath, JSON.stringify(pkg, null, 2) + '\n');
console.log(`package.json: ${pkg.contributes.languageModelTools.length} language-model tools`);
