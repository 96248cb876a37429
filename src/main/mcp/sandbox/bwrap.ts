import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxProfile } from './profile';

/** Whether this machine can contain servers, and if not, why (in words for the server's page). */
export type SandboxAvailability = { available: true; bwrap: string } | { available: false; reason: string };

let probed: SandboxAvailability | undefined;

/**
 * Linux: bubblewrap, found on PATH (or WORKBENCH_BWRAP), and able to make the namespaces it needs here — checked once
 * per process by running `true` inside a sandbox like a server's. Other platforms: none in this version
 * (docs/user/sandbox.md#platforms).
 */
export function sandboxAvailability(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): SandboxAvailability {
  if (probed) return probed;
  if (platform !== 'linux') {
    probed = {
      available: false,
      reason: `AI Workbench has no sandbox for servers on ${platform === 'darwin' ? 'macOS' : platform === 'win32' ? 'Windows' : platform} yet.`,
    };
    return probed;
  }
  const bwrap = env.WORKBENCH_BWRAP?.trim() || findOnPath('bwrap', env.PATH ?? '/usr/bin:/bin');
  if (!bwrap) {
    probed = {
      available: false,
      reason: 'bubblewrap (bwrap) is not installed: install the "bubblewrap" package to contain servers.',
    };
    return probed;
  }
  try {
    execFileSync(
      bwrap,
      ['--die-with-parent', '--unshare-all', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', 'true'],
      { stdio: 'pipe', timeout: 10_000 },
    );
    probed = { available: true, bwrap };
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '').trim();
    probed = {
      available: false,
      reason: `bubblewrap cannot make a sandbox on this machine: ${stderr || (error as Error).message}`,
    };
  }
  return probed;
}

/** Forgets the probe (tests that change WORKBENCH_BWRAP). */
export function resetSandboxProbe(): void {
  probed = undefined;
}

function findOnPath(program: string, searchPath: string): string | undefined {
  for (const folder of searchPath.split(path.delimiter)) {
    const candidate = path.join(folder, program);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface BwrapPlan {
  profile: SandboxProfile;
  /** Files the sandbox needs besides the profile (the reporter, the relay sockets' folder), read-only. */
  support: string[];
  /** Folders the sandbox binds writable besides the profile (the relay sockets' folder). */
  supportWritable?: string[];
  cwd: string;
  command: string;
  args: readonly string[];
}

/**
 * bubblewrap's arguments for one server: new namespaces of every kind (no network: its loopback is its own), no
 * capabilities, the session detached from any terminal, dead with its parent; an empty read-only root with a /proc
 * and /dev of its own (no /tmp: TMPDIR is in the scratch folder); the profile's read paths bound read-only and its write paths writable, each only if it
 * exists (bubblewrap refuses a missing source), deeper binds after shallower ones so a writable folder inside a
 * read-only one stays writable. A symbolic link in a read path (/lib → usr/lib) is recreated as the same link.
 */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    '--cap-drop',
    'ALL',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
  ];
  const binds = new Map<string, 'ro' | 'rw'>();
  for (const entry of [...plan.profile.read, ...plan.support]) binds.set(entry, binds.get(entry) ?? 'ro');
  for (const entry of [...plan.profile.write, ...(plan.supportWritable ?? [])]) binds.set(entry, 'rw');
  const links: string[] = [];
  const mounts: [string, 'ro' | 'rw'][] = [];
  for (const [entry, mode] of binds) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(entry);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink() && path.dirname(entry) === '/') {
      links.push('--symlink', fs.readlinkSync(entry), entry);
      continue;
    }
    mounts.push([entry, mode]);
  }
  mounts.sort(([a], [b]) => depth(a) - depth(b) || a.localeCompare(b));
  for (const [entry, mode] of mounts) args.push(mode === 'rw' ? '--bind' : '--ro-bind', entry, entry);
  // The root the binds hang from is read-only: a write anywhere but a write path fails (EROFS), it is not kept in memory.
  args.push(...links, '--remount-ro', '/', '--chdir', plan.cwd, '--', plan.command, ...plan.args);
  return args;
}

function depth(file: string): number {
  return file.split(path.sep).filter(Boolean).length;
}
