import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * What a contained stdio server may touch (docs/user/sandbox.md): the folders and files it may read, those it may
 * write, the network destinations (`host:port`) it may reach and the names of the app's environment variables it
 * receives besides those its configuration sets. Stored in the server's own entry of `mcpServers` (`sandbox`), so it
 * follows the server through a rename.
 */
export const SandboxSettingsSchema = z.strictObject({
  read: z.array(z.string().min(1)).optional(),
  write: z.array(z.string().min(1)).optional(),
  hosts: z.array(z.string().min(1)).optional(),
  env: z.array(z.string().min(1)).optional(),
  /**
   * The person let this server run unconfined, outside any sandbox, marked "Not contained" (docs/user/sandbox.md#unconfined):
   * for the name and the identity (what it runs) it had then. A renamed or re-pointed server does not inherit it.
   */
  unconfined: z
    .strictObject({ name: z.string(), identity: z.string(), description: z.string(), since: z.string() })
    .optional(),
  /** An older, unbound form of `unconfined`: no longer applied (docs/user/sandbox.md#unconfined says why). */
  allowUnconfined: z.boolean().optional(),
});
export type SandboxSettings = z.infer<typeof SandboxSettingsSchema>;

/** The profile in force for one start: every path absolute, every host `host:port`. */
export interface SandboxProfile {
  read: string[];
  write: string[];
  hosts: string[];
  env: string[];
}

/** A server as the sandbox sees it at start. */
export interface ContainedServer {
  name: string;
  command?: string | undefined;
  package?: string | undefined;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd?: string | undefined;
  /** The folders it is told about (MCP roots). */
  roots: readonly string[];
  sandbox: SandboxSettings;
}

/** What the sandbox reads of a stdio server's launch configuration, and nothing more. */
export function containedServer(launch: ContainedServer): ContainedServer {
  return {
    name: launch.name,
    command: launch.command,
    package: launch.package,
    args: launch.args,
    env: launch.env,
    cwd: launch.cwd,
    roots: launch.roots,
    sandbox: launch.sandbox,
  };
}

export interface ProfileContext {
  /** The Node that runs bundled servers (process.execPath, or the app binary in Electron). */
  runtimeCommand: string;
  /** The app's own installation: where node_modules (and out/servers) are. */
  appRoot: string;
  dataDir: string;
}

/**
 * The system's libraries and the few files every program reads: no home folder, no /etc/shadow, no /proc of the host
 * (the sandbox has a /proc of its own).
 */
export const SYSTEM_READ = [
  '/usr',
  '/lib',
  '/lib64',
  '/lib32',
  '/bin',
  '/sbin',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/localtime',
  '/etc/nsswitch.conf',
];

/** The scratch folder a server may always write: `<data dir>/server-scratch/<name>`. */
export function scratchDir(dataDir: string, serverName: string): string {
  const slug =
    serverName
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^\.+/, '_')
      .slice(0, 80) || 'server';
  return path.join(dataDir, 'server-scratch', slug);
}

/** The Node installation that runs the servers: `<prefix>` of `<prefix>/bin/node`, or the folder of the app binary. */
export function runtimeInstall(command: string): string[] {
  const found = new Set<string>();
  for (const file of [command, safeRealpath(command)]) {
    const folder = path.dirname(file);
    found.add(path.basename(folder) === 'bin' ? path.dirname(folder) : folder);
  }
  return [...found];
}

/** The profile a server ships with: what its package needs beyond the default (docs/user/sandbox.md#bundled-servers). */
function shippedProfile(server: ContainedServer, appRoot: string): Partial<SandboxProfile> {
  if (server.package === '@modelcontextprotocol/server-filesystem') {
    // Files: its root folders, read and write.
    const roots = [...server.roots, ...server.args.filter((arg) => path.isAbsolute(arg))];
    return { write: roots };
  }
  if (server.package === '@modelcontextprotocol/server-memory') {
    const file = server.env.MEMORY_FILE_PATH;
    const folder =
      file && path.isAbsolute(file)
        ? path.dirname(file)
        : path.join(appRoot, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist');
    return { write: [folder] };
  }
  // Everything, and every other bundled server: nothing more than the default.
  return {};
}

/** What the server may touch at this start: the default, its shipped profile and its own settings. */
export function effectiveProfile(server: ContainedServer, context: ProfileContext): SandboxProfile {
  const own = server.sandbox;
  const install: string[] = [];
  if (server.package)
    install.push(path.join(context.appRoot, 'node_modules'), path.join(context.appRoot, 'out', 'servers'));
  else {
    if (server.command && path.isAbsolute(server.command)) install.push(...runtimeInstall(server.command));
    // A program named by its path (`node /opt/my-server/index.js`): the package it belongs to.
    for (const arg of server.args) if (path.isAbsolute(arg) && isFile(arg)) install.push(packageRoot(arg));
  }
  const shipped = shippedProfile(server, context.appRoot);
  const scratch = scratchDir(context.dataDir, server.name);
  const write = unique([scratch, ...(shipped.write ?? []), ...(own.write ?? [])].map((entry) => path.resolve(entry)));
  const read = unique(
    [
      ...SYSTEM_READ,
      ...runtimeInstall(context.runtimeCommand),
      ...install,
      ...(server.cwd ? [server.cwd] : []),
      ...(shipped.read ?? []),
      ...(own.read ?? []),
    ].map((entry) => path.resolve(entry)),
  );
  return { read, write, hosts: unique(own.hosts ?? []), env: unique([...Object.keys(server.env), ...(own.env ?? [])]) };
}

/** Whether `file` is `folder` or inside it. */
export function isWithin(file: string, folder: string): boolean {
  const relative = path.relative(folder, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** `host:port` as the profile stores it; throws on anything else. */
export function normaliseHost(entry: string): string {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(entry.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port < 1 || port > 65535)
    throw new Error(`"${entry}" is not a network destination: write it as host:port (example.com:443).`);
  return `${(match[1] as string).toLowerCase()}:${port}`;
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The installation a program file belongs to: the outermost node_modules folder it is in (its dependencies are hoisted
 * there), else the nearest folder above it that holds a package.json, else its own folder.
 */
function packageRoot(file: string): string {
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = file.indexOf(marker);
  if (at >= 0) return file.slice(0, at + marker.length - 1);
  for (let folder = path.dirname(file); folder !== path.dirname(folder); folder = path.dirname(folder)) {
    if (fs.existsSync(path.join(folder, 'package.json'))) return folder;
  }
  return path.dirname(file);
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function safeRealpath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
