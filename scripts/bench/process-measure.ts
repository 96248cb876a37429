/**
 * Whole-process measurements: wall time, CPU time (user + system, the process and the children it waited for) and
 * peak RSS of one command, as the kernel accounts them. Node cannot read another process's resource usage, so a
 * few lines of Python do the spawning and `os.wait4` (µs resolution; `/usr/bin/time` rounds to 10 ms, too coarse
 * for a 30 ms `node -e 0`). Python's own start is outside every figure: the clock starts at the spawn.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { median } from './harness.ts';

const MEASURE_PY = String.raw`
import json, os, signal, subprocess, sys, tempfile, time
spec = json.loads(sys.stdin.read())
err = tempfile.TemporaryFile()
start = time.perf_counter()
child = subprocess.Popen(spec['argv'], cwd=spec.get('cwd'), env=spec.get('env'), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
if spec.get('input') is not None:
    child.stdin.write(spec['input'].encode())
    child.stdin.flush()
if not spec.get('keepStdinOpen'):
    child.stdin.close()
first = None
out = b''
stop = spec.get('stopAt')
fd = child.stdout.fileno()
while True:
    chunk = os.read(fd, 65536)
    if not chunk:
        break
    if first is None:
        first = time.perf_counter() - start
    out += chunk
    if stop is not None and stop.encode() in out:
        stopped = time.perf_counter() - start
        os.kill(child.pid, signal.SIGKILL)
        break
_, status, usage = os.wait4(child.pid, 0)
wall = time.perf_counter() - start
child.returncode = 0
err.seek(0)
print(json.dumps({
    'wallMs': wall * 1000,
    'firstOutputMs': None if first is None else first * 1000,
    'cpuMs': (usage.ru_utime + usage.ru_stime) * 1000,
    'maxRssMB': usage.ru_maxrss / 1024,
    'status': os.waitstatus_to_exitcode(status),
    'stdout': out.decode('utf-8', 'replace'),
    'stderr': err.read().decode('utf-8', 'replace'),
}))
`;

export interface ProcessSpec {
  argv: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to stdin, which is then closed unless `keepStdinOpen`. */
  input?: string;
  keepStdinOpen?: boolean;
  /** Kill (SIGKILL) the process as soon as its stdout contains this; the CPU counted is up to then. */
  stopAt?: string;
}

export interface ProcessMeasurement {
  wallMs: number;
  /** From the spawn to the first byte on stdout (a streamed token, a response). */
  firstOutputMs: number | null;
  /** User + system CPU of the process and of the children it waited for. */
  cpuMs: number;
  /** Peak resident memory of the process (or of the largest child it waited for). */
  maxRssMB: number;
  status: number;
  stdout: string;
  stderr: string;
}

export function measureProcess(spec: ProcessSpec): Promise<ProcessMeasurement> {
  return new Promise((resolve, reject) => {
    const python = spawn('python3', ['-c', MEASURE_PY], { stdio: ['pipe', 'pipe', 'inherit'] });
    let output = '';
    python.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    python.once('error', (error) =>
      reject(new Error(`The process benchmarks need python3 to measure CPU and memory: ${error.message}`)),
    );
    python.once('close', (code) => {
      if (code !== 0) return reject(new Error(`measuring ${spec.argv.join(' ')} failed (python exit ${code})`));
      resolve(JSON.parse(output) as ProcessMeasurement);
    });
    python.stdin.end(JSON.stringify({ ...spec, env: spec.env ?? process.env }));
  });
}

/** Measures and checks the exit status (and that the process printed something when asked to stop on output). */
export async function measureOk(spec: ProcessSpec, label: string): Promise<ProcessMeasurement> {
  const result = await measureProcess(spec);
  const stoppedOnOutput = spec.stopAt !== undefined && result.stdout.includes(spec.stopAt);
  if (!stoppedOnOutput && result.status !== 0)
    throw new Error(`${label} ended with ${result.status}:\n${result.stderr}\n${result.stdout}`);
  if (spec.stopAt !== undefined && !stoppedOnOutput)
    throw new Error(`${label} never printed ${JSON.stringify(spec.stopAt)}:\n${result.stderr}\n${result.stdout}`);
  return result;
}

export interface Pairs {
  subject: ProcessMeasurement[];
  floor: ProcessMeasurement[];
}

/** `count` pairs of subject and floor, interleaved, which one goes first alternating, so noise hits both alike. */
export async function measurePairs(
  count: number,
  subject: () => Promise<ProcessMeasurement>,
  floor: () => Promise<ProcessMeasurement>,
): Promise<Pairs> {
  const [subjects = [], floors = []] = await measureRounds(count, [subject, floor]);
  return { subject: subjects, floor: floors };
}

/**
 * `count` rounds of every step, the step that goes first rotating from round to round, so noise hits all alike;
 * the measurements of each step, in the order of `steps`.
 */
export async function measureRounds(
  count: number,
  steps: readonly (() => Promise<ProcessMeasurement>)[],
): Promise<ProcessMeasurement[][]> {
  const measured = steps.map((): ProcessMeasurement[] => []);
  for (let round = 0; round < count; round++) {
    for (let offset = 0; offset < steps.length; offset++) {
      const index = (round + offset) % steps.length;
      measured[index]?.push(await (steps[index] as () => Promise<ProcessMeasurement>)());
    }
  }
  return measured;
}

export const medianOf = (
  samples: readonly ProcessMeasurement[],
  pick: (sample: ProcessMeasurement) => number | null,
): number => median(samples.map((sample) => pick(sample) ?? Number.NaN));

/** A bare `node -e 0` of the same Node binary: the floor of any Node process's start. */
export const bareNode = (): Promise<ProcessMeasurement> =>
  measureOk({ argv: [process.execPath, '-e', '0'] }, 'node -e 0');

/** The live child processes of this process (a scan of `/proc/PID/stat` for their parent). */
export function childPids(parent = process.pid): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields && Number(fields[1]) === parent) children.push(Number(entry));
  }
  return children;
}

/**
 * A process and every process under it, as they are now: a contained server's node runs two levels below its
 * bubblewrap (docs/user/sandbox.md), and its CPU is the server's.
 */
export function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields) parents.set(Number(entry), Number(fields[1]));
  }
  const tree = [root];
  for (let index = 0; index < tree.length; index++)
    for (const [pid, parent] of parents) if (parent === tree[index]) tree.push(pid);
  return tree;
}

/** The fields of `/proc/PID/stat` after the command name (so [0] is the state, [1] the parent's id); null once gone. */
function statFields(pid: number): string[] | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * The CPU a live process has used so far: the time its threads ran, in nanoseconds from `/proc/PID/task/TID/schedstat`
 * (a thread that already ended is not counted); else user + system time from `/proc/PID/stat`, in 10 ms clock ticks,
 * which is too coarse to add up the short starts of many processes.
 */
export function liveCpuMs(pid: number): number {
  try {
    let ns = 0;
    for (const task of fs.readdirSync(`/proc/${pid}/task`))
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    if (Number.isFinite(ns) && ns > 0) return ns / 1e6;
  } catch {
    // No schedstat (a kernel without it) or the process is gone: the clock ticks below, or NaN.
  }
  const fields = statFields(pid);
  if (!fields) return Number.NaN;
  // utime and stime are fields 14 and 15 of stat, 11 and 12 here; USER_HZ is 100 on Linux.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Puts this process on CPU 0 and every process under it (every thread: `taskset -a`) on CPU 1, a desktop's placement
 * of a client and its server, each on a core of its own; left to the kernel, a round's ratio swings 0.73–1.47× with
 * where the processes land (docs/dev/benchmarks.md, "mcp-call-overhead"). Returns whether they were placed so, and a
 * function that gives this process every CPU back. With one CPU, or without `taskset`, nothing is moved.
 */
export function placeApart(): { apart: boolean; restore(): void } {
  const cpus = os.availableParallelism();
  const taskset = (cpu: string, pid: number): boolean =>
    spawnSync('taskset', ['-a', '-p', '-c', cpu, String(pid)], { stdio: 'ignore' }).status === 0;
  if (cpus < 2 || !taskset('0', process.pid)) return { apart: false, restore: () => undefined };
  for (const pid of processTree(process.pid).slice(1)) taskset('1', pid);
  return { apart: true, restore: () => void taskset(`0-${cpus - 1}`, process.pid) };
}
