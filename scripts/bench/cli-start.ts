import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServices } from '../../src/main/services.ts';
import { ROOT } from '../lib/project.ts';
import { loadDetails, type Benchmark, type NamedBenchMeasurement } from './harness.ts';
import { bareNode, measureOk, measurePairs, medianOf, type ProcessMeasurement } from './process-measure.ts';

const PAIRS = Number(process.env.CLI_START_PAIRS ?? 10);
const CHATS = 1000;
export const WORKBENCH_BIN = path.join(ROOT, 'bin', 'workbench.js');

/**
 * `workbench …` as a person's shell starts it: `bin/workbench.js` on the same Node 22 as the floor, as an installed
 * package runs (no build check: the benchmark built first). Returns the whole process's measurement.
 */
export function workbench(
  home: string,
  args: readonly string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<ProcessMeasurement> {
  return measureOk(
    {
      argv: [process.execPath, WORKBENCH_BIN, ...args],
      cwd: ROOT,
      env: {
        ...process.env,
        WORKBENCH_HOME: home,
        WORKBENCH_SKIP_BUILD: '1',
        WORKBENCH_MANAGED_POLICY: undefined,
        NO_COLOR: '1',
        ...extraEnv,
      },
    },
    `workbench ${args.join(' ')}`,
  );
}

/** A data folder as `createServices` leaves it, after `seed`. */
export async function benchHome(
  prefix: string,
  seed: (services: ReturnType<typeof createServices>) => void,
): Promise<string> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const services = createServices({ dataDir: home, host: 'cli', version: '0.0.0-bench', managedPolicyFile: null });
  try {
    seed(services);
  } finally {
    await services.conversations.dispose();
    services.close();
  }
  return home;
}

/**
 * Cold starts of the CLI, each against a bare `node -e 0` of the same Node binary in the same run (interleaved
 * pairs, medians): `--help`; `chats list` on 1,000 chats (and that process's peak RSS); `run` to the first streamed
 * token of the Demo provider on a data folder without MCP servers.
 */
export const cliStart: Benchmark = {
  name: 'cli-start',
  description: `workbench --help, chats list (${CHATS} chats) and run (to the first token, Demo provider) ÷ node -e 0, ${PAIRS} interleaved pairs each`,
  async run() {
    const listHome = await benchHome('aiwb-bench-cli-list-', (services) => {
      for (let index = 0; index < CHATS; index++)
        services.chats.create({ title: `Chat number ${index} about something` });
    });
    const runHome = await benchHome('aiwb-bench-cli-run-', (services) => services.mcpServers.remove('Files'));
    try {
      const commands = {
        help: () => workbench(listHome, ['--help']),
        list: () => workbench(listHome, ['chats', 'list']),
        run: () => workbench(runHome, ['run', 'hello']),
      };
      // One of each first: the compile cache and the page cache warm, as for anyone's second command.
      for (const command of Object.values(commands)) await command();
      await bareNode();
      const help = await measurePairs(PAIRS, commands.help, bareNode);
      const list = await measurePairs(PAIRS, commands.list, bareNode);
      const run = await measurePairs(PAIRS, commands.run, bareNode);
      const wall = (sample: ProcessMeasurement): number => sample.wallMs;
      const cpu = (sample: ProcessMeasurement): number => sample.cpuMs;
      const firstToken = (sample: ProcessMeasurement): number | null => sample.firstOutputMs;
      const floorOf = (pairs: { floor: ProcessMeasurement[] }): number => medianOf(pairs.floor, wall);
      const load = loadDetails();
      const details = (
        pairs: { subject: ProcessMeasurement[]; floor: ProcessMeasurement[] },
        value: (sample: ProcessMeasurement) => number | null,
      ) => ({
        medianMs: medianOf(pairs.subject, value),
        medianCpuMs: medianOf(pairs.subject, cpu),
        medianPeakRssMB: medianOf(pairs.subject, (sample) => sample.maxRssMB),
        floorMedianMs: floorOf(pairs),
        floorMedianCpuMs: medianOf(pairs.floor, cpu),
        floorPeakRssMB: medianOf(pairs.floor, (sample) => sample.maxRssMB),
        pairs: pairs.subject.length,
        ...load,
      });
      const lines: NamedBenchMeasurement[] = [
        {
          name: 'cli-start-help',
          value: medianOf(help.subject, wall) / floorOf(help),
          unit: 'x',
          goal: { op: '<=', value: 2 },
          details: details(help, wall),
        },
        {
          name: 'cli-start-list',
          value: medianOf(list.subject, wall) / floorOf(list),
          unit: 'x',
          goal: { op: '<=', value: 3 },
          details: { ...details(list, wall), chats: CHATS },
        },
        {
          name: 'cli-start-list-rss',
          value: Math.max(...list.subject.map((sample) => sample.maxRssMB)),
          unit: 'MB',
          goal: { op: '<=', value: 80 },
          details: { medianPeakRssMB: medianOf(list.subject, (sample) => sample.maxRssMB), chats: CHATS },
        },
        {
          name: 'cli-start-run',
          value: medianOf(run.subject, firstToken) / floorOf(run),
          unit: 'x',
          goal: { op: '<=', value: 5 },
          details: { ...details(run, firstToken), medianWholeRunMs: medianOf(run.subject, wall) },
        },
      ];
      for (const line of lines)
        console.error(
          `  ${line.name}: ${(line.details?.medianMs ?? line.value).toFixed(1)} (cpu ${line.details?.medianCpuMs?.toFixed(1) ?? '-'} ms) vs node -e 0 ${line.details?.floorMedianMs?.toFixed(1) ?? '-'} ms; load ${load.load1.toFixed(2)}`,
        );
      return lines;
    } finally {
      fs.rmSync(listHome, { recursive: true, force: true });
      fs.rmSync(runHome, { recursive: true, force: true });
    }
  },
};
