import fs from 'node:fs';
import path from 'node:path';
import { startFakeLlmServer } from '../../src/main/llm/testing/fake-llm-server.ts';
import { resolveBundledServerEntry } from '../../src/main/mcp/node-runtime.ts';
import { ROOT } from '../lib/project.ts';
import { benchHome, workbench } from './cli-start.ts';
import { loadDetails, type Benchmark, type NamedBenchMeasurement } from './harness.ts';
import { measureOk, measureRounds, medianOf, type ProcessMeasurement } from './process-measure.ts';

const PAIRS = Number(process.env.CLI_RUN_TOOL_PAIRS ?? 10);
const KEY = 'sk-bench';
const SERVER = 'everything';
const BARE_CLIENT = path.join(ROOT, 'scripts', 'bench', 'bare-mcp-client.mjs');
const SAME_WORK_CLIENT = path.join(ROOT, 'scripts', 'bench', 'same-work-client.mjs');

/**
 * One whole `workbench run` in which the scripted model (the fake server, OpenAI format) calls `echo` of
 * server-everything — auto-approved by a tool setting — and then answers; against a bare MCP SDK client process
 * that spawns the same server file on the same Node with the same compile cache, initializes, calls `echo` once and
 * exits (the floor); and against the same work done by the two official SDKs alone (same-work-client.mjs:
 * the tool list, two streamed replies of the OpenAI SDK, the call), which shows what our own code adds.
 * Interleaved rounds, medians of wall and CPU (the process and the server it waited for), and peak RSS.
 */
export const cliRunTool: Benchmark = {
  name: 'cli-run-tool',
  description: `workbench run with one auto-approved echo call of server-everything ÷ a bare SDK client doing the same call, and ÷ the same work by the SDKs alone, ${PAIRS} interleaved rounds`,
  async run() {
    const fake = await startFakeLlmServer({ apiKey: KEY });
    const home = await benchHome('aiwb-bench-cli-tool-', (services) => {
      services.mcpServers.remove('Files');
      services.mcpServers.add(SERVER, { package: '@modelcontextprotocol/server-everything', args: [] });
      services.providers.add({
        kind: 'openai',
        id: 'fake',
        label: 'Fake',
        baseURL: fake.baseURL('openai'),
        apiKey: KEY,
        defaultModel: 'fake-large',
      });
    });
    try {
      await workbench(home, ['policy', 'set', 'tool', SERVER, 'echo', 'auto-approve']);
      // The server file the CLI starts, on the Node and compile cache it starts it with (mcp-host.ts).
      const entry = resolveBundledServerEntry('@modelcontextprotocol/server-everything');
      const cacheEnv = { NODE_COMPILE_CACHE: path.join(home, 'cache', 'node-compile-cache') };
      // The scripted model of one exchange: a call of echo, then the answer.
      const scriptExchange = (): void =>
        fake.script(
          {
            kind: 'reply',
            text: ['Calling echo.'],
            toolCalls: [
              { name: `${SERVER}__echo`, argumentChunks: [JSON.stringify({ message: 'hello from the model' })] },
            ],
          },
          { kind: 'reply', text: ['It said hello.'] },
        );
      const viaCli = async (): Promise<ProcessMeasurement> => {
        scriptExchange();
        const result = await workbench(home, ['run', 'echo hello', '--provider', 'fake']);
        if (!result.stderr.includes('echo · ok'))
          throw new Error(`the echo call did not run:\n${result.stderr}\n${result.stdout}`);
        return result;
      };
      const floor = (): Promise<ProcessMeasurement> =>
        measureOk(
          { argv: [process.execPath, BARE_CLIENT, entry], cwd: ROOT, env: { ...process.env, ...cacheEnv } },
          'bare MCP client',
        );
      const sameWork = (): Promise<ProcessMeasurement> => {
        scriptExchange();
        return measureOk(
          {
            argv: [process.execPath, SAME_WORK_CLIENT, fake.baseURL('openai'), KEY, 'fake-large', entry],
            cwd: ROOT,
            env: { ...process.env, ...cacheEnv },
          },
          'same-work SDK client',
        );
      };
      await viaCli();
      await floor();
      await sameWork();
      const [subjects = [], floors = [], sameWorks = []] = await measureRounds(PAIRS, [viaCli, floor, sameWork]);
      const wall = medianOf(subjects, (sample) => sample.wallMs);
      const cpu = medianOf(subjects, (sample) => sample.cpuMs);
      const floorWall = medianOf(floors, (sample) => sample.wallMs);
      const floorCpu = medianOf(floors, (sample) => sample.cpuMs);
      const sameWorkWall = medianOf(sameWorks, (sample) => sample.wallMs);
      const sameWorkCpu = medianOf(sameWorks, (sample) => sample.cpuMs);
      const peak = Math.max(...subjects.map((sample) => sample.maxRssMB));
      const details = {
        medianMs: wall,
        medianCpuMs: cpu,
        floorMedianMs: floorWall,
        floorMedianCpuMs: floorCpu,
        sameWorkMedianMs: sameWorkWall,
        sameWorkMedianCpuMs: sameWorkCpu,
        peakRssMB: peak,
        floorPeakRssMB: Math.max(...floors.map((sample) => sample.maxRssMB)),
        sameWorkPeakRssMB: Math.max(...sameWorks.map((sample) => sample.maxRssMB)),
        rounds: PAIRS,
        ...loadDetails(),
      };
      console.error(
        `  cli-run-tool: ${wall.toFixed(0)} ms wall, ${cpu.toFixed(0)} ms CPU, ${peak.toFixed(0)} MB; floor ${floorWall.toFixed(0)} ms, ${floorCpu.toFixed(0)} ms CPU, ${details.floorPeakRssMB.toFixed(0)} MB; ` +
          `same work by the SDKs alone ${sameWorkWall.toFixed(0)} ms, ${sameWorkCpu.toFixed(0)} ms CPU, ${details.sameWorkPeakRssMB.toFixed(0)} MB; load ${details.load1.toFixed(2)}`,
      );
      const lines: NamedBenchMeasurement[] = [
        { name: 'cli-run-tool-wall', value: wall / floorWall, unit: 'x', goal: { op: '<=', value: 1.3 }, details },
        { name: 'cli-run-tool-cpu', value: cpu / floorCpu, unit: 'x', goal: { op: '<=', value: 1.3 }, details },
        { name: 'cli-run-tool-rss', value: peak, unit: 'MB', goal: { op: '<=', value: 120 }, details },
        // What our code adds to the work itself: settings, policy, the audit log, the tool loop, the output.
        {
          name: 'cli-run-tool-cpu-vs-same-work',
          value: cpu / sameWorkCpu,
          unit: 'x',
          goal: { op: '<=', value: 1.3 },
          details,
        },
      ];
      return lines;
    } finally {
      await fake.close();
      fs.rmSync(home, { recursive: true, force: true });
    }
  },
};
