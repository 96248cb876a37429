import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bwrapArgs, type SandboxAvailability } from './bwrap';
import { scratchDir, type ContainedServer, type ProfileContext, type SandboxProfile } from './profile';
import { openNetworkRelays } from './relay';
import { BLOCK_MARKER, REPORTER_ENV, REPORTER_SOURCE } from './reporter-source';

/** What a contained server was refused, as its reporter said (a hint: docs/user/sandbox.md#what-a-block-report-is). */
export interface SandboxBlock {
  kind: 'read' | 'write' | 'connect' | 'env';
  /** The absolute path, the `host:port`, or the variable's name. */
  target: string;
}

/** How one start of a server is spawned: the command as it runs, and what to undo when it ends. */
export interface SpawnPlan {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string | undefined;
  /** The profile in force, or none for a server that runs unconfined. */
  profile: SandboxProfile | undefined;
  /** Reads a block report out of a stderr line; undefined for any other line. */
  parseBlock(line: string): SandboxBlock | undefined;
  /** Block reports that come through the report channel (from the server and every process it starts). */
  onBlock(listener: (block: SandboxBlock) => void): void;
  /** Ends what the plan opened (the network relays). */
  close(): void;
}

export interface ContainOptions extends ProfileContext {
  availability: SandboxAvailability;
  /** The app's own environment: the source of the variables a profile names, and of those it withholds. */
  hostEnv: NodeJS.ProcessEnv;
  /** The profile in force (under the organisation's caps). */
  profile: SandboxProfile;
}

/** The spawn of a server that runs as it is (no sandbox). */
export function unconfinedPlan(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string | undefined,
): SpawnPlan {
  return {
    command,
    args,
    env,
    cwd,
    profile: undefined,
    parseBlock: () => undefined,
    onBlock: () => undefined,
    close: () => undefined,
  };
}

/**
 * Wraps one start of a stdio server in bubblewrap with the server's profile (docs/user/sandbox.md). `command` and
 * `args` are what the server would run unconfined; its environment is only what its configuration sets, what its
 * profile names from the app's environment, PATH and the locale, with HOME at its scratch folder.
 */
export async function containedPlan(
  server: ContainedServer,
  spawn: { command: string; args: string[]; runtimeEnv: Readonly<Record<string, string>> },
  options: ContainOptions,
): Promise<SpawnPlan> {
  if (!options.availability.available) throw new Error(options.availability.reason);
  const profile = options.profile;
  const scratch = scratchDir(options.dataDir, server.name);
  fs.mkdirSync(path.join(scratch, 'tmp'), { recursive: true });
  const reporter = reporterFile(options.dataDir);
  const listeners = new Set<(block: SandboxBlock) => void>();
  const relays = await openNetworkRelays(profile.hosts, (line) => {
    const block = parseBlockLine(line);
    if (block) for (const listener of listeners) listener(block);
  });
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'LANG', 'LC_ALL', 'TERM']) {
    const value = options.hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  for (const name of profile.env) {
    const value = options.hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, spawn.runtimeEnv, server.env);
  // A compile cache shared between servers would let one plant code in another's: contained servers go without.
  delete env.NODE_COMPILE_CACHE;
  env.HOME = scratch;
  env.TMPDIR = path.join(scratch, 'tmp');
  const salt = randomBytes(16).toString('hex');
  const withheld = Object.keys(options.hostEnv).filter((name) => env[name] === undefined);
  env[REPORTER_ENV] = JSON.stringify({
    read: profile.read,
    write: profile.write,
    relays: relays.sockets,
    channel: relays.channel,
    withheld: {
      salt,
      hashes: withheld.map((name) =>
        createHash('sha256')
          .update(salt + name)
          .digest('hex'),
      ),
    },
  });
  env.NODE_OPTIONS = [`--require=${reporter}`, server.env.NODE_OPTIONS ?? ''].join(' ').trim();
  const cwd = server.cwd ?? scratch;
  const args = bwrapArgs({
    profile,
    support: [reporter],
    supportWritable: [relays.folder],
    cwd,
    command: spawn.command,
    args: spawn.args,
  });
  return {
    command: options.availability.bwrap,
    args,
    env,
    cwd,
    profile,
    parseBlock: (line) => parseBlockLine(line),
    onBlock: (listener) => listeners.add(listener),
    close: () => relays.close(),
  };
}

export function parseBlockLine(line: string): SandboxBlock | undefined {
  if (!line.startsWith(BLOCK_MARKER)) return undefined;
  try {
    const parsed = JSON.parse(line.slice(BLOCK_MARKER.length)) as { kind?: unknown; target?: unknown };
    const kinds = ['read', 'write', 'connect', 'env'] as const;
    const kind = kinds.find((candidate) => candidate === parsed.kind);
    if (!kind || typeof parsed.target !== 'string' || parsed.target.length === 0 || parsed.target.length > 4096)
      return undefined;
    return { kind, target: parsed.target.replace(/[\p{Cc}]/gu, ' ') };
  } catch {
    return undefined;
  }
}

/** The reporter, written once per content into the data folder (read-only inside every sandbox). */
function reporterFile(dataDir: string): string {
  const hash = createHash('sha256').update(REPORTER_SOURCE).digest('hex').slice(0, 12);
  const file = path.join(dataDir, 'server-support', `sandbox-reporter-${hash}.cjs`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, REPORTER_SOURCE);
    fs.renameSync(temporary, file);
  }
  return file;
}

/** A block in words: "Files tried to read /home/me/.ssh/id_rsa — blocked". */
export function describeBlock(serverName: string, block: SandboxBlock): string {
  const what = { read: 'read', write: 'write', connect: 'connect to', env: 'read the environment variable' }[
    block.kind
  ];
  return `${serverName} tried to ${what} ${block.target} — blocked`;
}
