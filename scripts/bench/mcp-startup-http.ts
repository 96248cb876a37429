import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, type ConnectOptions } from '../../src/main/mcp/connect';
import { createProbeVerdicts, type ProbeVerdicts } from '../../src/main/mcp/probe-verdicts';
import type { LaunchConfig } from '../../src/main/mcp/server-config-service';
import type { NodeRuntime } from '../../src/main/mcp/node-runtime';
import { startStreamableHttpServer } from '../../src/main/mcp/test-fixtures/http-servers';
import { loadDetails, type Benchmark } from './harness.ts';
import { median } from './mcp-setup.ts';

const WARMUP = 20;
const SAMPLES = 200;

/**
 * A 2025-11-25 HTTP server reached until its tools are listed, as the host reaches it (connect.ts: `server/discover`
 * first, then the 1.x client's `initialize`; docs/dev/protocol-2026.md), against a bare 1.x SDK client doing
 * `initialize` and `tools/list`, on the same SDK-built server on loopback, interleaved. `mcp-startup-http` is a first
 * start (the probe paid); `mcp-startup-http-remembered` a start after one that found the server not 2026-07-28
 * (probe-verdicts.ts: no probe).
 */
function options(verdicts: ProbeVerdicts): ConnectOptions {
  return {
    runtime: {} as NodeRuntime,
    initializeTimeoutMs: 10_000,
    clientVersion: 'bench',
    log: () => undefined,
    onUnexpectedClose: () => undefined,
    onToolsChanged: () => undefined,
    verdicts,
  };
}

export const mcpStartupHttp: Benchmark = {
  name: 'mcp-startup-http',
  description:
    'median over interleaved rounds of (host connect + tools/list ÷ bare 1.x Client), 2025-11-25 over HTTP; first start and remembered',
  async run() {
    const server = await startStreamableHttpServer();
    const launch: LaunchConfig = { kind: 'http', name: 'bench', url: server.url, headers: {}, type: 'http' };
    const remembered = createProbeVerdicts();
    const ours = async (verdicts: ProbeVerdicts): Promise<number> => {
      const start = performance.now();
      const connection = await connect(launch, options(verdicts));
      await connection.client.request({ method: 'tools/list' }, ListToolsResultSchema);
      const time = performance.now() - start;
      if (connection.protocolVersion !== '2025-11-25') throw new Error('the host did not speak 2025-11-25');
      await connection.close();
      return time;
    };
    const bare = async (): Promise<number> => {
      const start = performance.now();
      const client = new Client({ name: 'bench-bare', version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(server.url));
      await client.connect(transport);
      await client.listTools();
      const time = performance.now() - start;
      await transport.terminateSession().catch(() => undefined);
      await client.close();
      return time;
    };
    const first: number[] = [];
    const again: number[] = [];
    const bareTimes: number[] = [];
    try {
      for (let index = 0; index < WARMUP + SAMPLES; index++) {
        const order = [
          async () => first.push(await ours(createProbeVerdicts())),
          async () => again.push(await ours(remembered)),
          async () => bareTimes.push(await bare()),
        ];
        for (let turn = 0; turn < 3; turn++) await (order[(index + turn) % 3] as () => Promise<number>)();
        if (index < WARMUP) {
          first.pop();
          again.pop();
          bareTimes.pop();
        }
      }
    } finally {
      await server.close();
    }
    const ratio = (times: number[]): number => median(times.map((time, index) => time / (bareTimes[index] as number)));
    const details = {
      firstMedianMs: median(first),
      rememberedMedianMs: median(again),
      bareMedianMs: median(bareTimes),
      rememberedRatio: ratio(again),
      samples: first.length,
      ...loadDetails(),
    };
    console.error(
      `  mcp-startup-http: first start ${details.firstMedianMs.toFixed(2)} ms, remembered ${details.rememberedMedianMs.toFixed(2)} ms; floor: bare 1.x client ${details.bareMedianMs.toFixed(2)} ms (medians of ${details.samples}); remembered ÷ bare ${details.rememberedRatio.toFixed(3)}×; load ${details.load1.toFixed(2)}`,
    );
    return [
      { name: 'mcp-startup-http', value: ratio(first), unit: 'x', goal: { op: '<=', value: 1.5 }, details },
      { name: 'mcp-startup-http-remembered', value: ratio(again), unit: 'x', goal: { op: '<=', value: 1.2 }, details },
    ];
  },
};
