import fs from 'node:fs';
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
import { childPids, liveCpuMs, placeApart, processTree } from './process-measure.ts';

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

/** How a server process is started: its command line and environment. */
interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

interface Revision {
  name: string;
  server: McpServerInput;
  /** What the host must have negotiated with its server, so that the line measures that revision. */
  protocolVersion: string;
  toolArgs: Record<string, unknown>;
  /**
   * A bare SDK client on a copy of the server of its own: started as `launch` says (the host's own launch of it), or
   * else unconfined, with this process's environment, in a session of its own (`setsid`).
   */
  bare(launch?: Launch): Promise<BareClient>;
}

const EVERYTHING_ENTRY = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const MODERN_ENTRY = path.join(ROOT, 'src/main/mcp/test-fixtures/modern-stdio-server.ts');
const TASKS_ENTRY = path.join(ROOT, 'src/main/mcp/test-fixtures/modern-tasks-server.ts');
const QUIET = { MODERN_STDIO_QUIET: '1' };

const processEnv = (): Record<string, string> => ({ ...(process.env as Record<string, string>) });

/**
 * How the host started the one server it runs, read from /proc: its bubblewrap's (or, unconfined, its node's) command
 * line and environment, exactly as the host spawned it (src/main/mcp/connect.ts).
 */
function hostLaunch(before: ReadonlySet<number>): Launch {
  const started = childPids().filter((pid) => !before.has(pid));
  if (started.length !== 1) throw new Error(`expected the host to start one server process, found ${started.length}`);
  const pid = started[0] as number;
  const [command, ...args] = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  const env = Object.fromEntries(
    fs
      .readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { command: command as string, args, env };
}

/** 2025-11-25: server-everything from node_modules; the floor is the 1.x SDK's Client and stdio transport. */
const LEGACY: Revision = {
  name: 'mcp-call-overhead',
  server: { package: '@modelcontextprotocol/server-everything' },
  protocolVersion: '2025-11-25',
  toolArgs: { message: 'hello from the benchmark' },
  async bare(launch = { command: 'setsid', args: [process.execPath, EVERYTHING_ENTRY], env: processEnv() }) {
    const client = new Client({ name: 'bench-raw', version: '1' });
    await client.connect(new StdioClientTransport({ ...launch, stderr: 'ignore' }));
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
  async bare(
    launch = { command: 'setsid', args: [process.execPath, MODERN_ENTRY], env: { ...processEnv(), ...QUIET } },
  ) {
    const client = new ClientV2({ name: 'bench-raw', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StdioClientTransportV2({ ...launch, stderr: 'ignore' }));
    if (client.getProtocolEra() !== 'modern') throw new Error('the bare SDK v2 client did not speak 2026-07-28');
    return {
      call: () => client.callTool({ name: 'echo', arguments: MODERN.toolArgs }),
      close: () => client.close(),
    };
  },
};

/**
 * 2026-07-28 with the tasks extension offered (test-fixtures/modern-tasks-server.ts): the host's calls declare it, on
 * its raw request path (docs/dev/protocol-2026.md#tasks-on-2026-07-28), and `echo` answers at once; the floor is the
 * SDK v2's Client, which declares nothing.
 */
const MODERN_TASKS: Revision = {
  ...MODERN,
  name: 'mcp-call-overhead-2026-tasks',
  server: { command: process.execPath, args: [TASKS_ENTRY], env: QUIET },
  async bare(
    launch = { command: 'setsid', args: [process.execPath, TASKS_ENTRY], env: { ...processEnv(), ...QUIET } },
  ) {
    return MODERN.bare(launch);
  },
};

/**
 * The same `echo`, called through the host (registry lookup, the door's deny check, timeout and cancellation wiring,
 * its own stdio transport, result normalisation) and through a bare SDK client on a copy of the server started exactly
 * as the host started its own (the same bubblewrap command line and environment: docs/user/sandbox.md), interleaved
 * so that machine noise hits both alike. The two then differ only in the client, which is what the line measures; the
 * cost of containing a server is `sandbox-call`'s. While it measures, this process runs on one CPU and the servers on
 * another (`placeApart`): each round then measures the same placement, a desktop's, client and server each on a core
 * of its own, where left to the kernel one process could land better than another for a whole round. Each round
 * spawns fresh servers.
 *
 * A bare client on the server unconfined, with this process's environment, is measured beside it (`vsUnconfined`).
 */
async function measure(revision: Revision): Promise<NamedBenchMeasurement[]> {
  const hostTimes: number[] = [];
  const floorTimes: number[] = [];
  const unconfinedTimes: number[] = [];
  const hostCpu: number[] = [];
  const floorCpu: number[] = [];
  /** The part of each block's CPU that is this process's: the client's. */
  const hostClientCpu: number[] = [];
  const floorClientCpu: number[] = [];
  /** Whether every round ran with the client and the servers on CPUs of their own (placeApart). */
  let apart = true;
  for (let round = 0; round < ROUNDS; round++) {
    const bench = benchHost({ bench: revision.server });
    const clients: BareClient[] = [];
    const keep = (client: BareClient): BareClient => (clients.push(client), client);
    let placed: ReturnType<typeof placeApart> | undefined;
    try {
      const before = new Set(childPids());
      await bench.startAndWait();
      const spoken = bench.host.server('bench').status.protocolVersion;
      if (spoken !== revision.protocolVersion)
        throw new Error(`the host spoke ${String(spoken)} to the server, not ${revision.protocolVersion}`);
      const [floor, unconfined] = await Promise.all([
        revision.bare(hostLaunch(before)).then(keep),
        revision.bare().then(keep),
      ]);
      const viaHost: Call = async () => {
        const result = await bench.host.callTool({ serverName: 'bench', toolName: 'echo', args: revision.toolArgs });
        if (result.isError) throw new Error('echo through the host failed');
      };
      // The client here, the servers on another CPU, in every round alike (placeApart).
      placed = placeApart();
      apart &&= placed.apart;
      const ways: Call[] = [viaHost, floor.call, unconfined.call];
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
        floorTimes.push(times[1] as number);
        unconfinedTimes.push(times[2] as number);
      }
      // The CPU of this process (`process.cpuUsage`, cheap) and of every process under it (the servers, their
      // bubblewrap; read from /proc outside the calls) over a block of calls made one way: only that way's server
      // works meanwhile, so a block's CPU is that way's, client and server.
      const servers = processTree(process.pid).slice(1);
      const serversCpuMs = (): number => servers.reduce((sum, pid) => sum + (liveCpuMs(pid) || 0), 0);
      for (let block = 0; block < CPU_BLOCKS; block++)
        for (const [way, into, client] of [
          [viaHost, hostCpu, hostClientCpu],
          [floor.call, floorCpu, floorClientCpu],
        ] as const) {
          const serversBefore = serversCpuMs();
          const cpuBefore = process.cpuUsage();
          for (let call = 0; call < CALLS_PER_CPU_BLOCK; call++) await way();
          const own = process.cpuUsage(cpuBefore);
          const serversUs = (serversCpuMs() - serversBefore) * 1000;
          into.push((own.user + own.system + serversUs) / CALLS_PER_CPU_BLOCK);
          client.push((own.user + own.system) / CALLS_PER_CPU_BLOCK);
        }
    } finally {
      placed?.restore();
      for (const client of clients) await client.close();
      await bench.dispose();
    }
  }
  const hostMedian = median(hostTimes);
  const floorMedian = median(floorTimes);
  const details = {
    hostMedianMs: hostMedian,
    floorMedianMs: floorMedian,
    ratioOfMedians: hostMedian / floorMedian,
    unconfinedMedianMs: median(unconfinedTimes),
    // The same median of ratios against the bare client on the server unconfined, with this process's environment.
    vsUnconfined: median(hostTimes.map((time, index) => time / (unconfinedTimes[index] as number))),
    floorVsUnconfined: median(floorTimes.map((time, index) => time / (unconfinedTimes[index] as number))),
    samples: hostTimes.length,
    rounds: ROUNDS,
    placedApart: apart ? 1 : 0,
    ...loadDetails(),
  };
  const hostCpuMedian = median(hostCpu);
  const floorCpuMedian = median(floorCpu);
  console.error(
    `  ${revision.name}: host ${(hostMedian * 1000).toFixed(0)} µs, bare SDK client (floor) ${(floorMedian * 1000).toFixed(0)} µs, ` +
      `bare client on the server unconfined ${(details.unconfinedMedianMs * 1000).toFixed(0)} µs; ` +
      `CPU per call (client and server) host ${hostCpuMedian.toFixed(0)} µs, floor ${floorCpuMedian.toFixed(0)} µs; ` +
      `${apart ? 'client and servers on CPUs of their own' : 'placed by the kernel'}; load ${details.load1.toFixed(2)}`,
  );
  const cpu: NamedBenchMeasurement = {
    name: `${revision.name}-cpu`,
    value: hostCpuMedian / floorCpuMedian,
    unit: 'x',
    goal: { op: '<=', value: 1.1 },
    details: {
      hostCpuPerCallUs: hostCpuMedian,
      floorCpuPerCallUs: floorCpuMedian,
      hostClientCpuPerCallUs: median(hostClientCpu),
      floorClientCpuPerCallUs: median(floorClientCpu),
      blocks: hostCpu.length,
      ...loadDetails(),
    },
  };
  return [
    {
      name: revision.name,
      // The median of each pair's ratio: a pair shares the machine's state of the moment.
      value: median(hostTimes.map((time, index) => time / (floorTimes[index] as number))),
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
    'median over interleaved calls of (host callTool ÷ bare SDK client callTool, its server started as the host starts its own), echo: server-everything on 2025-11-25 (SDK 1.x floor), an SDK v2 server on 2026-07-28 (SDK v2 floor)',
  async run() {
    return [...(await measure(LEGACY)), ...(await measure(MODERN)), ...(await measure(MODERN_TASKS))];
  },
};
