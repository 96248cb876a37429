import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Benchmark } from './harness.ts';
import { benchHost, median } from './mcp-setup.ts';

const ROUNDS = 6;
const WARMUP = 200;
const SAMPLES_PER_ROUND = 1000;
const ARGS = { message: 'hello from the benchmark' };

/**
 * The same `echo` of server-everything, called through the host (registry lookup, timeout and
 * cancellation wiring, its own stdio transport, result normalisation) and through a bare SDK
 * Client on its own copy of the server, interleaved in pairs so that machine noise hits both
 * alike. Each round spawns a fresh pair of servers: on a shared 2-core machine one process can
 * land better than the other for a whole run, and new pairs average that out.
 */
export const mcpCallOverhead: Benchmark = {
  name: 'mcp-call-overhead',
  description: 'median over interleaved pairs of (host callTool ÷ raw SDK Client.callTool), server-everything echo',
  async run() {
    const manifest = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json');
    const entry = path.join(path.dirname(manifest), 'dist/index.js');
    const hostTimes: number[] = [];
    const rawTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const bench = benchHost({ everything: { package: '@modelcontextprotocol/server-everything' } });
      const raw = new Client({ name: 'bench-raw', version: '1' });
      try {
        await Promise.all([
          bench.startAndWait(),
          raw.connect(new StdioClientTransport({ command: process.execPath, args: [entry], stderr: 'ignore' })),
        ]);
        const viaHost = async (): Promise<number> => {
          const start = performance.now();
          const result = await bench.host.callTool({ serverName: 'everything', toolName: 'echo', args: ARGS });
          if (result.isError) throw new Error('echo through the host failed');
          return performance.now() - start;
        };
        const viaRaw = async (): Promise<number> => {
          const start = performance.now();
          const result = await raw.callTool({ name: 'echo', arguments: ARGS });
          if (result.isError) throw new Error('echo through the raw client failed');
          return performance.now() - start;
        };
        for (let index = 0; index < WARMUP + SAMPLES_PER_ROUND; index++) {
          // Alternate which goes first: the second of two back-to-back calls finds the machine warmer.
          const hostFirst = index % 2 === 0;
          const first = await (hostFirst ? viaHost() : viaRaw());
          const second = await (hostFirst ? viaRaw() : viaHost());
          if (index < WARMUP) continue;
          hostTimes.push(hostFirst ? first : second);
          rawTimes.push(hostFirst ? second : first);
        }
      } finally {
        await raw.close();
        await bench.dispose();
      }
    }
    const hostMedian = median(hostTimes);
    const rawMedian = median(rawTimes);
    return {
      // The median of each pair's ratio: a pair shares the machine's state of the moment.
      value: median(hostTimes.map((time, index) => time / (rawTimes[index] as number))),
      unit: 'x',
      goal: { op: '<=', value: 1.1 },
      details: {
        hostMedianMs: hostMedian,
        rawMedianMs: rawMedian,
        ratioOfMedians: hostMedian / rawMedian,
        samples: hostTimes.length,
        rounds: ROUNDS,
      },
    };
  },
};
