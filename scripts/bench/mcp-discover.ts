import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { connectModernHttp } from '../../src/main/mcp/modern-client';
import { startModernServer } from '../../src/main/mcp/test-fixtures/modern-server';
import type { Benchmark } from './harness.ts';
import { median } from './mcp-setup.ts';

const WARMUP = 30;
const SAMPLES = 300;

/**
 * Connecting to a 2026-07-28 server (`server/discover`, docs/dev/protocol-2026.md) the way AI Workbench sets up the
 * SDK v2 client (modern-client.ts: capabilities, server-request and roots handlers) against a bare SDK v2 client
 * doing the same, both on the same SDK v2-built server on loopback, interleaved in pairs.
 */
export const mcpDiscover: Benchmark = {
  name: 'mcp-discover',
  description: 'median over interleaved pairs of (AI Workbench connect ÷ bare SDK v2 Client connect), 2026-07-28',
  async run() {
    const fixture = await startModernServer();
    const refuse = (): Promise<never> => Promise.reject(new Error('not in the benchmark'));
    const ours = async (): Promise<number> => {
      const start = performance.now();
      const connection = await connectModernHttp(fixture.url, {
        clientVersion: 'bench',
        timeoutMs: 10_000,
        serverRequests: { handler: { sample: refuse, elicit: refuse }, serverName: 'modern', chatOf: () => null },
        roots: () => [{ uri: 'file:///bench' }],
      });
      const time = performance.now() - start;
      if (connection.era !== 'modern') throw new Error('AI Workbench did not speak 2026-07-28');
      await connection.close();
      return time;
    };
    const bare = async (): Promise<number> => {
      const start = performance.now();
      const client = new Client({ name: 'bench-bare', version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new StreamableHTTPClientTransport(new URL(fixture.url)));
      const time = performance.now() - start;
      if (client.getProtocolEra() !== 'modern') throw new Error('the bare client did not speak 2026-07-28');
      await client.close();
      return time;
    };
    const ourTimes: number[] = [];
    const bareTimes: number[] = [];
    try {
      for (let index = 0; index < WARMUP + SAMPLES; index++) {
        const oursFirst = index % 2 === 0;
        const first = await (oursFirst ? ours() : bare());
        const second = await (oursFirst ? bare() : ours());
        if (index < WARMUP) continue;
        ourTimes.push(oursFirst ? first : second);
        bareTimes.push(oursFirst ? second : first);
      }
    } finally {
      await fixture.close();
    }
    const ourMedian = median(ourTimes);
    const bareMedian = median(bareTimes);
    return {
      value: median(ourTimes.map((time, index) => time / (bareTimes[index] as number))),
      unit: 'x',
      goal: { op: '<=', value: 1.2 },
      details: {
        oursMedianMs: ourMedian,
        bareMedianMs: bareMedian,
        ratioOfMedians: ourMedian / bareMedian,
        samples: ourTimes.length,
      },
    };
  },
};
