/**
 * The trust invariant's sandbox steps (docs/dev/testing.md, "The trust invariant"): a contained probe server under the
 * real services and the real bubblewrap, and steps that ask to widen its profile (allowed, denied or left waiting),
 * narrow it, lock the profiles by the organisation's policy, and make it read. After every step: the grants in force
 * are exactly those the audit log's sandbox policy rows add up to, each added by an allow decision of its widening
 * request in the same transaction; and every read the probe made succeeded exactly when its file was granted by the
 * audit log at that moment. A block is never lifted without an allow decision.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import type { MethodInput, MethodName, MethodOutput } from '../../../shared/contract';
import type { AuditEntry } from '../../../shared/audit';
import { createServices, type Services } from '../../services';
import { createDispatcher } from '../dispatcher';
import { createHandlers } from '../handlers';

export const PROBE = 'Probe';
const PROBE_SERVER = path.resolve(import.meta.dirname, '../../mcp/test-fixtures/probe-server.ts');

export type SandboxStep =
  | { kind: 'widen'; file: number; decision: 'allow' | 'deny' | 'leave' }
  | { kind: 'narrow'; file: number }
  | { kind: 'lock'; locked: boolean }
  | { kind: 'probe' };

export const sandboxStepArb = (files: number): fc.Arbitrary<SandboxStep> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('widen' as const),
        file: fc.nat(files - 1),
        decision: fc.constantFrom('allow' as const, 'deny' as const, 'leave' as const),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('narrow' as const), file: fc.nat(files - 1) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('lock' as const), locked: fc.boolean() }) },
    { weight: 3, arbitrary: fc.constant({ kind: 'probe' as const }) },
  );

/** One run: its own data folder and files; the services restarted with a new organisation policy on `lock`. */
export interface SandboxWorld {
  readonly files: readonly string[];
  readonly log: string[];
  readonly tally: { reads: number; allowed: number; denied: number; refused: number; narrowed: number };
  step(step: SandboxStep): Promise<void>;
  /** The invariant, checked after every step; throws with what broke. */
  check(): Promise<void>;
  dispose(): Promise<void>;
}

export async function createSandboxWorld(fileCount: number): Promise<SandboxWorld> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-sandbox-invariant-'));
  const dataDir = path.join(dir, 'data');
  const files = probeFiles(dir, fileCount);
  const log: string[] = [];
  const tally = { reads: 0, allowed: 0, denied: 0, refused: 0, narrowed: 0 };
  let locked = false;
  const open = (): { services: Services; dispatch: ReturnType<typeof createDispatcher> } => {
    const policyFile = path.join(dir, `policy-${locked ? 'locked' : 'open'}.json`);
    fs.writeFileSync(policyFile, JSON.stringify({ sandbox: { lockProfiles: locked } }));
    const opened = createServices({
      dataDir,
      host: 'browser',
      version: '0.0.0-invariant',
      managedPolicyFile: policyFile,
    });
    return { services: opened, dispatch: createDispatcher(createHandlers(opened), () => {}) };
  };
  let { services, dispatch } = open();
  const call: SandboxCall = async (method, input) => {
    const envelope = await dispatch(method, input);
    return envelope.ok
      ? { ok: true, value: envelope.value as never }
      : { ok: false, code: envelope.error.code, message: envelope.error.message };
  };
  for (const server of services.mcp.list()) services.mcpServers.remove(server.name);
  services.mcp.start();
  const probe = await addSandboxProbe({ services: () => services, call, files, log, tally, locked: () => locked });

  const world: SandboxWorld = {
    files,
    log,
    tally,
    async step(step) {
      if (step.kind !== 'lock') return probe.step(step);
      log.push(JSON.stringify(step));
      if (locked === step.locked) return;
      locked = step.locked;
      await services.conversations.dispose();
      await services.mcp.stop();
      services.close();
      ({ services, dispatch } = open());
      services.mcp.start();
      await probe.ready();
    },
    check: () => probe.check(),
    async dispose() {
      await services.conversations.dispose();
      await services.mcp.stop();
      services.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return world;
}

/** The contract as a step sees it: a method's value, or its error's code and message. */
export type SandboxCall = <M extends MethodName>(
  method: M,
  input?: MethodInput<M>,
) => Promise<{ ok: true; value: MethodOutput<M> } | { ok: false; code: string; message: string }>;

export type SandboxTally = { reads: number; allowed: number; denied: number; refused: number; narrowed: number };

/** The contained probe server in some services, and the sandbox steps and checks over it. */
export interface SandboxProbe {
  readonly files: readonly string[];
  /** A widening (allowed, denied or left waiting), a narrowing or a read, through the contract. */
  step(step: Exclude<SandboxStep, { kind: 'lock' }>): Promise<void>;
  /**
   * The grants in force are exactly those the audit log's sandbox policy rows add up to, each made by an allow
   * decision of its widening request in the same transaction; every read succeeded exactly when the audit log granted
   * its file at that moment; `audit verify` is OK.
   */
  check(): Promise<void>;
  /** Waits until the probe runs a process other than `previousPid` (a change of its profile restarts it). */
  ready(previousPid?: number): Promise<void>;
}

/**
 * Adds the probe server (contained: it reads `files`, each in a folder of its own) to the services and waits until it
 * is ready. Waits use node:timers/promises, which a test's fake timers leave alone.
 */
export async function addSandboxProbe(deps: {
  services: () => Services;
  call: SandboxCall;
  files: readonly string[];
  log: string[];
  tally: SandboxTally;
  locked: () => boolean;
}): Promise<SandboxProbe> {
  const { call, files, log, tally } = deps;
  const probeStatus = () =>
    deps
      .services()
      .mcp.list()
      .find((server) => server.name === PROBE)?.status;
  const ready = async (previousPid?: number): Promise<void> => {
    for (let turn = 0; turn < 600; turn++) {
      const status = probeStatus();
      const listed = deps
        .services()
        .mcp.tools()
        .some((tool) => tool.serverName === PROBE && tool.name === 'probe');
      if (status?.state === 'ready' && listed && status.pid !== undefined && status.pid !== previousPid) return;
      await sleep(50);
    }
    throw new Error(`${PROBE} did not become ready: ${JSON.stringify(probeStatus())}`);
  };
  // Added to running services: the host starts it as it starts any server added while it runs.
  deps.services().mcpServers.add(PROBE, { command: process.execPath, args: [PROBE_SERVER, JSON.stringify(files)] });
  await ready();

  /** The probe's call; a process that has just started may not have listed its tools yet, and is asked again. */
  const probe = async (): Promise<Awaited<ReturnType<Services['mcp']['callTool']>>> => {
    for (let turn = 0; ; turn++) {
      try {
        return await deps.services().mcp.callTool({ serverName: PROBE, toolName: 'probe', args: {} });
      } catch (error) {
        if ((error as { code?: string }).code !== 'unavailable' || turn === 200) throw error;
        await sleep(50);
      }
    }
  };
  /** What the audit log says is granted now: its sandbox policy rows for the probe, replayed in order. */
  const grantedByAudit = (): { granted: Set<string>; problems: string[] } => {
    const entries: AuditEntry[] = [];
    for (let cursor: string | undefined; ;) {
      const page = deps.services().audit.query({ serverName: PROBE, limit: 1000, ...(cursor ? { cursor } : {}) });
      entries.push(...page.entries);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    entries.sort((a, b) => a.sequence - b.sequence);
    const granted = new Set<string>();
    const problems: string[] = [];
    for (const [index, entry] of entries.entries()) {
      if (entry.kind !== 'policy') continue;
      const added = /^Sandbox: Probe may read (.+) \(and everything in it\)$/.exec(entry.decidedBy ?? '');
      const removed = /^Sandbox: Probe may no longer read (.+)$/.exec(entry.decidedBy ?? '');
      if (added?.[1]) {
        // The grant's allow decision is the row just before it, in the same transaction.
        const decision = entries[index - 1];
        const grant = (decision?.args as { grant?: { path?: string } } | undefined)?.grant;
        if (
          decision?.kind !== 'decision' ||
          decision.decision !== 'allow_once' ||
          decision.toolName !== 'sandbox/widen-read' ||
          grant?.path !== added[1]
        )
          problems.push(`a grant of ${added[1]} (row ${entry.sequence}) was not made by an allow decision of it`);
        granted.add(added[1]);
      } else if (removed?.[1]) granted.delete(removed[1]);
    }
    return { granted, problems };
  };
  const reads: { file: string; outcome: string; granted: boolean; step: string }[] = [];

  return {
    files,
    ready,
    async step(step) {
      const label = JSON.stringify(step);
      log.push(label);
      if (step.kind === 'probe') {
        const result = await probe();
        const outcome = result.structuredContent as Record<string, string>;
        const { granted } = grantedByAudit();
        for (const file of files) {
          reads.push({ file, outcome: String(outcome[file]), granted: granted.has(file), step: label });
          log.push(`  read ${path.basename(path.dirname(file))}: ${outcome[file]}`);
        }
        tally.reads += 1;
        return;
      }
      const file = files[step.file] as string;
      const before = probeStatus()?.pid;
      if (step.kind === 'narrow') {
        const answer = await call('mcp.sandboxNarrow', { name: PROBE, grant: { kind: 'read', path: file } });
        log.push(`  ${answer.ok ? 'narrowed' : `refused: ${answer.code}`}`);
        if (answer.ok) {
          tally.narrowed += 1;
          await ready(before);
        }
        return;
      }
      const request = await call('serverRequests.requestWidening', {
        name: PROBE,
        grant: { kind: 'read', path: file },
      });
      if (!request.ok) {
        log.push(`  request refused: ${request.code}`);
        tally.refused += 1;
        if (!deps.locked())
          throw new Error(`a widening request was refused while nothing forbids it: ${request.message}`);
        return;
      }
      if (step.decision === 'leave') return;
      const wasGranted = grantedByAudit().granted.has(file);
      const decided = await call('serverRequests.decide', {
        id: request.value.id,
        decision: { action: step.decision === 'allow' ? 'allow-once' : 'deny' },
      });
      log.push(`  ${step.decision}: ${decided.ok ? 'decided' : `refused: ${decided.code}`}`);
      if (!decided.ok) {
        tally.refused += 1;
        return;
      }
      if (step.decision === 'deny') tally.denied += 1;
      else {
        tally.allowed += 1;
        if (!wasGranted) await ready(before);
      }
    },
    async check() {
      const { granted, problems } = grantedByAudit();
      if (problems.length > 0) throw new Error(problems.join('\n'));
      const view = await call('mcp.sandbox', { name: PROBE });
      if (!view.ok) throw new Error(`mcp.sandbox failed: ${view.message}`);
      const inSettings = new Set(view.value.granted?.read ?? []);
      const missing = [...inSettings].filter((file) => !granted.has(file));
      if (missing.length > 0)
        throw new Error(`granted without an allow decision in the audit log: ${missing.join(', ')}`);
      const lost = [...granted].filter((file) => !inSettings.has(file));
      if (lost.length > 0) throw new Error(`recorded as granted but not in force: ${lost.join(', ')}`);
      for (const read of reads) {
        if (read.outcome === 'ok' && !read.granted)
          throw new Error(`${read.file} was read while the audit log granted it no one (${read.step})`);
        if (read.outcome !== 'ok' && read.granted)
          throw new Error(`${read.file} was granted but its read failed with ${read.outcome} (${read.step})`);
      }
      const audit = await deps.services().audit.verify();
      if (!audit.ok) throw new Error(`audit verify failed: ${JSON.stringify(audit)}`);
    },
  };
}

/** `count` files, each in a folder of its own under `dir`, for the probe to read. */
export function probeFiles(dir: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    const file = path.join(dir, `folder-${index}`, 'data.txt');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `file ${index}`);
    return file;
  });
}
