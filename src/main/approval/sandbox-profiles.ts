import path from 'node:path';
import type { ManagedSandbox } from '../../shared/approval';
import {
  SERVER_REQUEST_NO_CHAT,
  type AuditRecorder,
  type PolicyChangeActor,
  type PolicyChangeRecord,
} from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import type { McpServerConfigService } from '../mcp/server-config-service';
import type { SandboxBlock } from '../mcp/sandbox/contain';
import type { SandboxView } from '../../shared/sandbox';
import { sandboxAvailability, type SandboxAvailability } from '../mcp/sandbox/bwrap';
import { appInstallation } from '../mcp/sandbox/index';
import { createBlockBursts, type BlockBurstOptions } from './sandbox-block-bursts';
import { assertMayGrant, capProfile, NO_SANDBOX_LIMITS } from '../mcp/sandbox/limits';
import {
  containedServer,
  effectiveProfile,
  normaliseHost,
  type ContainedServer,
  type SandboxSettings,
} from '../mcp/sandbox/profile';
import { launchIdentity, unconfinedState } from '../mcp/sandbox/unconfined';

/** One entry of a profile the person can grant or take back. */
export type ProfileGrant =
  { kind: 'read' | 'write'; path: string } | { kind: 'connect'; host: string } | { kind: 'env'; name: string };

const FIELD = { read: 'read', write: 'write', connect: 'hosts', env: 'env' } as const;

/**
 * Widening and narrowing a server's sandbox profile (docs/user/sandbox.md#widening): each change is checked against
 * the organisation's limits, recorded in the audit log before it applies (a `policy` row: what it grants, to which
 * server), and takes effect at the server's next start, which the change itself causes. Blocks are recorded here too.
 */
export interface SandboxProfileService {
  /** The server's own settings (what was granted beyond its shipped profile). */
  get(serverName: string): { name: string; settings: SandboxSettings; limits: ManagedSandbox };
  /** Adds a grant; refused (`locked`) where the organisation forbids it. Returns the grant as stored. */
  widen(serverName: string, grant: ProfileGrant): ProfileGrant;
  /**
   * Checks a grant as `widen` does and says what it would record and apply, without doing either: for a decision that
   * records the change in its own transaction. `change` is null when the profile already grants it.
   */
  prepareWiden(
    serverName: string,
    grant: ProfileGrant,
  ): { name: string; grant: ProfileGrant; change: PolicyChangeRecord | null; apply(): void };
  /** Takes a grant back; `not_found` when the profile does not have it. */
  narrow(serverName: string, grant: ProfileGrant): void;
  /**
   * Lets the server run unconfined (Not contained), bound to its name and what it runs now, or contains it again
   * (docs/user/sandbox.md#unconfined). Recorded in the audit log before it applies; the server restarts. Refused
   * (`locked`) where the organisation requires containment or locks profiles; containing it again is never refused.
   */
  setUnconfined(serverName: string, unconfined: boolean): void;
  /**
   * Records a block as an audit row (a `decision` by the sandbox: `auto_deny`); the same block repeated in a burst is
   * one row with its count, recorded when the burst ends (docs/user/sandbox.md#blocks).
   */
  recordBlock(
    serverName: string,
    block: SandboxBlock,
    call: { toolName: string; chatId?: string | undefined } | undefined,
  ): void;
  /** Records the bursts of blocks still open (the app closing). */
  flushBlocks(): void;
  /** The server's sandbox as Settings and the CLI show it. */
  view(serverName: string): SandboxView;
  /** What a grant gives, in words: "Files may read /home/me/projects (and everything in it)". */
  describe(serverName: string, grant: ProfileGrant): string;
}

export function createSandboxProfileService(deps: {
  config: McpServerConfigService;
  audit: AuditRecorder;
  limits: ManagedSandbox | undefined;
  dataDir: string;
  actor: PolicyChangeActor;
  availability?: () => SandboxAvailability;
  /** How repeated blocks are gathered into one row (tests shorten the burst). */
  blockBursts?: BlockBurstOptions;
}): SandboxProfileService {
  const limits = { ...NO_SANDBOX_LIMITS, ...(deps.limits ?? {}) };
  const bursts = createBlockBursts(
    {
      burst({ serverName, block, call, count, first, last }) {
        const repeated = count > 1 ? ` (${count} times in ${seconds(last - first)})` : '';
        deps.audit.recordDecision({
          chatId: call?.chatId ?? SERVER_REQUEST_NO_CHAT,
          toolCallId: blockRowId(),
          serverName,
          toolName: `sandbox/${block.kind}`,
          decision: 'auto_deny',
          actor: 'system',
          decidedBy: 'sandbox',
          reason: `${serverName} tried to ${verb({ kind: block.kind })} ${block.target}${call ? ` during ${call.toolName}` : ''}: not in its sandbox profile${repeated}`,
          args: {
            target: block.target,
            ...(call ? { call: call.toolName } : {}),
            ...(count > 1 ? { count, first: new Date(first).toISOString(), last: new Date(last).toISOString() } : {}),
          },
        });
      },
      overflow(serverName, count, first, last) {
        deps.audit.recordDecision({
          chatId: SERVER_REQUEST_NO_CHAT,
          toolCallId: blockRowId(),
          serverName,
          toolName: 'sandbox/many',
          decision: 'auto_deny',
          actor: 'system',
          decidedBy: 'sandbox',
          reason: `${serverName} reported ${count} more blocks of other paths and hosts in ${seconds(last - first)}, too many to list one by one: see its log`,
          args: { count, first: new Date(first).toISOString(), last: new Date(last).toISOString() },
        });
      },
    },
    deps.blockBursts,
  );
  const normalise = (grant: ProfileGrant): ProfileGrant => {
    if (grant.kind === 'env') {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(grant.name))
        throw new WorkbenchError('invalid_input', `"${grant.name}" is not an environment variable name.`);
      return grant;
    }
    if (grant.kind === 'read' || grant.kind === 'write') {
      if (!path.isAbsolute(grant.path))
        throw new WorkbenchError('invalid_input', `"${grant.path}" is not an absolute path.`);
      return { kind: grant.kind, path: path.resolve(grant.path) };
    }
    try {
      return { kind: 'connect', host: normaliseHost((grant as { host: string }).host) };
    } catch (error) {
      throw new WorkbenchError('invalid_input', (error as Error).message);
    }
  };
  /** A stdio server as the sandbox sees it at its next start. */
  const stdioLaunch = (name: string): ContainedServer => {
    const launch = deps.config.launchConfig(name);
    if (launch.kind !== 'stdio') throw new WorkbenchError('internal', 'a stdio server launched over HTTP');
    return containedServer(launch);
  };
  const valueOf = (grant: ProfileGrant): string =>
    grant.kind === 'connect' ? grant.host : grant.kind === 'env' ? grant.name : grant.path;
  const service: SandboxProfileService = {
    get(serverName) {
      return { ...deps.config.sandboxSettings(serverName), limits };
    },
    prepareWiden(serverName, requested) {
      const grant = normalise(requested);
      const { name, settings } = deps.config.sandboxSettings(serverName);
      assertMayGrant(grant.kind, valueOf(grant), { limits, dataDir: deps.dataDir });
      const field = FIELD[grant.kind];
      const current = settings[field] ?? [];
      if (current.includes(valueOf(grant))) return { name, grant, change: null, apply: () => {} };
      const next = { ...settings, [field]: [...current, valueOf(grant)] };
      return {
        name,
        grant,
        change: {
          actor: deps.actor,
          summary: `Sandbox: ${service.describe(name, grant)}`,
          serverName: name,
          before: { [`sandbox/${field}`]: current },
          after: { [`sandbox/${field}`]: next[field] },
        },
        apply: () => deps.config.setSandboxSettings(name, next),
      };
    },
    widen(serverName, requested) {
      const prepared = service.prepareWiden(serverName, requested);
      if (prepared.change) {
        deps.audit.recordPolicyChange(prepared.change);
        prepared.apply();
      }
      return prepared.grant;
    },
    narrow(serverName, requested) {
      const grant = normalise(requested);
      const { name, settings } = deps.config.sandboxSettings(serverName);
      if (limits.lockProfiles)
        throw new WorkbenchError('locked', 'Your organisation locks the servers\u2019 sandbox profiles.');
      const field = FIELD[grant.kind];
      const current = settings[field] ?? [];
      if (!current.includes(valueOf(grant)))
        throw new WorkbenchError('not_found', `The sandbox profile of "${name}" does not grant ${valueOf(grant)}.`);
      const remaining = current.filter((entry) => entry !== valueOf(grant));
      deps.audit.recordPolicyChange({
        actor: deps.actor,
        summary: `Sandbox: ${name} may no longer ${verb(grant)} ${valueOf(grant)}`,
        serverName: name,
        before: { [`sandbox/${field}`]: current },
        after: { [`sandbox/${field}`]: remaining },
      });
      deps.config.setSandboxSettings(name, { ...settings, [field]: remaining.length > 0 ? remaining : undefined });
    },
    setUnconfined(serverName, unconfined) {
      const { name, settings } = deps.config.sandboxSettings(serverName);
      const launch = stdioLaunch(name);
      const current = settings.unconfined ?? (settings.allowUnconfined ? { allowUnconfined: true } : null);
      if (!unconfined) {
        if (!current) throw new WorkbenchError('not_found', `"${name}" is not allowed to run unconfined.`, { name });
        deps.audit.recordPolicyChange({
          actor: deps.actor,
          summary: `Sandbox: ${name} runs contained again`,
          serverName: name,
          before: { 'sandbox/unconfined': current },
          after: { 'sandbox/unconfined': null },
        });
        deps.config.setSandboxSettings(name, { ...settings, unconfined: undefined, allowUnconfined: undefined });
        return;
      }
      if (limits.requireContainment)
        throw new WorkbenchError(
          'locked',
          'Your organisation requires every server to be contained: none may run unconfined.',
        );
      if (limits.lockProfiles)
        throw new WorkbenchError('locked', 'Your organisation locks the servers\u2019 sandbox profiles.');
      if (unconfinedState(launch).kind === 'allowed') return;
      const identity = launchIdentity(launch);
      const allowance = {
        name,
        identity: identity.key,
        description: identity.description,
        since: new Date().toISOString(),
      };
      deps.audit.recordPolicyChange({
        actor: deps.actor,
        summary: `Sandbox: ${name} may run unconfined (Not contained: with all of your rights) while it runs ${identity.description}`,
        serverName: name,
        before: { 'sandbox/unconfined': current },
        after: { 'sandbox/unconfined': allowance },
      });
      deps.config.setSandboxSettings(name, { ...settings, unconfined: allowance, allowUnconfined: undefined });
    },
    recordBlock(serverName, block, call) {
      bursts.add(serverName, block, call);
    },
    flushBlocks() {
      bursts.flush();
    },
    view(serverName) {
      const server = deps.config.get(serverName);
      const base = { name: server.name, limits, unconfined: null };
      if (server.kind === 'http')
        return {
          ...base,
          kind: 'remote',
          reason: 'It runs elsewhere and is reached over HTTP: a sandbox here has nothing to contain.',
        };
      const launch = stdioLaunch(server.name);
      const settings = launch.sandbox;
      const granted = {
        read: settings.read ?? [],
        write: settings.write ?? [],
        hosts: settings.hosts ?? [],
        env: settings.env ?? [],
      };
      const unconfined = unconfinedView(launch, limits);
      if (unconfined?.applies)
        return {
          ...base,
          kind: 'not-contained',
          reason: 'You allowed it to run unconfined.',
          granted,
          unconfined,
        };
      const availability = (deps.availability ?? sandboxAvailability)();
      if (!availability.available)
        return { ...base, kind: 'not-contained', reason: availability.reason, granted, unconfined };
      const context = { runtimeCommand: process.execPath, appRoot: appInstallation(), dataDir: deps.dataDir };
      const shipped = new Set(Object.values(effectiveProfile({ ...launch, sandbox: {} }, context)).flat());
      const { profile } = capProfile(effectiveProfile(launch, context), { limits, dataDir: deps.dataDir }, shipped);
      return { ...base, kind: 'contained', profile, granted, unconfined };
    },
    describe(serverName, grant) {
      const value = valueOf(grant);
      if (grant.kind === 'read') return `${serverName} may read ${value} (and everything in it)`;
      if (grant.kind === 'write') return `${serverName} may read and write ${value} (and everything in it)`;
      if (grant.kind === 'connect') return `${serverName} may connect to ${value} (that host and port only)`;
      return `${serverName} receives the environment variable ${value} from AI Workbench's environment`;
    },
  };
  return service;
}

function verb(grant: Pick<ProfileGrant, 'kind'>): string {
  return { read: 'read', write: 'write', connect: 'connect to', env: 'read the environment variable' }[grant.kind];
}

/** The person's allowance to run a server unconfined as Settings and the CLI show it (docs/user/sandbox.md#unconfined). */
function unconfinedView(server: ContainedServer, limits: ManagedSandbox): SandboxView['unconfined'] {
  const allowance = server.sandbox.unconfined;
  if (!allowance && !server.sandbox.allowUnconfined) return null;
  const state = unconfinedState(server);
  const description = allowance?.description ?? 'no recorded command';
  const since = allowance ? { since: allowance.since } : {};
  if (limits.requireContainment)
    return {
      description,
      ...since,
      applies: false,
      note: 'Your organisation requires every server to be contained: this allowance does not apply.',
    };
  if (state.kind === 'stale') return { description, ...since, applies: false, note: `It does not apply: ${state.why}` };
  return { description, ...since, applies: true };
}

function blockRowId(): string {
  return `sandbox-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

function seconds(ms: number): string {
  return ms < 1000 ? 'under a second' : `${Math.round(ms / 1000)} s`;
}
