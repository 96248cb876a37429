import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundledServerStartArgs, detectNodeRuntime } from '../../src/main/mcp/node-runtime.ts';
import { loadDetails, type Benchmark } from './harness.ts';
import { bareNode, measureOk, measurePairs, medianOf } from './process-measure.ts';

const PAIRS = Number(process.env.MCP_START_CPU_PAIRS ?? 10);

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } })}\n`;

/**
 * The CPU one bundled server start costs: the Files server, as the MCP host starts it (the same startup snapshot or
 * file, Node and compile cache, warm after a first start), from the spawn until its answer to `initialize` is on
 * stdout, when it is killed; against a whole `node -e 0` of the same Node in the same run (interleaved pairs, medians).
 */
export const mcpStartCpu: Benchmark = {
  name: 'mcp-start-cpu',
  description: `CPU of one bundled Files server start to initialize answered ÷ node -e 0, ${PAIRS} interleaved pairs`,
  async run() {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-bench-start-cpu-'));
    const sandbox = path.join(home, 'sandbox');
    fs.mkdirSync(sandbox);
    try {
      const program = bundledServerStartArgs('@modelcontextprotocol/server-filesystem', detectNodeRuntime());
      const env = { ...process.env, NODE_COMPILE_CACHE: path.join(home, 'cache', 'node-compile-cache') };
      const start = () =>
        measureOk(
          {
            argv: [process.execPath, ...program, sandbox],
            env,
            input: INITIALIZE,
            keepStdinOpen: true,
            stopAt: '"result"',
          },
          'the Files server',
        );
      await start();
      const pairs = await measurePairs(PAIRS, start, bareNode);
      const cpu = medianOf(pairs.subject, (sample) => sample.cpuMs);
      const floorCpu = medianOf(pairs.floor, (sample) => sample.cpuMs);
      const details = {
        medianCpuMs: cpu,
        medianToInitializeMs: medianOf(pairs.subject, (sample) => sample.wallMs),
        peakRssMB: medianOf(pairs.subject, (sample) => sample.maxRssMB),
        floorMedianCpuMs: floorCpu,
        floorMedianMs: medianOf(pairs.floor, (sample) => sample.wallMs),
        pairs: PAIRS,
        fromSnapshot: program[0] === '--snapshot-blob' ? 1 : 0,
        ...loadDetails(),
      };
      console.error(
        `  mcp-start-cpu: ${cpu.toFixed(1)} ms CPU (${details.medianToInitializeMs.toFixed(0)} ms to initialize answered) vs node -e 0 ${floorCpu.toFixed(1)} ms CPU; from its ${details.fromSnapshot ? 'startup snapshot' : 'bundle'}; load ${details.load1.toFixed(2)}`,
      );
      return { value: cpu / floorCpu, unit: 'x', goal: { op: '<=', value: 4 }, details };
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  },
};
