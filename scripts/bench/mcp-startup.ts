import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { McpServerInput } from '../../src/shared/mcp';
import type { Benchmark } from './harness.ts';
import { benchHost } from './mcp-setup.ts';
import { loadDetails } from './harness.ts';
import { childPids, liveCpuMs, processTree } from './process-measure.ts';
import { sandboxAvailability } from '../../src/main/mcp/sandbox';

const SERVERS = 10;

/** The default server as a new user has it: the bundled filesystem server, each in its own folder. */
function filesServer(root: string, index: number): McpServerInput {
  const folder = path.join(root, `sandbox-${index}`);
  fs.mkdirSync(folder, { recursive: true });
  return { package: '@modelcontextprotocol/server-filesystem', args: [folder] };
}

interface Start {
  ms: number;
  /** The CPU the servers used until all were ready (their processes, read while they run). */
  cpuMs: number;
  /** The CPU the host (this process) used meanwhile: spawning them, the handshakes, reading their tool lists. */
  hostCpuMs: number;
}

async function timeStart(dataDir: string, servers: Record<string, McpServerInput>): Promise<Start> {
  const bench = benchHost(servers, dataDir);
  try {
    const before = new Set(childPids());
    const start = performance.now();
    const hostBefore = process.cpuUsage();
    await bench.startAndWait();
    const ms = performance.now() - start;
    const host = process.cpuUsage(hostBefore);
    // With containment on, as the app starts them (docs/user/sandbox.md), wherever a sandbox can run.
    const unconfined = bench.host.list().filter((server) => server.status.containment !== 'contained');
    if (sandboxAvailability().available && unconfined.length > 0)
      throw new Error(`started unconfined: ${unconfined.map((server) => server.name).join(', ')}`);
    const cpuMs = childPids()
      .filter((pid) => !before.has(pid))
      .flatMap((pid) => processTree(pid))
      .reduce((sum, pid) => sum + liveCpuMs(pid), 0);
    return { ms, cpuMs, hostCpuMs: (host.user + host.system) / 1000 };
  } finally {
    await bench.dispose();
  }
}

/**
 * Ten filesystem servers started at once (until each is ready with its tools listed) against the physical floor of
 * doing so, all in one run: the slowest of the same ten started one at a time, or, when the starts need more CPU
 * than the cores give, their summed start CPU spread over the cores — whichever is longer. A start's CPU is the
 * server process's and the host's own (spawning it, the handshake, reading its tools): both must run on the same
 * cores. Every start after the first finds Node's compile cache warm, as an installed app does.
 */
export const mcpStartup: Benchmark = {
  name: 'mcp-startup',
  description: `${SERVERS} bundled filesystem servers started concurrently ÷ max(slowest single start, total start CPU ÷ cores)`,
  async run() {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-bench-startup-'));
    try {
      const all = Object.fromEntries(
        Array.from({ length: SERVERS }, (_, index) => [`files-${index}`, filesServer(dataDir, index)]),
      );
      await timeStart(dataDir, { warmup: filesServer(dataDir, 99) });
      const singles: Start[] = [];
      for (const [name, server] of Object.entries(all)) singles.push(await timeStart(dataDir, { [name]: server }));
      const together = await timeStart(dataDir, all);
      const slowestSingle = Math.max(...singles.map((single) => single.ms));
      const cores = os.availableParallelism();
      const serversCpu = singles.reduce((sum, single) => sum + single.cpuMs, 0);
      const hostCpu = singles.reduce((sum, single) => sum + single.hostCpuMs, 0);
      const totalCpu = serversCpu + hostCpu;
      const floorMs = Math.max(slowestSingle, totalCpu / cores);
      const details = {
        concurrentMs: together.ms,
        floorMs,
        slowestSingleMs: slowestSingle,
        fastestSingleMs: Math.min(...singles.map((single) => single.ms)),
        singleStartsCpuMs: totalCpu,
        singleStartsServersCpuMs: serversCpu,
        singleStartsHostCpuMs: hostCpu,
        concurrentCpuMs: together.cpuMs,
        concurrentHostCpuMs: together.hostCpuMs,
        servers: SERVERS,
        contained: sandboxAvailability().available ? 1 : 0,
        cores,
        ...loadDetails(),
      };
      console.error(
        `  mcp-startup: ${together.ms.toFixed(0)} ms for ${SERVERS} at once; floor ${floorMs.toFixed(0)} ms = max(slowest single ${slowestSingle.toFixed(0)} ms, (${serversCpu.toFixed(0)} ms servers' + ${hostCpu.toFixed(0)} ms host's CPU) ÷ ${cores} cores); load ${details.load1.toFixed(2)}`,
      );
      return { value: together.ms / floorMs, unit: 'x', goal: { op: '<=', value: 1.25 }, details };
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
