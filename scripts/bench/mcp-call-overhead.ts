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
 * Client on its own copy of the server, interleaved so that machine noise hits both alike. Each
 * round spawns fresh servers: on a shared 2-core machine one process can land better than the
 * other for a whole run, and new ones average that out.
 *
 * The floor's server runs in a session of its own (`setsid`), as the host starts its servers
 * (`detached`: the child calls setsid(), and Linux's autogroup then schedules it as a group of its
 * own); the server does the same work either way. The SDK's transport with the server in the
 * client's session is measured beside it (`vsAttached`), so the two floors can be compared in one run.
 */
export const mcpCallOverhead: Benchmark = {
  name: 'mcp-call-overhead',
  description:
    'median over interleaved calls of (host callTool ÷ raw SDK Client.callTool, its server in a session of its own as the host starts them), server-everything echo',
  async run() {
    const manifest = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json');
    const entry = path.join(path.dirname(manifest), 'dist/index.js');
    const hostTimes: number[] = [];
    const rawTimes: number[] = [];
    const attachedTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const bench = benchHost({ everything: { package: '@modelcontextprotocol/server-everything' } });
      const raw = new Client({ name: 'bench-raw', version: '1' });
      const attached = new Client({ name: 'bench-raw-attached', version: '1' });
      try {
        await Promise.all([
          bench.startAndWait(),
          raw.connect(
            new StdioClientTransport({ command: 'setsid', args: [process.execPath, entry], stderr: 'ignore' }),
          ),
          attached.connect(new StdioClientTransport({ command: process.execPath, args: [entry], stderr: 'ignore' })),
        ]);
        const viaHost = async (): Promise<number> => {
          const start = performance.now();
          const result = await bench.host.callTool({ serverName: 'everything', toolName: 'echo', args: ARGS });
          if (result.isError) throw new Error('echo through the host failed');
          return performance.now() - start;
        };
        const viaClient = (client: Client) => async (): Promise<number> => {
          const start = performance.now();
          const result = await client.callTool({ name: 'echo', arguments: ARGS });
          if (result.isError) throw new Error('echo through the raw client failed');
          return performance.now() - start;
        };
        const ways = [viaHost, viaClient(raw), viaClient(attached)];
        for (let index = 0; index < WARMUP + SAMPLES_PER_ROUND; index++) {
          // Rotate which goes first: a call right after another finds the machine warmer.
          const times: number[] = [0, 0, 0];
          for (let offset = 0; offset < ways.length; offset++) {
            const way = (index + offset) % ways.length;
            times[way] = await (ways[way] as () => Promise<number>)();
          }
          if (index < WARMUP) continue;
          hostTimes.push(times[0] as number);
          rawTimes.push(times[1] as number);
          attachedTimes.push(times[2] as number);
        }
      } finally {
        await raw.close();
        await attached.close();
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
        attachedMedianMs: median(attachedTimes),
        // The same median of ratios against the floor whose server shares the client's session.
        vsAttached: median(hostTimes.map((time, index) => time / (attachedTimes[index] as number))),
        detachedVsAttached: median(rawTimes.map((time, index) => time / (attachedTimes[index] as number))),
        samples: hostTimes.length,
        rounds: ROUNDS,
      },
    };
  },
};
