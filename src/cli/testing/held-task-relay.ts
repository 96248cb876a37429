/**
 * A stdio relay in front of the real server-everything, for the test of Ctrl+C before a task exists
 * (cli-task-interrupt.test.ts): it passes every message both ways unchanged, except that it holds the server's answer
 * to the `tools/call` of `simulate-research-query` — the task exists on the server, the CLI does not know it yet —
 * until the test lets it go. While it holds the answer it writes `held` into its HOME (its scratch folder, the one
 * place its sandbox lets it write); it sends the answer once the test writes `release` beside it. The host starts it
 * as a command (`node held-task-relay.ts`; Node strips the types). Self-contained: no imports from the repository.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';

const HELD_TOOL = 'simulate-research-query';
const home = process.env['HOME'] ?? '.';
const server = spawn(
  process.execPath,
  [createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
server.on('exit', (code) => process.exit(code ?? 0));
process.stdin.on('end', () => server.stdin.end());

const heldIds = new Set<unknown>();
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  try {
    const message = JSON.parse(line) as { method?: string; id?: unknown; params?: { name?: string } };
    if (message.method === 'tools/call' && message.params?.name === HELD_TOOL) heldIds.add(message.id);
  } catch {
    // Not JSON: passed on as it is, the server answers it.
  }
  server.stdin.write(`${line}\n`);
});

/** The server's lines, in order: while one is held, those after it wait behind it. */
const queue: string[] = [];
let holding = false;
const drain = (): void => {
  while (!holding && queue.length > 0) {
    const line = queue.shift() as string;
    let id: unknown;
    try {
      const message = JSON.parse(line) as { id?: unknown; method?: string };
      if (message.method === undefined) id = message.id;
    } catch {
      id = undefined;
    }
    if (id !== undefined && heldIds.delete(id)) {
      holding = true;
      fs.writeFileSync(path.join(home, 'held'), line);
      const release = path.join(home, 'release');
      const wait = setInterval(() => {
        if (!fs.existsSync(release)) return;
        clearInterval(wait);
        holding = false;
        process.stdout.write(`${line}\n`);
        drain();
      }, 10);
      return;
    }
    process.stdout.write(`${line}\n`);
  }
};
readline.createInterface({ input: server.stdout }).on('line', (line) => {
  queue.push(line);
  drain();
});
