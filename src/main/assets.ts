import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the files a host loads at run time live: the audit worker, the renderer, the preload, the icon.
 * The ONE place that knows the build's layout (electron.vite.config.ts), for every host: the Electron
 * app, browser mode, the CLI, and tests and benchmarks running from source.
 *
 * Why one place: the bundler puts this module's code into an entry (`out/main/cli.js`) or into a shared
 * chunk (`out/main/chunks/session-….js`) as it sees fit, so `new URL('./audit-worker.js', import.meta.url)`
 * written in a host's file would point into `out/main/chunks/` for the CLI, and `audit verify` of a log of
 * 20,000 rows or more would fail with "Cannot find module". Here the layout is recognised
 * from where this code actually sits, whichever file that is. See docs/dev/architecture.md.
 */
export interface BuiltAssets {
  /** `built`: running from out/ (or the packaged app); `source`: TypeScript under tsx or the test runner. */
  readonly mode: 'built' | 'source';
  /** The worker thread that checks a slice of the audit chain (`.ts` from source, run through tsx). */
  readonly auditWorker: string;
  /** The worker thread that reads, encodes and sends audit rows to the sinks (audit/shipping/ship-worker.ts). */
  readonly auditShipWorker: string;
  /** The built renderer (index.html and its assets). From source, the last build's. */
  readonly rendererDir: string;
  /** The sandboxed preload script (CommonJS). From source, the last build's. */
  readonly preload: string;
  /** The app icon outside a packaged app. */
  readonly icon: string;
}

/** The build's layout under out/: `main/` (entries and `chunks/`), `preload/`, `renderer/`. */
const MAIN = 'main';
const CHUNKS = 'chunks';
const OUT = 'out';
const SOURCE_MAIN = ['src', 'main'] as const;

/**
 * The assets for the code at `moduleFile` (this module's own file unless a test passes another).
 * Throws, naming the file, when that file sits in neither layout: better at start than at the first large verify.
 */
export function builtAssets(moduleFile: string = fileURLToPath(import.meta.url)): BuiltAssets {
  const here = path.dirname(moduleFile);
  const mainDir = builtMainDir(here);
  if (mainDir !== null) {
    const outDir = path.dirname(mainDir);
    return {
      mode: 'built',
      auditWorker: path.join(mainDir, 'audit-worker.js'),
      auditShipWorker: path.join(mainDir, 'audit-ship-worker.js'),
      rendererDir: path.join(outDir, 'renderer'),
      preload: path.join(outDir, 'preload', 'index.cjs'),
      icon: path.join(path.dirname(outDir), 'resources', 'icon.png'),
    };
  }
  if (path.basename(here) === SOURCE_MAIN[1] && path.basename(path.dirname(here)) === SOURCE_MAIN[0]) {
    const root = path.dirname(path.dirname(here));
    return {
      mode: 'source',
      auditWorker: path.join(here, 'audit', 'audit-worker.ts'),
      auditShipWorker: path.join(here, 'audit', 'shipping', 'ship-worker.ts'),
      rendererDir: path.join(root, OUT, 'renderer'),
      preload: path.join(root, OUT, 'preload', 'index.cjs'),
      icon: path.join(root, 'resources', 'icon.png'),
    };
  }
  throw new Error(
    `AI Workbench cannot find its files: ${moduleFile} is neither under ${OUT}/${MAIN}/ (a build) nor under src/main/ (the sources).`,
  );
}

/** out/main when `dir` is out/main or out/main/chunks; null otherwise. */
function builtMainDir(dir: string): string | null {
  const candidate = path.basename(dir) === CHUNKS ? path.dirname(dir) : dir;
  return path.basename(candidate) === MAIN && path.basename(path.dirname(candidate)) === OUT ? candidate : null;
}
