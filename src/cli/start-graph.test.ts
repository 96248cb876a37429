// What `workbench` loads before it knows its command (docs/dev/benchmarks.md, `cli-start`): the static import graph
// of src/cli/main.ts — the command tree and what every command's definition needs — must not reach the packages
// that only running a command needs. A command's action loads those with `await import(…)`.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
/** Packages that cost tens of milliseconds to load and that no command's definition or `--help` needs. */
const HEAVY = [
  'zod',
  'ajv',
  'better-sqlite3',
  '@modelcontextprotocol/sdk',
  'openai',
  '@anthropic-ai/sdk',
  '@google/genai',
  '@opentelemetry/',
];

/** Static imports of a source file: `import … from`, `export … from` and bare `import '…'`, not `import type` nor `import()`. */
function staticImports(file: string): string[] {
  const source = fs.readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  const statement = /^(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  for (const match of source.matchAll(statement)) specifiers.push(match[1] as string);
  return specifiers;
}

function resolveLocal(from: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Every package the graph from `entry` reaches, with the chain of files that leads to it. */
function reachedPackages(entry: string): Map<string, string[]> {
  const reached = new Map<string, string[]>();
  const seen = new Set<string>();
  const visit = (file: string, chain: string[]): void => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!/\.tsx?$/.test(file)) return;
    for (const specifier of staticImports(file)) {
      if (specifier.startsWith('.')) {
        const next = resolveLocal(file, specifier);
        if (next) visit(next, [...chain, path.relative(root, next)]);
      } else if (!specifier.startsWith('node:') && !reached.has(specifier)) reached.set(specifier, chain);
    }
  };
  visit(entry, [path.relative(root, entry)]);
  return reached;
}

describe('the CLI start graph', () => {
  it('reaches none of the heavy packages before a command runs', () => {
    const reached = reachedPackages(path.join(root, 'src/cli/main.ts'));
    const heavy = [...reached].filter(([name]) =>
      HEAVY.some((prefix) => name === prefix || name.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)),
    );
    expect(heavy.map(([name, chain]) => `${name} via ${chain.join(' → ')}`)).toEqual([]);
    // The walk itself works: it does find what the command tree is built with.
    expect([...reached.keys()]).toContain('commander');
  });
});
