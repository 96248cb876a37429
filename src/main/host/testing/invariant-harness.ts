/**
 * One run of the trust invariant test: the real services on a temporary data folder, reached through the contract
 * dispatcher exactly as the CLI reaches them (src/cli/session.ts), with the recording MCP servers and the scripted
 * model. It keeps what the servers ran, with what was true at that moment: the audit rows committed and the deny
 * rules in force that match the call's arguments.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { ApprovalRule, ManagedPolicy } from '../../../shared/approval';
import type { MethodInput, MethodName, MethodOutput } from '../../../shared/contract';
import type { Envelope } from '../../../shared/errors';
import type { FakeLlmServer } from '../../llm/testing/fake-llm-server';
import { TEST_KEY } from '../../llm/testing/drive';
import { createServices, type Services } from '../../services';
import { createDispatcher, type Dispatch } from '../dispatcher';
import { createHandlers } from '../handlers';
import { ruleOfId, SERVER_NAMES, type CallArguments } from './invariant-catalogue';

/** A call one of the servers ran. */
export interface RecordedRun {
  readonly serverName: string;
  readonly toolName: string;
  readonly args: CallArguments;
  /** The highest audit sequence committed (read on a connection of its own) when the server received the call. */
  readonly committedSequence: number;
  /** The deny rules in force when the server received the call that match its arguments. */
  readonly denyHits: readonly string[];
  /** The command during which it ran (for the report). */
  readonly step: string;
}

/** Counts that show what a run exercised, so a green run that tried nothing shows as such. */
export interface Tally {
  runs: number;
  userMessages: number;
  approvalsApplied: number;
  approvalsRefused: number;
  editsApplied: number;
  /** Answers that remembered something (issue 16 §1) and were applied. */
  remembered: number;
  stops: number;
  timeouts: number;
  restarts: number;
  policyChanges: number;
}

export const emptyTally = (): Tally => ({
  runs: 0,
  userMessages: 0,
  approvalsApplied: 0,
  approvalsRefused: 0,
  editsApplied: 0,
  remembered: 0,
  stops: 0,
  timeouts: 0,
  restarts: 0,
  policyChanges: 0,
});

export interface Harness {
  readonly chats: readonly string[];
  readonly runs: readonly RecordedRun[];
  readonly tally: Tally;
  /** What the current command is, for the runs it causes and for failure messages. */
  step: string;
  /** Everything the test did, in order: the counterexample a failure prints. */
  readonly log: string[];
  services(): Services;
  call(method: MethodName, input?: unknown): Promise<Envelope>;
  ok<M extends MethodName>(method: M, input?: MethodInput<M>): Promise<MethodOutput<M>>;
  /** The user's rules as the last policy view showed them. */
  userRules(): readonly ApprovalRule[];
  noteView(view: MethodOutput<'policy.get'>): void;
  /** The deny rules in force now (the organisation's first) whose plain meaning matches this call. */
  denyHits(serverName: string, toolName: string, args: CallArguments): string[];
  /** Waits until no chat's exchange runs (each is idle or waits for a person). */
  settle(): Promise<void>;
  /** Stops the services as a host does, and starts them again on the same folder, with this managed policy when given. */
  restart(managed?: ManagedPolicy | null): Promise<void>;
  /** Errors no caller saw (listener failures, internal errors of the dispatcher). */
  readonly internalErrors: unknown[];
  dispose(): Promise<void>;
  /** Stops the services and answers the data folder, left in place for `HarnessOptions.template`. */
  keepAsTemplate(): Promise<string>;
}

export interface HarnessOptions {
  servers: { urls: Readonly<Record<string, string>> };
  fake: FakeLlmServer;
  managed: ManagedPolicy | null;
  tally: Tally;
  /** A data folder made by `prepareTemplate`, copied instead of set up again. */
  template?: string;
}

/** The harness whose servers receive calls now; the recording servers are shared by every run. */
let current: { record(serverName: string, toolName: string, args: CallArguments): void } | undefined;

export function recordCall(serverName: string, toolName: string, args: CallArguments): void {
  if (!current) throw new Error(`a server ran ${serverName}.${toolName} while no test run was active`);
  current.record(serverName, toolName, args);
}

export async function createHarness(options: HarnessOptions): Promise<Harness> {
  // Memory-backed when the machine has it: every audit row is committed with fsync, hundreds of times per run.
  const dir = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'aiwb-invariant-'));
  const dataDir = path.join(dir, 'data');
  // Setting up through the contract takes longer than the rest of a short run: runs start from a copy.
  if (options.template) fs.cpSync(options.template, dataDir, { recursive: true });
  const internalErrors: unknown[] = [];
  const runs: RecordedRun[] = [];
  const log: string[] = [];
  let managed = options.managed;
  let managedFiles = 0;
  let services: Services;
  let dispatch: Dispatch;
  let reader: BetterSqlite3.Database;
  let userRules: readonly ApprovalRule[] = [];
  let closed = false;

  const writeManaged = (policy: ManagedPolicy | null): string | null => {
    if (policy === null) return null;
    const file = path.join(dir, `managed-${++managedFiles}.json`);
    fs.writeFileSync(file, JSON.stringify(policy));
    return file;
  };
  const open = (): void => {
    closed = false;
    services = createServices({
      dataDir,
      host: 'cli',
      version: '0.0.0-invariant',
      managedPolicyFile: writeManaged(managed),
      onListenerError: (error) => internalErrors.push(error),
    });
    dispatch = createDispatcher(createHandlers(services), (error, method) => internalErrors.push(new Error(`${method}: ${String(error)}`)));
    reader = new BetterSqlite3(services.databaseFile, { readonly: true, fileMustExist: true });
  };
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await services.conversations.dispose();
    await services.mcp.stop();
    services.close();
    reader.close();
  };

  const call = (method: MethodName, input?: unknown): Promise<Envelope> => dispatch(method, input);
  const ok = async <M extends MethodName>(method: M, input?: MethodInput<M>): Promise<MethodOutput<M>> => {
    const envelope = await dispatch(method, input);
    if (!envelope.ok) throw new Error(`${method} failed: ${envelope.error.message}`);
    return envelope.value as MethodOutput<M>;
  };
  const harness: Harness = {
    chats: [],
    runs,
    tally: options.tally,
    step: 'setup',
    log,
    services: () => services,
    call,
    ok,
    userRules: () => userRules,
    noteView(view) {
      userRules = view.policy.rules;
    },
    denyHits(serverName, toolName, args) {
      const inForce = [...(managed?.rules ?? []), ...userRules.filter((rule) => rule.effect === 'deny')];
      return inForce
        .filter((rule) => {
          const meaning = ruleOfId(rule.id);
          if (!meaning) throw new Error(`rule '${rule.id}' was not made by this test`);
          return meaning.matches(serverName, toolName, args);
        })
        .map((rule) => rule.id);
    },
    async settle() {
      for (const chatId of harness.chats) await services.conversations.settled(chatId);
    },
    async restart(next) {
      await close();
      if (next !== undefined) log.push(`  organisation's rules now: ${next === null ? 'none' : next.rules.map((rule) => rule.id).join(', ') || 'none'}`);
      if (next !== undefined) managed = next;
      open();
      services.mcp.start();
      await services.mcp.whenSettled();
      harness.noteView(await ok('policy.get'));
    },
    internalErrors,
    async dispose() {
      if (current === recorder) current = undefined;
      await close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    async keepAsTemplate() {
      if (current === recorder) current = undefined;
      await close();
      return dataDir;
    },
  };
  const recorder = {
    record(serverName: string, toolName: string, args: CallArguments): void {
      const { sequence } = reader.prepare('SELECT COALESCE(MAX(sequence), 0) AS sequence FROM audit_log').get() as { sequence: number };
      runs.push({ serverName, toolName, args, committedSequence: sequence, denyHits: harness.denyHits(serverName, toolName, args), step: harness.step });
      options.tally.runs += 1;
      log.push(`  server ran ${serverName}.${toolName} ${JSON.stringify(args)} (${sequence} audit rows committed)`);
    },
  };
  current = recorder;

  open();
  if (options.template) {
    (harness as { chats: readonly string[] }).chats = (await ok('chat.list')).chats.map((chat) => chat.id).sort();
  } else {
    // A fresh data folder comes with the bundled filesystem server; the test's own servers replace it.
    for (const server of (await ok('mcp.list')).servers) await ok('mcp.remove', { name: server.name });
    for (const name of SERVER_NAMES) await ok('mcp.add', { name, server: { url: options.servers.urls[name] as string, type: 'http' } });
    await ok('providers.add', { kind: 'openai', id: 'fake', baseURL: options.fake.baseURL('openai'), defaultModel: 'fake-large', apiKey: TEST_KEY });
    const chat = { providerId: 'fake', model: 'fake-large' };
    (harness as { chats: readonly string[] }).chats = [(await ok('chat.create', chat)).id, (await ok('chat.create', chat)).id].sort();
  }
  harness.services().mcp.start();
  await harness.services().mcp.whenSettled();
  harness.noteView(await ok('policy.get'));
  return harness;
}
