import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BundledServerPackage } from '../../shared/mcp';

/**
 * The Node.js that runs the MCP servers shipped with the app. In plain Node (browser mode, CLI,
 * tests) it is the running Node itself. In Electron `process.execPath` is the app binary, which
 * behaves as plain Node when started with ELECTRON_RUN_AS_NODE=1; so no system Node or `npx` is
 * ever needed, and a bundled server runs on the same Node version the app was tested with.
 */
export interface NodeRuntime {
  readonly command: string;
  /** Variables to add to a server's environment so that `command` behaves as Node. */
  readonly env: Readonly<Record<string, string>>;
  /** Names the runtime in logs and the UI. */
  readonly description: string;
  /**
   * Which V8 startup snapshots of the bundled servers this runtime can load (`snapshotKey`); none in Electron, whose
   * Node is not the one the build made them with.
   */
  readonly snapshotKey?: string;
}

export interface RuntimeProcess {
  execPath: string;
  versions: { node: string; electron?: string };
  arch?: string;
  platform?: string;
  config?: object;
}

/**
 * A startup snapshot loads only in the Node that made it (same version, build options and architecture): the key
 * names that Node, and is part of the snapshot's file name (docs/dev/benchmarks.md, mcp-start-cpu).
 */
export function snapshotKey(current: RuntimeProcess = process): string {
  const identity = JSON.stringify({
    versions: current.versions,
    arch: current.arch,
    platform: current.platform,
    config: current.config,
  });
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}

export function detectNodeRuntime(current: RuntimeProcess = process): NodeRuntime {
  if (current.versions.electron) {
    return {
      command: current.execPath,
      env: { ELECTRON_RUN_AS_NODE: '1' },
      description: `AI Workbench's Node.js ${current.versions.node} (Electron ${current.versions.electron})`,
    };
  }
  return {
    command: current.execPath,
    env: {},
    description: `Node.js ${current.versions.node}`,
    snapshotKey: snapshotKey(current),
  };
}

/** The same runtime with Node's on-disk compile cache (NODE_COMPILE_CACHE, Node ≥ 22.1) in `directory`. */
export function withCompileCache(runtime: NodeRuntime, directory: string): NodeRuntime {
  return { ...runtime, env: { ...runtime.env, NODE_COMPILE_CACHE: directory } };
}

const requireHere = createRequire(import.meta.url);

/** The one-file build of a bundled server (scripts/lib/bundle-servers.ts), in `out/servers/`: NAME-VERSION.mjs. */
export function bundledServerFileName(packageName: string, version: string): string {
  return `${packageName.split('/').at(-1) as string}-${version}.mjs`;
}

/** The startup snapshot of that build for the Node with `key` (scripts/lib/bundle-servers.ts): NAME-VERSION.KEY.blob. */
export function bundledServerSnapshotName(packageName: string, version: string, key: string): string {
  return `${packageName.split('/').at(-1) as string}-${version}.${key}.blob`;
}

/**
 * The arguments that start a bundled server in `runtime`, before the server's own: the startup snapshot of its
 * one-file bundle when the build made one for this runtime's Node (the server's modules are then loaded already: no
 * parsing, compiling or building of its schemas at each start); else the file `resolveBundledServerEntry` names.
 */
export function bundledServerStartArgs(
  packageName: BundledServerPackage,
  runtime: Pick<NodeRuntime, 'snapshotKey'>,
  resolve: (id: string) => string = requireHere.resolve,
): string[] {
  const program = locateBundledServer(packageName, resolve);
  if (program.bundle && runtime.snapshotKey) {
    const blob = path.join(
      path.dirname(program.entry),
      bundledServerSnapshotName(packageName, program.bundle.version, runtime.snapshotKey),
    );
    if (fs.existsSync(blob)) return ['--snapshot-blob', blob];
  }
  return [program.entry];
}

/**
 * The file a bundled server package runs: the build's one-file bundle of it (`out/servers/`, all its dependencies
 * in one file, so a start loads one module) when there is one of the installed version; else its package.json
 * `bin` entry, resolved in the app's own node_modules. Throws with the package's name when it is not installed.
 */
export function resolveBundledServerEntry(
  packageName: BundledServerPackage,
  resolve: (id: string) => string = requireHere.resolve,
): string {
  return locateBundledServer(packageName, resolve).entry;
}

function locateBundledServer(
  packageName: BundledServerPackage,
  resolve: (id: string) => string,
): { entry: string; bundle?: { version: string } } {
  let manifestPath: string;
  try {
    manifestPath = resolve(`${packageName}/package.json`);
  } catch (error) {
    throw new Error(`The bundled MCP server ${packageName} is not installed with the app.`, { cause: error });
  }
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as {
    version?: string;
    bin?: string | Record<string, string>;
    main?: string;
  };
  const modules = manifestPath.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  if (modules >= 0 && manifest.version) {
    const bundle = path.join(
      manifestPath.slice(0, modules),
      'out',
      'servers',
      bundledServerFileName(packageName, manifest.version),
    );
    if (fs.existsSync(bundle)) return { entry: bundle, bundle: { version: manifest.version } };
  }
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  const entry = bin ?? manifest.main;
  if (!entry)
    throw new Error(`The bundled MCP server ${packageName} names no program to run (no "bin" in its package.json).`);
  return { entry: path.join(path.dirname(manifestPath), entry) };
}
