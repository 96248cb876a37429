import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import type { McpServerInput } from '../../src/shared/mcp';
import { loadDetails, type Benchmark, type NamedBenchMeasurement } from './harness.ts';
import { benchHost, median } from './mcp-setup.ts';
import { ROOT } from '../lib/project.ts';
import { liveCpuMs, processTree } from './process-measure.ts';

const ROUNDS = 6;
const WARMUP = 200;
const SAMPLES_PER_ROUND = 1000;
/** The CPU line: blocks of calls, one way at a time, alternating (`CPU_BLOCKS` of each per round). */
const CPU_BLOCKS = 2;
const CALLS_PER_CPU_BLOCK = 1000;

/** One way of calling `echo` once; resolves when the answer is in. */
type Call = () => Promise<unknown>;

/** A bare client of the SDK on its own copy of the server: the floor. */
interface BareClient {
  call: Call;
  close(): Promise<void>;
}

interface Revision {
  name: string;
  server: McpServerInput;
  /** What the host must have negotiated with its server, so that the line measures that revision. */
  protocolVersion: string;
  toolArgs: Record<string, unknown>;
  /** A bare SDK client on a copy of the server of its own, in the client's session or (`detached`) one of its own. */
  bare(detached: boolean): Promise<BareClient>;
}

const EVERYTHING_ENTRY = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const MODERN_ENTRY = path.join(ROOT, 'src/main/mcp/test-fixtures/modern-stdio-server.ts');
const QUIET = { MODERN_STDIO_QUIET: '1' };

/** 2025-11-25: server-everything from node_modules; the floor is the 1.x SDK's Client and stdio transport. */
const LEGACY: Revision = {
  name: 'mcp-call-overhead',
  server: { package: '@modelcontextprotocol/server-everything' },
  protocolVersion: '2025-11-25',
  toolArgs: { message: 'hello from the benchmark' },
  async bare(detached) {
    const client = new Client({ name: 'bench-raw', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: detached ? 'setsid' : process.execPath,
        args: detached ? [process.execPath, EVERYTHING_ENTRY] : [EVERYTHING_ENTRY],
        stderr: 'ignore',
      }),
    );
    return {
      call: () => client.callTool({ name: 'echo', arguments: LEGACY.toolArgs }),
      close: () => client.close(),
    };
  },
};

/**
 * 2026-07-28: the SDK v2-built stdio server of the tests (test-fixtures/modern-stdio-server.ts); the floor is the SDK
 * v2's Client and stdio transport, which discovers and then speaks 2026-07-28 to it.
 */
const MODERN: Revision = {
  name: 'mcp-call-overhead-2026',
  server: { command: process.execPath, args: [MODERN_ENTRY], env: QUIET },
  protocolVersion: '2026-07-28',
  toolArgs: { text: 'hello from the benchmark' },
  async bare(detached) {
    const client = new ClientV2({ name: 'bench-raw', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StdioClientTransportV2({
        command: detached ? 'setsid' : process.execPath,
        args: detached ? [process.execPath, MODERN_ENTRY] : [MODERN_ENTRY],
        env: { ...(process.env as Record<string, string>), ...QUIET },
        stderr: 'ignore',
      }),
    );
    if (client.getProtocolEra() !== 'modern') throw new Error('the bare SDK v2 client did not speak 2026-07-28');
    return {
      call: () => client.callTool({ name: 'echo', arguments: MODERN.toolArgs }),
      close: () => client.close(),
    };
  },
};

/**
 * The same `echo`, called through the host (registry lookup, the door's deny check, timeout and cancellation wiring,
 * its own stdio transport, result normalisation) and through a bare SDK client on its own copy of the server,
 * interleaved so that machine noise hits both alike. Each round spawns fresh servers: on a shared 2-core machine one
 * process can land better than the other for a whole run, and new ones average that out.
 *
 * The floor's server runs in a session of its own (`setsid`), as the host starts its servers (`detached`: the child
 * calls setsid(), and Linux's autogroup then schedules it as a group of its own); the server does the same work
 * either way. The SDK's transport with the server in the client's session is measured beside it (`vsAttached`), so
 * the two floors can be compared in one run.
 */
async function measure(revision: Revision): Promise<NamedBenchMeasurement[]> {
  const hostTimes: number[] = [];
  const rawTimes: number[] = [];
  const attachedTimes: number[] = [];
  const hostCpu: number[] = [];
  const rawCpu: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const bench = benchHost({ bench: revision.server });
    const clients: BareClient[] = [];
    try {
      const [, raw, attached] = await Promise.all([
        bench.startAndWait(),
        revision.bare(true).then((client) => (clients.push(client), client)),
        revision.bare(false).then((client) => (clients.push(client), client)),
      ]);
      const spoken = bench.host.server('bench').status.protocolVersion;
      if (spoken !== revision.protocolVersion)
        throw new Error(`the host spoke ${String(spoken)} to the server, not ${revision.protocolVersion}`);
      const viaHost: Call = async () => {
        const result = await bench.host.callTool({ serverName: 'bench', toolName: 'echo', args: revision.toolArgs });
        if (result.isError) throw new Error('echo through the host failed');
      };
      const ways: Call[] = [viaHost, raw.call, attached.call];
      for (let index = 0; index < WARMUP + SAMPLES_PER_ROUND; index++) {
        // Rotate which goes first: a call right after another finds the machine warmer.
        const times: number[] = [0, 0, 0];
        for (let offset = 0; offset < ways.length; offset++) {
          const way = (index + offset) % ways.length;
          const start = performance.now();
          await (ways[way] as Call)();
          times[way] = performance.now() - start;
        }
        if (index < WARMUP) continue;
        hostTimes.push(times[0] as number);
        rawTimes.push(times[1] as number);
        attachedTimes.push(times[2] as number);
      }
      // The CPU of this process (`process.cpuUsage`, cheap) and of every process under it (the servers, their
      // bubblewrap; read from /proc outside the calls) over a block of calls made one way: only that way's server
      // works meanwhile, so a block's CPU is that way's, client and server.
      const servers = processTree(process.pid).slice(1);
      const serversCpuMs = (): number => servers.reduce((sum, pid) => sum + (liveCpuMs(pid) || 0), 0);
      for (let block = 0; block < CPU_BLOCKS; block++)
        for (const [way, into] of [
          [viaHost, hostCpu],
          [raw.call, rawCpu],
        ] as const) {
          const serversBefore = serversCpuMs();
          const before = process.cpuUsage();
          for (let call = 0; call < CALLS_PER_CPU_BLOCK; call++) await way();
          const own = process.cpuUsage(before);
          const serversUs = (serversCpuMs() - serversBefore) * 1000;
          into.push((own.user + own.system + serversUs) / CALLS_PER_CPU_BLOCK);
        }
    } finally {
      for (const client of clients) await client.close();
      await bench.dispose();
    }
  }
  const hostMedian = median(hostTimes);
  const rawMedian = median(rawTimes);
  const details = {
    hostMedianMs: hostMedian,
    rawMedianMs: rawMedian,
    ratioOfMedians: hostMedian / rawMedian,
    attachedMedianMs: median(attachedTimes),
    // The same median of ratios against the floor whose server shares the client's session.
    vsAttached: median(hostTimes.map((time, index) => time / (attachedTimes[index] as number))),
    detachedVsAttached: median(rawTimes.map((time, index) => time / (attachedTimes[index] as number))),
    samples: hostTimes.length,
    rounds: ROUNDS,
    ...loadDetails(),
  };
  const hostCpuMedian = median(hostCpu);
  const rawCpuMedian = median(rawCpu);
  console.error(
    `  ${revision.name}: host ${(hostMedian * 1000).toFixed(0)} µs, bare SDK client (floor) ${(rawMedian * 1000).toFixed(0)} µs; ` +
      `CPU per call (client and server) host ${hostCpuMedian.toFixed(0)} µs, bare ${rawCpuMedian.toFixed(0)} µs; load ${details.load1.toFixed(2)}`,
  );
  const cpu: NamedBenchMeasurement = {
    name: `${revision.name}-cpu`,
    value: hostCpuMedian / rawCpuMedian,
    unit: 'x',
    goal: { op: '<=', value: 1.1 },
    details: {
      hostCpuPerCallUs: hostCpuMedian,
      rawCpuPerCallUs: rawCpuMedian,
      blocks: hostCpu.length,
      ...loadDetails(),
    },
  };
  return [
    {
      name: revision.name,
      // The median of each pair's ratio: a pair shares the machine's state of the moment.
      value: median(hostTimes.map((time, index) => time / (rawTimes[index] as number))),
      unit: 'x',
      goal: { op: '<=', value: 1.1 },
      details,
    },
    cpu,
  ];
}

export const mcpCallOverhead: Benchmark = {
  name: 'mcp-call-overhead',
  description:
    'median over interleaved calls of (host callTool ÷ bare SDK client callTool, its server in a session of its own as the host starts them), echo: server-everything on 2025-11-25 (SDK 1.x floor), an SDK v2 server on 2026-07-28 (SDK v2 floor)',
  async run() {
    return [...(await measure(LEGACY)), ...(await measure(MODERN))];
  },
};
