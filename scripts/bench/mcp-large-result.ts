import type { Benchmark } from './harness.ts';
import { benchHost, FIXTURE_SERVER, median } from './mcp-setup.ts';

const BYTES = 4 * 1024 * 1024;
const WARMUP = 3;
const SAMPLES = 15;

/**
 * A 4 MiB tool result from the fixture server, end to end through the host: the server writes it,
 * the host frames and parses the JSON-RPC message, checks the result's shape and normalises it
 * (the model's text cut to 1 MiB with a note). Median wall time of one call.
 */
export const mcpLargeResult: Benchmark = {
  name: 'mcp-large-result',
  description: 'median time of one call returning a 4 MiB result, parsed and normalised by the host',
  async run() {
    const bench = benchHost({ fixture: { command: process.execPath, args: [FIXTURE_SERVER] } });
    try {
      await bench.startAndWait();
      const times: number[] = [];
      for (let index = 0; index < WARMUP + SAMPLES; index++) {
        const start = performance.now();
        const result = await bench.host.callTool({ serverName: 'fixture', toolName: 'big', args: { bytes: BYTES } });
        const time = performance.now() - start;
        const [part] = result.content;
        if (part?.type !== 'text' || part.text.length !== BYTES || !result.forModel.truncated)
          throw new Error('the result did not come back whole');
        if (index >= WARMUP) times.push(time);
      }
      return {
        value: median(times),
        unit: 'ms',
        goal: { op: '<=', value: 150 },
        details: { bytes: BYTES, samples: SAMPLES, slowestMs: Math.max(...times) },
      };
    } finally {
      await bench.dispose();
    }
  },
};
