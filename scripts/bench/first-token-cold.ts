import fs from 'node:fs';
import path from 'node:path';
import { startFakeLlmServer } from '../../src/main/llm/testing/fake-llm-server.ts';
import { benchHome, workbench } from './cli-start.ts';
import { loadDetails, type Benchmark } from './harness.ts';
import { measurePairs, medianOf, type ProcessMeasurement } from './process-measure.ts';

const PAIRS = Number(process.env.FIRST_TOKEN_COLD_PAIRS ?? 10);
const KEY = 'sk-bench';
const MANY = 10;

/** A data folder with `count` bundled Files servers (each on its own folder) and the fake provider. */
function homeWith(count: number, baseURL: string): Promise<string> {
  return benchHome(`aiwb-bench-cold-${count}-`, (services) => {
    services.mcpServers.remove('Files');
    for (let index = 0; index < count; index++) {
      const folder = path.join(services.dataDir, `sandbox-${index}`);
      fs.mkdirSync(folder, { recursive: true });
      services.mcpServers.add(`files-${index}`, { package: '@modelcontextprotocol/server-filesystem', args: [folder] });
    }
    services.providers.add({
      kind: 'openai',
      id: 'fake',
      label: 'Fake',
      baseURL,
      apiKey: KEY,
      defaultModel: 'fake-large',
    });
  });
}

/**
 * Time to the first streamed token of a new chat at a launch (`workbench run`, a whole process: its MCP servers
 * start with it), with 10 configured servers against the same with 1, interleaved pairs, medians. The model (the
 * fake server) answers with text at once.
 */
export const firstTokenCold: Benchmark = {
  name: 'first-token-cold',
  description: `first streamed token of a new chat at a launch with ${MANY} configured servers ÷ with 1, ${PAIRS} interleaved pairs`,
  async run() {
    const fake = await startFakeLlmServer({ apiKey: KEY });
    const many = await homeWith(MANY, fake.baseURL('openai'));
    const one = await homeWith(1, fake.baseURL('openai'));
    try {
      const launch = (home: string) => async (): Promise<ProcessMeasurement> => {
        fake.script({ kind: 'reply', text: ['Hello', ' there.'] });
        return workbench(home, ['run', 'hello', '--provider', 'fake']);
      };
      await launch(many)();
      await launch(one)();
      const pairs = await measurePairs(PAIRS, launch(many), launch(one));
      const first = (sample: ProcessMeasurement): number | null => sample.firstOutputMs;
      const manyMs = medianOf(pairs.subject, first);
      const oneMs = medianOf(pairs.floor, first);
      const details = {
        manyServersMs: manyMs,
        oneServerMs: oneMs,
        manyServersCpuMs: medianOf(pairs.subject, (sample) => sample.cpuMs),
        oneServerCpuMs: medianOf(pairs.floor, (sample) => sample.cpuMs),
        servers: MANY,
        pairs: PAIRS,
        ...loadDetails(),
      };
      console.error(
        `  first-token-cold: ${manyMs.toFixed(0)} ms with ${MANY} servers, ${oneMs.toFixed(0)} ms with 1; load ${details.load1.toFixed(2)}`,
      );
      return { value: manyMs / oneMs, unit: 'x', goal: { op: '<=', value: 1.5 }, details };
    } finally {
      await fake.close();
      fs.rmSync(many, { recursive: true, force: true });
      fs.rmSync(one, { recursive: true, force: true });
    }
  },
};
