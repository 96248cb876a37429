import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/**
 * Attacker view (docs/user/mcp-servers.md#resources, #prompts): reading a resource or fetching a prompt is a request
 * to a server that only a person makes (mcp.readResource, `workbench resources read`, a slash command). The code a model drives — the tool loop and the providers —
 * can call tools only: none of it names the resource methods, and the loop's dependency on the host is typed as
 * `Pick<McpHost, 'tools' | 'callTool' | 'whenSettled' | 'cancelTask'>` (`cancelTask` is the person's Cancel of a task,
 * docs/user/mcp-servers.md#tasks).
 */
const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
function sources(folder: string): string[] {
  return fs
    .readdirSync(path.join(MAIN, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.includes('testing'))
    .map((file) => path.join(MAIN, folder, file));
}

it('nothing the model drives (chat/, llm/, approval/) can read a resource or fetch a prompt', () => {
  const offenders = ['chat', 'llm', 'approval']
    .flatMap(sources)
    .filter((file) =>
      /readResource|resources\/read|\.resources\(|getPrompt|prompts\/get|\.prompts\(|completePromptArgument|completion\/complete/.test(
        fs.readFileSync(file, 'utf8'),
      ),
    );
  expect(offenders).toEqual([]);
  expect(fs.readFileSync(path.join(MAIN, 'chat', 'tool-loop.ts'), 'utf8')).toContain(
    "tools: Pick<McpHost, 'tools' | 'callTool' | 'whenSettled' | 'cancelTask'>;",
  );
});
