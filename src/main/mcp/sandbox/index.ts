import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ManagedSandbox } from '../../../shared/approval';
import { sandboxAvailability, type SandboxAvailability } from './bwrap';
import { containedPlan, unconfinedPlan, type SpawnPlan } from './contain';
import { capProfile } from './limits';
import { effectiveProfile, type ContainedServer } from './profile';
import { unconfinedState } from './unconfined';

export { describeBlock, type SandboxBlock, type SpawnPlan } from './contain';
export { sandboxAvailability, type SandboxAvailability } from './bwrap';
export { launchIdentity, unconfinedState, type UnconfinedState } from './unconfined';
export { containedServer, SandboxSettingsSchema, type SandboxSettings, type SandboxProfile } from './profile';

/** The host's side of containment: where it runs, what the organisation allows, and the app's installation. */
export interface SandboxHost {
  dataDir: string;
  appRoot: string;
  limits: ManagedSandbox;
  availability?: () => SandboxAvailability;
  hostEnv?: NodeJS.ProcessEnv;
}

/** A server that cannot start: no sandbox here and no one allowed it unconfined, or the organisation requires one. */
export class ContainmentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContainmentError';
  }
}

/**
 * How one start of a stdio server runs (docs/user/sandbox.md): unconfined where the person allowed this server so (under
 * the name and for what it runs then, docs/user/sandbox.md#unconfined); else contained with its profile (under the
 * organisation's caps) where a sandbox can run; else unconfined only where the organisation allows it. Never
 * unconfined where the organisation requires containment.
 */
export async function planSpawn(
  server: ContainedServer,
  spawn: { command: string; args: string[]; env: Record<string, string>; runtimeEnv: Readonly<Record<string, string>> },
  host: SandboxHost,
  runtimeCommand: string,
  log: (text: string) => void,
): Promise<SpawnPlan> {
  const availability = (host.availability ?? sandboxAvailability)();
  const unconfined = unconfinedState(server);
  if (host.limits.requireContainment) {
    if (unconfined.kind === 'allowed')
      log(
        'Your organisation requires every server to be contained: your allowance to run it unconfined does not apply.',
      );
    if (!availability.available)
      throw new ContainmentError(
        `${availability.reason} Your organisation requires every server to be contained, so it cannot start.`,
      );
  } else if (unconfined.kind === 'allowed') {
    log('Not contained: you allowed it to run unconfined. It runs with all of your rights.');
    return unconfinedPlan(spawn.command, spawn.args, spawn.env, server.cwd);
  } else if (unconfined.kind === 'stale') {
    log(`Your allowance to run it unconfined does not apply: ${unconfined.why}`);
  }
  if (!availability.available) {
    if (!host.limits.allowUnconfined) {
      throw new ContainmentError(
        `${availability.reason} It starts only if you allow it to run unconfined (Not contained): Settings › MCP servers › ${server.name} › Sandbox, or \`workbench servers sandbox ${server.name} --allow-unconfined\`.`,
      );
    }
    log(
      `Not contained: ${availability.reason} Your organisation allows unconfined servers. It runs with all of your rights.`,
    );
    return unconfinedPlan(spawn.command, spawn.args, spawn.env, server.cwd);
  }
  // Found on the app's PATH here, as an unconfined start would: a missing command says so, not "exited with code 1".
  const program = path.isAbsolute(spawn.command)
    ? spawn.command
    : findProgram(spawn.command, spawn.env.PATH ?? (host.hostEnv ?? process.env).PATH ?? '');
  if (!program) throw new ContainmentError(`The command "${spawn.command}" was not found.`);
  server = { ...server, command: server.command === undefined ? undefined : program };
  spawn = { ...spawn, command: program };
  const context = { runtimeCommand, appRoot: host.appRoot, dataDir: host.dataDir };
  const shipped = new Set(Object.values(effectiveProfile({ ...server, sandbox: {} }, context)).flat());
  const capped = capProfile(effectiveProfile(server, context), { limits: host.limits, dataDir: host.dataDir }, shipped);
  for (const line of capped.dropped) log(`Profile entry not applied: ${line}`);
  const plan = await containedPlan(
    server,
    { command: spawn.command, args: spawn.args, runtimeEnv: spawn.runtimeEnv },
    {
      ...context,
      availability,
      hostEnv: host.hostEnv ?? process.env,
      profile: capped.profile,
    },
  );
  log(
    `Contained: reads ${plan.profile?.read.length} paths, writes ${plan.profile?.write.join(', ')}, network ${plan.profile?.hosts.join(', ') || 'none'}.`,
  );
  return plan;
}

function findProgram(name: string, searchPath: string): string | undefined {
  if (name.includes(path.sep)) return path.resolve(name);
  for (const folder of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(folder, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The app's installation: the folder that holds its node_modules (and out/servers), where the bundled servers live. */
export function appInstallation(): string {
  const manifest = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json');
  const marker = `${path.sep}node_modules${path.sep}`;
  return manifest.slice(0, manifest.lastIndexOf(marker));
}
