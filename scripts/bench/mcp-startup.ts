import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { McpServerInput } from '../../src/shared/mcp';
import type { Benchmark } from './harness.ts';
import { benchHost } from './mcp-setup.ts';

const SERVERS = 10;

/** The default server as a new user has it: the bundled filesystem server, each in its own folder. */
function filesServer(root: string, index: number): McpServerInput {
  const folder = path.join(root, `sandbox-${index}`);
  fs.mkdirSync(folder, { recursive: true });
  return { package: '@modelcontextprotocol/server-filesystem', args: [folder] };
}

async function timeStart(dataDir: string, servers: Record<string, McpServerInput>): Promise<number> {
  const bench = benchHost(servers, dataDir);
  try {
    const start = performance.now();
    await bench.startAndWait();
    return performance.now() - start;
  } finally {
    await bench.dispose();
  }
}

/**
 * Ten filesystem servers started at once (until each is ready with its tools listed) against the
 * slowest of the same ten started one at a time, all in one run. Every start after the first finds
 * Node's compile cache warm, as an installed app does.
 */
export const mcpStartup: Benchmark = {
  name: 'mcp-startup',
  description: `${SERVERS} bundled filesystem servers started concurrently ÷ the slowest single start`,
  async run() {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-bench-startup-'));
    try {
      const all = Object.fromEntries(Array.from({ length: SERVERS }, (_, index) => [`files-${index}`, filesServer(dataDir, index)]));
      await timeStart(dataDir, { warmup: filesServer(dataDir, 99) });
      const singles: number[] = [];
      for (const [name, server] of Object.entries(all)) singles.push(await timeStart(dataDir, { [name]: server }));
      const together = await timeStart(dataDir, all);
      const slowestSingle = Math.max(...singles);
      const cores = os.availableParallelism();
      return {
        value: together / slowestSingle,
        unit: 'x',
        goal: { op: '<=', value: 1.5 },
        details: {
          concurrentMs: together,
          slowestSingleMs: slowestSingle,
          fastestSingleMs: Math.min(...singles),
          servers: SERVERS,
          cores,
          // A start is almost all CPU (Node boots, loads the SDK and zod): n starts cannot finish in less than
          // their summed time spread over the cores. This is that floor, as a ratio like the value.
          cpuBoundFloor: Math.max(1, singles.reduce((sum, time) => sum + time, 0) / cores / slowestSingle),
        },
      };
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
