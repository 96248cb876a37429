/**
 * `npm test`: typecheck, lint, build, unit + integration tests (vitest), e2e tests (Playwright in
 * Chromium against browser mode). Every stage runs even when an earlier one failed, and the run
 * ends with one plain line `total: N passed, N failed, N skipped`; the exit code is non-zero on any failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import { binPath, build, ROOT, runNode } from './lib/project.ts';

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
  /** Failures listed, with their reasons, as expected (the conformance suite's): neither passed nor skipped. */
  expectedFailures?: number;
}

interface StageResult extends Tally {
  name: string;
  note?: string;
}

const RESULTS_DIR = path.join(ROOT, '.cache', 'test-results');
const results: StageResult[] = [];

/** A stage without its own test count counts as one check. */
async function check(name: string, steps: Array<() => Promise<{ code: number }>>): Promise<void> {
  console.log(`\n▶ ${name}`);
  for (const step of steps) {
    const { code } = await step();
    if (code !== 0) {
      results.push({ name, passed: 0, failed: 1, skipped: 0, note: `exit code ${code}` });
      return;
    }
  }
  results.push({ name, passed: 1, failed: 0, skipped: 0 });
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** A runner stage: counts come from its JSON report; a crash without a report is one failure. */
async function suite(
  name: string,
  reportFile: string,
  start: () => Promise<{ code: number }>,
  count: (report: unknown) => Tally | null,
): Promise<void> {
  console.log(`\n▶ ${name}`);
  fs.rmSync(reportFile, { force: true });
  const { code } = await start();
  const tally = count(readJson(reportFile));
  if (!tally) {
    results.push({ name, passed: 0, failed: 1, skipped: 0, note: `no report (exit code ${code})` });
    return;
  }
  // A runner that exits non-zero with no failed test (a crash after the tests, a typecheck error) is still a failure.
  if (code !== 0 && tally.failed === 0) tally.failed = 1;
  results.push({ name, ...tally, ...(code !== 0 ? { note: `exit code ${code}` } : {}) });
}

const countVitest = (report: unknown): Tally | null => {
  const r = report as {
    numPassedTests?: number;
    numFailedTests?: number;
    numPendingTests?: number;
    numTodoTests?: number;
  } | null;
  if (typeof r?.numPassedTests !== 'number') return null;
  return {
    passed: r.numPassedTests,
    failed: r.numFailedTests ?? 0,
    skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0),
  };
};

interface PlaywrightSuite {
  title: string;
  specs?: Array<{
    title: string;
    tests: Array<{ status?: string; annotations?: Array<{ type: string; description?: string }> }>;
  }>;
  suites?: PlaywrightSuite[];
}

/**
 * Every skipped or todo vitest test with its reason: a test that may be skipped says why in its title
 * (`titleUnless` in src/main/testing/skip-reason.ts), so a skip is never silent.
 */
function skippedVitestTests(report: unknown): string[] {
  const files =
    (report as { testResults?: Array<{ assertionResults?: Array<{ fullName?: string; status?: string }> }> } | null)
      ?.testResults ?? [];
  return files
    .flatMap((file) => file.assertionResults ?? [])
    .filter((test) => test.status === 'skipped' || test.status === 'pending' || test.status === 'todo')
    .map((test) => {
      const name = test.fullName ?? '(a test without a name)';
      const reason = /\(SKIPPED: ([^)]*)\)/.exec(name)?.[1];
      return reason
        ? `${name.replace(/ \(SKIPPED: [^)]*\)/, '')}: ${reason}`
        : `${name}: ${test.status === 'todo' ? 'a todo, not written yet' : 'no reason given'}`;
    });
}

/** Every skipped e2e test with the reason it gave, so a skip is never silent. */
function skippedWithReasons(report: unknown): string[] {
  const lines: string[] = [];
  const walk = (suite: PlaywrightSuite, path: string[]): void => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests) {
        if (test.status !== 'skipped') continue;
        const reason =
          test.annotations?.find((annotation) => annotation.type === 'skip')?.description ?? 'no reason given';
        lines.push(`${[...path, spec.title].join(' › ')}: ${reason}`);
      }
    }
    for (const child of suite.suites ?? []) walk(child, [...path, child.title]);
  };
  for (const suite of (report as { suites?: PlaywrightSuite[] } | null)?.suites ?? []) walk(suite, [suite.title]);
  return lines;
}

const countPlaywright = (report: unknown): Tally | null => {
  const stats = (
    report as { stats?: { expected?: number; unexpected?: number; flaky?: number; skipped?: number } } | null
  )?.stats;
  if (typeof stats?.expected !== 'number') return null;
  // A flaky test passed only on a retry: we count it as failed, since a flaky test hides a real problem.
  return { passed: stats.expected, failed: (stats.unexpected ?? 0) + (stats.flaky ?? 0), skipped: stats.skipped ?? 0 };
};

fs.mkdirSync(RESULTS_DIR, { recursive: true });
const tsc = binPath('typescript/bin/tsc');

await check(
  'typecheck',
  ['tsconfig.node.json', 'tsconfig.web.json', 'tsconfig.scripts.json', 'tsconfig.bench.json'].map(
    (project) => () => runNode(tsc, ['--noEmit', '-p', project]),
  ),
);
await check('lint', [
  () => runNode(binPath('eslint/bin/eslint.js'), ['--max-warnings', '0', '.']),
  () => runNode(binPath('prettier/bin/prettier.cjs'), ['--check', '.']),
]);
await check('build', [build]);
const unitReport = path.join(RESULTS_DIR, 'unit.json');
await suite(
  'unit and integration tests (vitest)',
  unitReport,
  () =>
    runNode(binPath('vitest/vitest.mjs'), [
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${unitReport}`,
    ]),
  countVitest,
);
await suite(
  'e2e tests (Playwright, Chromium against browser mode)',
  path.join(RESULTS_DIR, 'e2e.json'),
  () => runNode(binPath('@playwright/test/cli.js'), ['test']),
  countPlaywright,
);

// Every client scenario of the MCP conformance suite against the built CLI (docs/dev/testing.md, "The conformance
// suite"): one line per scenario; an expected failure (scripts/conformance/expected-failures.json) is listed with its
// reason and counted apart, and one that starts passing fails the stage.
const conformanceReport = path.join(RESULTS_DIR, 'conformance.json');
await suite(
  'MCP conformance suite, client scenarios (against the CLI)',
  conformanceReport,
  () => runNode(path.join(ROOT, 'scripts', 'conformance', 'run.ts'), ['--report', conformanceReport]),
  (report) => {
    const r = report as { passed?: number; failed?: number; expectedFailures?: number } | null;
    if (typeof r?.passed !== 'number') return null;
    return { passed: r.passed, failed: r.failed ?? 0, skipped: 0, expectedFailures: r.expectedFailures ?? 0 };
  },
);

const skipped = [
  ...skippedVitestTests(readJson(unitReport)),
  ...skippedWithReasons(readJson(path.join(RESULTS_DIR, 'e2e.json'))),
];
if (skipped.length > 0) {
  console.log('\nSkipped (not counted as passed)');
  for (const line of skipped) console.log(`  - ${line}`);
}

const total = results.reduce<Tally>(
  (sum, r) => ({
    passed: sum.passed + r.passed,
    failed: sum.failed + r.failed,
    skipped: sum.skipped + r.skipped,
    expectedFailures: (sum.expectedFailures ?? 0) + (r.expectedFailures ?? 0),
  }),
  { passed: 0, failed: 0, skipped: 0, expectedFailures: 0 },
);
const expectedWords = (count: number | undefined): string =>
  count ? `, ${count} expected failure${count === 1 ? '' : 's'}` : '';
console.log('\nSummary');
for (const r of results) {
  console.log(
    `  ${r.failed ? '✗' : '✓'} ${r.name}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped${expectedWords(r.expectedFailures)}${r.note ? ` (${r.note})` : ''}`,
  );
}
if (total.passed === 0) {
  total.failed++;
  console.log('  ✗ no test ran');
}
// The last line keeps the plain form CI reads (`N passed, N failed, N skipped`); expected failures go on the line before.
if (total.expectedFailures) console.log(`expected failures, not counted above: ${total.expectedFailures}`);
console.log(`total: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 ? 1 : 0);
