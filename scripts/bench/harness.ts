import os from 'node:os';

/** One benchmark's outcome: a value compared against a goal, usually a ratio to a baseline measured in the same run. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  goal: { op: '<=' | '>='; value: number };
  ok: boolean;
  /** Raw measurements behind the value, for --json readers. */
  details?: Record<string, number>;
}

/** One measured value; a benchmark that reports several values names each line itself. */
export type BenchMeasurement = Omit<BenchResult, 'ok' | 'name'>;
export type NamedBenchMeasurement = BenchMeasurement & { name: string };

export interface Benchmark {
  name: string;
  description: string;
  /** One value (printed under the benchmark's name), or several lines with their own names and goals. */
  run(): Promise<BenchMeasurement | NamedBenchMeasurement[]>;
}

/** The lines a benchmark's run reports, each judged against its goal. */
export function judgeAll(bench: Benchmark, outcome: BenchMeasurement | NamedBenchMeasurement[]): BenchResult[] {
  if (!Array.isArray(outcome)) return [judge(bench.name, outcome)];
  return outcome.map(({ name, ...measurement }) => judge(name, measurement));
}

export function judge(name: string, result: BenchMeasurement): BenchResult {
  const ok = result.goal.op === '<=' ? result.value <= result.goal.value : result.value >= result.goal.value;
  return { ...result, name, ok };
}

export function formatLine(result: BenchResult): string {
  const value = Number.isInteger(result.value) ? String(result.value) : result.value.toFixed(3);
  return `bench ${result.name}: ${value} ${result.unit} (goal ${result.goal.op} ${result.goal.value}) ${result.ok ? 'ok' : 'FAIL'}`;
}

export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The 1, 5 and 15 minute load averages, for the details: a figure measured at load 9 is not one measured at 0.2. */
export function loadDetails(): { load1: number; load5: number; load15: number } {
  const [load1 = 0, load5 = 0, load15 = 0] = os.loadavg();
  return { load1, load5, load15 };
}
