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

/** A value measured against one goal. */
export type Measurement = Omit<BenchResult, 'ok' | 'name'>;

export interface Benchmark {
  name: string;
  description: string;
  /** One measurement, printed under the benchmark's name; or several, each with its own name and goal (one line each). */
  run(): Promise<Measurement | (Measurement & { name: string })[]>;
}

export function judge(name: string, result: Measurement): BenchResult {
  const ok = result.goal.op === '<=' ? result.value <= result.goal.value : result.value >= result.goal.value;
  return { ...result, name, ok };
}

/** Every measurement of one run, named. */
export function measurementsOf(bench: Benchmark, outcome: Awaited<ReturnType<Benchmark['run']>>): (Measurement & { name: string })[] {
  return Array.isArray(outcome) ? outcome : [{ ...outcome, name: bench.name }];
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
