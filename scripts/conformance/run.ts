/**
 * Runs every client scenario of the MCP conformance suite (`@modelcontextprotocol/conformance`) against the built
 * `workbench` CLI through its adapter (src/cli/testing/conformance-client.ts), one line per scenario
 * (docs/dev/testing.md, "The conformance suite"). The scenarios come from the suite itself (`conformance list`),
 * so a newer suite's scenarios run as soon as it is installed.
 *
 * A scenario listed in expected-failures.json (with the reason) is reported as an expected failure; the run fails
 * when any other scenario fails, and when an expected failure passes (the list is then out of date).
 * Writes a JSON report (`--report FILE`): { passed, failed, expectedFailures, scenarios }.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../lib/project.ts';

const SUITE = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const ADAPTER = path.join(ROOT, 'src', 'cli', 'testing', 'conformance-client.ts');
const EXPECTED_FILE = path.join(ROOT, 'scripts', 'conformance', 'expected-failures.json');
/** Two scenarios at a time: each starts its own servers on free ports, and most of a scenario is waiting. */
const CONCURRENCY = 2;
/** The adapter starts the CLI several times (add, sign-in, tools, run); a loaded 2-core machine needs the room. */
const SCENARIO_TIMEOUT_MS = 180_000;

interface Outcome {
  scenario: string;
  status: 'passed' | 'failed' | 'expected-failure' | 'unexpected-pass';
  detail?: string;
}

function capture(args: string[], timeoutMs: number): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SUITE, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, output });
    });
  });
}

/** The suite's client scenarios, from `conformance list`. */
async function clientScenarios(): Promise<string[]> {
  const { code, output } = await capture(['list'], 60_000);
  const section = output.split(/Client scenarios[^\n]*\n/)[1];
  if (code !== 0 || section === undefined) throw new Error(`conformance list failed (exit ${code}):\n${output}`);
  return [...section.matchAll(/^\s*-\s+(\S+)/gm)].map((match) => match[1] as string);
}

function failedChecks(outDir: string): string[] {
  // The suite writes <out>/<scenario>-<time>/checks.json, where an auth scenario's name holds a folder (auth/…).
  const files = fs.existsSync(outDir)
    ? (fs.readdirSync(outDir, { recursive: true }) as string[]).filter((file) => path.basename(file) === 'checks.json')
    : [];
  const failed: string[] = [];
  for (const relative of files) {
    const file = path.join(outDir, relative);
    const checks = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{
      name: string;
      status: string;
      errorMessage?: string;
    }>;
    for (const check of checks)
      if (check.status === 'FAILURE')
        failed.push(`${check.name}${check.errorMessage ? `: ${check.errorMessage}` : ''}`);
  }
  return failed;
}

async function runScenario(scenario: string, expected: Record<string, string>, resultsDir: string): Promise<Outcome> {
  const outDir = path.join(resultsDir, scenario.replaceAll('/', '_'));
  fs.rmSync(outDir, { recursive: true, force: true });
  const command = `"${process.execPath}" --import tsx "${ADAPTER}"`;
  const { code, output } = await capture(
    ['client', '--command', command, '--scenario', scenario, '--timeout', String(SCENARIO_TIMEOUT_MS), '-o', outDir],
    SCENARIO_TIMEOUT_MS + 60_000,
  );
  fs.writeFileSync(path.join(resultsDir, `${scenario.replaceAll('/', '_')}.log`), output);
  const passed = code === 0 && /OVERALL: PASSED/.test(output);
  const reason = expected[scenario];
  const failures = failedChecks(outDir);
  const detail =
    failures.length > 0
      ? failures.join('; ')
      : passed
        ? undefined
        : `exit ${code}, no failed check recorded (see ${path.relative(ROOT, outDir)}.log)`;
  if (reason === undefined) return { scenario, status: passed ? 'passed' : 'failed', ...(detail ? { detail } : {}) };
  return passed
    ? {
        scenario,
        status: 'unexpected-pass',
        detail: `listed as an expected failure (${reason}) but passed: remove it from ${path.relative(ROOT, EXPECTED_FILE)}`,
      }
    : { scenario, status: 'expected-failure', detail: reason };
}

const reportArg = process.argv.indexOf('--report');
const reportFile = reportArg > 0 ? process.argv[reportArg + 1] : undefined;
const only = process.argv.slice(2).filter((arg, index, all) => !arg.startsWith('--') && all[index - 1] !== '--report');
const expected = JSON.parse(fs.readFileSync(EXPECTED_FILE, 'utf8')) as Record<string, string>;
const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-conformance-'));
const scenarios = only.length > 0 ? only : await clientScenarios();
const unknown = Object.keys(expected).filter((name) => !scenarios.includes(name) && only.length === 0);

const outcomes: Outcome[] = [];
const queue = [...scenarios];
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) {
      const outcome = await runScenario(scenario, expected, resultsDir);
      outcomes.push(outcome);
      const mark = outcome.status === 'passed' ? '✓' : outcome.status === 'expected-failure' ? '○' : '✗';
      const words = {
        passed: 'passed',
        failed: 'FAILED',
        'expected-failure': 'expected failure',
        'unexpected-pass': 'PASSED, but listed as an expected failure',
      }[outcome.status];
      console.log(`  ${mark} ${scenario}: ${words}${outcome.detail ? ` — ${outcome.detail}` : ''}`);
    }
  }),
);
for (const name of unknown)
  console.log(`  ✗ ${name}: listed in ${path.relative(ROOT, EXPECTED_FILE)} but the suite has no such client scenario`);

const count = (status: Outcome['status']): number => outcomes.filter((outcome) => outcome.status === status).length;
const report = {
  passed: count('passed'),
  failed: count('failed') + count('unexpected-pass') + unknown.length,
  expectedFailures: count('expected-failure'),
  resultsDir,
  scenarios: outcomes.sort((a, b) => a.scenario.localeCompare(b.scenario)),
};
console.log(
  `conformance: ${report.passed} passed, ${report.failed} failed, ${report.expectedFailures} expected failures (logs in ${resultsDir})`,
);
if (reportFile) fs.writeFileSync(reportFile, JSON.stringify(report, null, 2));
process.exit(report.failed > 0 ? 1 : 0);
