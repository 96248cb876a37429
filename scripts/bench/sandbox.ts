/**
 * What containment costs (docs/user/sandbox.md): a contained start of server-everything against an unconfined one, and
 * a call to a contained server against the same call unconfined, each pair interleaved in the same run through the
 * same MCP host. Both need bubblewrap; without it they fail with the reason rather than compare nothing.
 */
import { sandboxAvailability } from '../../src/main/mcp/sandbox';
import { loadDetails, median, type Benchmark } from './harness.ts';
import { benchHost } from './mcp-setup.ts';

const EVERYTHING = { everything: { package: '@modelcontextprotocol/server-everything' as const } };
const START_PAIRS = Number(process.env.SANDBOX_START_PAIRS ?? 10);
const CALL_ROUNDS = 4;
const CALL_WARMUP = 100;
const CALLS_PER_ROUND = 500;
const ARGS = { message: 'hello from the benchmark' };

function requireSandbox(): void {
  const availability = sandboxAvailability();
  if (!availability.available) throw new Error(`no sandbox here: ${availability.reason}`);
}

async function timedStart(contained: boolean): Promise<number> {
  const bench = benchHost(EVERYTHING, undefined, { contained });
  try {
    const start = performance.now();
    await bench.startAndWait();
    const ms = performance.now() - start;
    const containment = bench.host.server('everything').status.containment;
    if (containment !== (contained ? 'contained' : 'not-contained'))
      throw new Error(`a ${contained ? 'contained' : 'unconfined'} start ran ${String(containment)}`);
    return ms;
  } finally {
    await bench.dispose();
  }
}

export const sandboxStart: Benchmark = {
  name: 'sandbox-start',
  description: 'median contained start of server-everything (until its tools are listed) ÷ median unconfined start',
  async run() {
    requireSandbox();
    // One of each first: Node's compile cache and the page cache warm for both.
    await timedStart(true);
    await timedStart(false);
    const contained: number[] = [];
    const unconfined: number[] = [];
    for (let pair = 0; pair < START_PAIRS; pair++) {
      const containedFirst = pair % 2 === 0;
      const first = await timedStart(containedFirst);
      const second = await timedStart(!containedFirst);
      contained.push(containedFirst ? first : second);
      unconfined.push(containedFirst ? second : first);
    }
    const details = {
      containedMedianMs: median(contained),
      unconfinedMedianMs: median(unconfined),
      pairs: START_PAIRS,
      ...loadDetails(),
    };
    console.error(
      `  sandbox-start: contained ${details.containedMedianMs.toFixed(0)} ms, unconfined (floor) ${details.unconfinedMedianMs.toFixed(0)} ms; load ${details.load1.toFixed(2)}`,
    );
    return {
      value: details.containedMedianMs / details.unconfinedMedianMs,
      unit: 'x',
      goal: { op: '<=', value: 1.25 },
      details,
    };
  },
};

export const sandboxCall: Benchmark = {
  name: 'sandbox-call',
  description:
    'median over interleaved pairs of (echo on a contained server ÷ echo on an unconfined one), both through the host',
  async run() {
    requireSandbox();
    const containedTimes: number[] = [];
    const unconfinedTimes: number[] = [];
    for (let round = 0; round < CALL_ROUNDS; round++) {
      const inside = benchHost(EVERYTHING, undefined, { contained: true });
      const outside = benchHost(EVERYTHING, undefined, { contained: false });
      try {
        await Promise.all([inside.startAndWait(), outside.startAndWait()]);
        if (inside.host.server('everything').status.containment !== 'contained')
          throw new Error('the contained server is not contained');
        const time = async (bench: typeof inside): Promise<number> => {
          const start = performance.now();
          const result = await bench.host.callTool({ serverName: 'everything', toolName: 'echo', args: ARGS });
          if (result.isError) throw new Error('echo failed');
          return performance.now() - start;
        };
        for (let index = 0; index < CALL_WARMUP + CALLS_PER_ROUND; index++) {
          const containedFirst = index % 2 === 0;
          const first = await time(containedFirst ? inside : outside);
          const second = await time(containedFirst ? outside : inside);
          if (index < CALL_WARMUP) continue;
          containedTimes.push(containedFirst ? first : second);
          unconfinedTimes.push(containedFirst ? second : first);
        }
      } finally {
        await inside.dispose();
        await outside.dispose();
      }
    }
    const details = {
      containedMedianMs: median(containedTimes),
      unconfinedMedianMs: median(unconfinedTimes),
      samples: containedTimes.length,
      rounds: CALL_ROUNDS,
      ...loadDetails(),
    };
    console.error(
      `  sandbox-call: contained ${details.containedMedianMs.toFixed(3)} ms, unconfined (floor) ${details.unconfinedMedianMs.toFixed(3)} ms; load ${details.load1.toFixed(2)}`,
    );
    return {
      value: median(containedTimes.map((time, index) => time / (unconfinedTimes[index] as number))),
      unit: 'x',
      goal: { op: '<=', value: 1.05 },
      details,
    };
  },
};
