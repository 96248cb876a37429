import { spawn, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs a package's bin script on the Node that runs this script (Node 22 from the `node` devDependency). */
export function binPath(relative: string): string {
  return path.join(ROOT, 'node_modules', relative);
}

export interface RunResult {
  code: number;
}

/** Runs a command with inherited output and resolves with its exit code (signals count as failure). */
export function run(file: string, args: readonly string[], options: SpawnOptions = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: ROOT, stdio: 'inherit', ...options });
    child.on('error', (error) => {
      console.error(`Could not run ${file}: ${error.message}`);
      resolve({ code: 127 });
    });
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1) }));
  });
}

/** Runs a Node script of a package on our own Node. */
export function runNode(script: string, args: readonly string[], options: SpawnOptions = {}): Promise<RunResult> {
  return run(process.execPath, [script, ...args], options);
}

const BUILD_INPUTS = ['src', 'electron.vite.config.ts', 'package.json', 'package-lock.json', 'tsconfig.base.json'];
const BUILD_OUTPUTS = [
  'out/main/index.js',
  'out/main/browser.js',
  'out/main/cli.js',
  'out/main/audit-worker.js',
  'out/preload/index.cjs',
  'out/renderer/index.html',
];

/** Tests sit next to the code but are not part of the build. */
const isTestFile = (file: string): boolean => /\.test(-d)?\.tsx?$/.test(file);

function newestMtime(target: string): number {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat || isTestFile(target)) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** True when an output is missing or older than any source, config or lockfile. */
export function buildIsStale(): boolean {
  const outputs = BUILD_OUTPUTS.map(
    (file) => fs.statSync(path.join(ROOT, file), { throwIfNoEntry: false })?.mtimeMs ?? 0,
  );
  const oldestOutput = Math.min(...outputs);
  if (oldestOutput === 0) return true;
  return BUILD_INPUTS.some((input) => newestMtime(path.join(ROOT, input)) > oldestOutput);
}

/** `npm run build`: electron-vite, then the one-file bundles of the bundled MCP servers (bundle-servers.ts). */
export async function build(options: SpawnOptions = {}): Promise<RunResult> {
  const vite = await runNode(binPath('electron-vite/bin/electron-vite.js'), ['build'], options);
  if (vite.code !== 0) return vite;
  return runNode(path.join(ROOT, 'scripts', 'lib', 'bundle-servers.ts'), [], options);
}

/** Builds when something changed since the last build; exits the process when the build fails. */
export async function ensureBuilt(
  log: (line: string) => void = console.error,
  verbose = process.env.WORKBENCH_BUILD_OUTPUT === '1',
): Promise<void> {
  if (!buildIsStale()) return;
  if (verbose) {
    log('Building AI Workbench…');
    // The build talks on stderr here, so that stdout stays what the caller prints (a ready line, JSON).
    const { code } = await build({ stdio: ['ignore', 2, 2] });
    if (code !== 0) {
      console.error('The build failed; see the messages above.');
      process.exit(code);
    }
    return;
  }
  // Quiet unless asked (WORKBENCH_BUILD_OUTPUT=1): the bundler's ~80 lines go to a file, shown only when it fails.
  const file = path.join(ROOT, '.cache', 'build.log');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  log(`Building AI Workbench… (its output: ${path.relative(process.cwd(), file) || file})`);
  const out = fs.openSync(file, 'w');
  const { code } = await build({ stdio: ['ignore', out, out] }).finally(() => fs.closeSync(out));
  if (code !== 0) {
    process.stderr.write(fs.readFileSync(file, 'utf8'));
    console.error('The build failed; see the messages above.');
    process.exit(code);
  }
}

/**
 * The Electron binary, when one is installed. Never `require('electron')` to find out: on a machine
 * without the binary that starts a download, which cannot succeed here.
 */
export function electronBinary(env: NodeJS.ProcessEnv = process.env): string | null {
  const packageDir = path.join(ROOT, 'node_modules', 'electron');
  const pathFile = path.join(packageDir, 'path.txt');
  const relative = fs.existsSync(pathFile) ? fs.readFileSync(pathFile, 'utf8').trim() : '';
  const distDir = env.ELECTRON_OVERRIDE_DIST_PATH ?? path.join(packageDir, 'dist');
  if (!relative && !env.ELECTRON_OVERRIDE_DIST_PATH) return null;
  const binary = path.join(distDir, relative || 'electron');
  return fs.existsSync(binary) ? binary : null;
}
