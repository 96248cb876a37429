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
import { canonicalJson } from '../../../shared/canonical-json';
import type { FakeLlmServer } from '../../llm/testing/fake-llm-server';
import { TEST_KEY } from '../../llm/testing/drive';
import { keyedArgsHash, loadArgsHashKey } from '../../audit/args-hash';
import { createServices, type Services } from '../../services';
import { createDispatcher, type Dispatch } from '../dispatcher';
import { createHandlers } from '../handlers';
import { ruleOfId, SERVER_NAMES, STDIO_LABEL, type CallArguments } from './invariant-catalogue';
import { scratchDir } from '../../mcp/sandbox/profile';
import { addSandboxProbe, probeFiles, type SandboxProbe, type SandboxTally } from './invariant-sandbox';

/** The stdio server's program: the host starts it as a command with this Node (it strips the types). */
export const STDIO_SERVER = path.resolve(import.meta.dirname, 'recording-stdio-server.ts');

/** Files the contained probe reads, each in a folder of its own. */
const PROBE_FILES = 2;

/** A call one of the servers ran. */
export interface RecordedRun {
  /** The name the server had in the app when it ran the call. */
  readonly serverName: string;
  /** What the server is (its identity: the recording server's URL path, invariant-catalogue.ts IDENTITY_LABELS). */
  readonly label: string;
  readonly toolName: string;
  readonly args: CallArguments;
  /** The highest audit sequence committed (read on a connection of its own) when the server received the call. */
  readonly committedSequence: number;
  /** The deny rules in force when the server received the call that match its arguments. */
  readonly denyHits: readonly string[];
  /** The command during which it ran (for the report). */
  readonly step: string;
  /**
   * A further leg of a call that already ran (a 2026-07-28 server's call sent again with the answers to its
   * `input_required`): no allow row of its own, but no deny rule in force then may match it.
   */
  readonly leg?: boolean;
}

/** A sampling request that reached the model (the fake LLM server), with what was true at that moment. */
export interface RecordedSampling {
  /** Only Shell asks (invariant-catalogue.ts, SAMPLING_COMMANDS). */
  readonly serverName: string;
  /** The request as the model got it: the arguments sampling rules look at. */
  readonly args: { messages: { role: string; text: string }[] };
  readonly committedSequence: number;
  /** The deny rules in force that match it. */
  readonly denyHits: readonly string[];
  /** The server's sampling setting in force (ask, allow or deny). */
  readonly setting: string;
  readonly step: string;
}

/** An answer to a sampling request as it reached the server. */
export interface RecordedSamplingAnswer {
  readonly serverName: string;
  readonly text: string;
  readonly committedSequence: number;
  readonly step: string;
}

/** A server's elicitation: what was true when it asked, and what came back to it. */
export interface RecordedElicitation {
  readonly serverName: string;
  readonly nonce: string;
  /** The deny rules in force when it asked that match it (it must then be declined without asking). */
  readonly denyHits: readonly string[];
  /** Set once the answer reached the server. */
  answer?: { action: string; content: Record<string, unknown> | undefined; committedSequence: number; step: string };
}

/** Counts that show what a run exercised, so a green run that tried nothing shows as such. */
export interface Tally {
  runs: number;
  /** Calls run by the 2026-07-28 stdio server (recording-stdio-server.ts), counted in `runs` too. */
  stdioRuns: number;
  /**
   * Calls of Files' task tool (invariant-tasks.ts): messages that asked for one, tasks the servers created, and how the
   * held ones ended — cancelled at the person's request, completed with the reply waiting, or completed after a stop.
   */
  tasks: {
    asked: number;
    created: number;
    cancelled: number;
    completed: number;
    detached: number;
  };
  /** Tasks kept running across later steps (invariant-tasks.ts), then stopped by a deny rule, or completed. */
  keptTasks: Record<'2025-11-25' | '2026-07-28', { kept: number; denied: number; completed: number }>;
  /** Term renamed, removed and added again (as itself or as TermOther), repointed, and accepted (TermLifecycle). */
  termLifecycle: { renames: number; readded: number; readdedOther: number; repointed: number; accepted: number };
  /** Further legs of calls that reached the 2026-07-28 server (the call sent again with the answers it asked for). */
  legs: number;
  userMessages: number;
  approvalsApplied: number;
  approvalsRefused: number;
  editsApplied: number;
  /** Answers that remembered something (docs/user/approvals.md "Remember from the card") and were applied. */
  remembered: number;
  stops: number;
  timeouts: number;
  restarts: number;
  /** Messages sent while a server was still starting, offered its tools of the last launch. */
  sentWithCachedTools: number;
  policyChanges: number;
  /** Sampling requests that reached the model, answers that reached the server, and the person's answers applied. */
  samplingRequests: number;
  samplingAnswers: number;
  serverRequestDecisions: number;
  /** Server requests' rows by how the engine answered them: allowed, denied, timed out. */
  serverRequestsAllowed: number;
  serverRequestsDenied: number;
  serverRequestTimeouts: number;
  /** Elicitation answers that reached a server, and those that carried what the person typed. */
  elicitationAnswers: number;
  elicitationsAccepted: number;
  /** Calls a server refused with -32042 (a page first), and those that came again to the server once it was accepted. */
  pagesRequired: number;
  sentAgainAfterPage: number;
  /** A server reconnected (restarted alone) while calls may be waiting or running. */
  reconnects: number;
  /** Servers renamed, removed, and added under a freed or a new name (another server, or the same one again). */
  renames: number;
  removals: number;
  /** Servers pointed at another identity without accepting it (held), and acceptances of what a server runs now. */
  repointed: number;
  /** Servers pointed at another identity by a save of settings.json, read by the live watch (not accepted either). */
  repointedByFile: number;
  accepted: number;
  addedOther: number;
  addedSame: number;
  /** Calls run by a server added under a name another server had before it. */
  runsAfterNameReuse: number;
  /** Tool calls an MCP Apps view asked for, those that ran, and the person's answers to them applied. */
  appCallsAsked: number;
  appCallsRan: number;
  appCallDecisions: number;
  /** Allow once / Deny pressed on a desktop notification and applied, and presses on a decided call's, refused. */
  notificationDecisions: number;
  notificationRefused: number;
  /** Calls a view asked for after its server's name came to mean another server or none (refused as stale). */
  appCallsStale: number;
  /**
   * Answers to a server's request or a view's call written to the answers inbox by another connection, as another
   * process would (docs/user/approvals.md#one-inbox): applied by the holder, and refused by it (an answer only the
   * card gives, or one the card would refuse too).
   */
  relayedApplied: number;
  relayedRefused: number;
  /**
   * Answers through the contract to a copy of a waiting request whose record names a running process that is no holder
   * (pid 1): never listed, refused at once with nothing sent (docs/user/approvals.md#one-inbox).
   */
  forgedHoldersRefused: number;
  /** Insights suggestions to stop asking that were made, accepted, and refused when accepted (invariant-suggestions.ts). */
  suggestionsMade: number;
  suggestionsAccepted: number;
  suggestionsRefused: number;
  /** The contained probe's widenings and narrowings through the engine, and its reads (invariant-sandbox.ts). */
  sandbox: SandboxTally;
  /**
   * The CLI's acceptance question (invariant-acceptance.ts): questions opened, calls that waited on one, and how
   * those ended — run after a yes, refused after a no, refused because the server was changed meanwhile.
   */
  acceptance: { asked: number; waited: number; ranAfterYes: number; refusedAfterNo: number; refusedChanged: number };
}

export const emptyTally = (): Tally => ({
  sandbox: { reads: 0, allowed: 0, denied: 0, refused: 0, narrowed: 0 },
  acceptance: { asked: 0, waited: 0, ranAfterYes: 0, refusedAfterNo: 0, refusedChanged: 0 },
  runs: 0,
  stdioRuns: 0,
  tasks: { asked: 0, created: 0, cancelled: 0, completed: 0, detached: 0 },
  keptTasks: {
    '2025-11-25': { kept: 0, denied: 0, completed: 0 },
    '2026-07-28': { kept: 0, denied: 0, completed: 0 },
  },
  termLifecycle: { renames: 0, readded: 0, readdedOther: 0, repointed: 0, accepted: 0 },
  legs: 0,
  notificationDecisions: 0,
  notificationRefused: 0,
  userMessages: 0,
  approvalsApplied: 0,
  approvalsRefused: 0,
  editsApplied: 0,
  remembered: 0,
  stops: 0,
  timeouts: 0,
  restarts: 0,
  sentWithCachedTools: 0,
  policyChanges: 0,
  samplingRequests: 0,
  samplingAnswers: 0,
  serverRequestDecisions: 0,
  serverRequestsAllowed: 0,
  serverRequestsDenied: 0,
  serverRequestTimeouts: 0,
  elicitationAnswers: 0,
  elicitationsAccepted: 0,
  pagesRequired: 0,
  sentAgainAfterPage: 0,
  reconnects: 0,
  renames: 0,
  removals: 0,
  repointed: 0,
  repointedByFile: 0,
  accepted: 0,
  addedOther: 0,
  addedSame: 0,
  runsAfterNameReuse: 0,
  appCallsAsked: 0,
  appCallsRan: 0,
  appCallDecisions: 0,
  appCallsStale: 0,
  relayedApplied: 0,
  relayedRefused: 0,
  forgedHoldersRefused: 0,
  suggestionsMade: 0,
  suggestionsAccepted: 0,
  suggestionsRefused: 0,
});

/** A configured server as the test knows it: what it is, and the names it had before (an organisation's rule by name follows them). */
export interface Binding {
  readonly label: string;
  /** Which add of the server this is (its URL's query, recording-servers.ts): calls through it carry it. */
  readonly slot: string;
  formerNames: string[];
  /** Another server had this name before it. */
  reused: boolean;
  /**
   * What the person last accepted under this name, when it is not what it runs now (`label`): it was pointed at
   * another server (through the contract or a save of settings.json) and not accepted since. The model's own record,
   * not the engine's: check 9 holds the engine to it.
   */
  readonly acceptedLabel?: string | undefined;
}

/** The person has not accepted what the server bound so runs now (the model's view, `Binding.acceptedLabel`). */
export function unacceptedBinding(binding: Binding): boolean {
  return binding.acceptedLabel !== undefined && binding.acceptedLabel !== binding.label;
}

/** Something the test made that allows a server's calls without asking, and the identity it was made for. */
export interface MadeAllow {
  readonly label: string;
  /** The name it was made under, following renames. */
  name: string;
  readonly what: string;
}

export interface Harness {
  readonly chats: readonly string[];
  /** The fake LLM server: what reached the model. */
  readonly fake: FakeLlmServer;
  readonly runs: readonly RecordedRun[];
  readonly samplings: readonly RecordedSampling[];
  readonly samplingAnswers: readonly RecordedSamplingAnswer[];
  readonly elicitations: readonly RecordedElicitation[];
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
  /** The hash the audit log keeps of a call's arguments: keyed with this data folder's key (audit/args-hash.ts). */
  argsHash(args: Record<string, unknown>): string;
  noteView(view: MethodOutput<'policy.get'>): void;
  /** The deny rules in force now (the organisation's first) whose plain meaning matches this call. */
  denyHits(serverName: string, toolName: string, args: CallArguments): string[];
  /** The configured servers by name, as the test changed them. */
  readonly bindings: Map<string, Binding>;
  /** What a name meant at an audit sequence: the label of the server that had it after that many rows, or null. */
  labelAt(name: string, sequence: number): string | null;
  /**
   * The server a call made under a name was meant for: the one that had the name at that sequence or, when none had
   * it then (it was renamed or removed while the call waited), the last one that had it before.
   */
  labelMeant(name: string, sequence: number): string | null;
  /** Whether a server had this name at some time in this run. */
  wasNamed(name: string): boolean;
  /** Records a change of what a name means, from the next audit row on. */
  bind(name: string, binding: Binding | null): void;
  /** The name the scripted model calls a catalogue server's tools by (invariant-catalogue.ts SERVER_NAMES). */
  readonly roleNames: Map<string, string>;
  /** What the test made that allows without asking, per identity (a rename keeps it, a removal drops it). */
  readonly madeAllows: MadeAllow[];
  /** The person's answers to the tool calls views asked for, by id (`allow-once`, `allow-chat`, `deny`). */
  readonly appAnswers: Map<string, string>;
  /** The views' tool calls sent and not yet answered by the contract (they may wait for the person). */
  readonly appCallsOut: { done: boolean }[];
  /** The call whose view asked, by the nonce of the call the view asked for (its tool call id). */
  readonly appViewOf: Map<string, string>;
  /** The URL the next server of this label is added at: its path is the label, its query a slot naming the add. */
  urlFor(label: string): { url: string; slot: string };
  /** The highest audit sequence committed now. */
  committed(): number;
  /** Shell's sampling setting as the last policy view showed it. */
  samplingSetting(): string;
  /** Waits until no chat's exchange runs (each is idle or waits for a person, for a call or a server's request). */
  settle(): Promise<void>;
  /** One turn of the event loop, with the timers due now run (as `settle` runs them) and the stdio server's runs read. */
  turn(): Promise<void>;
  /** The contained probe server, added to this run's services on its first sandbox step (invariant-sandbox.ts). */
  sandbox(): Promise<SandboxProbe>;
  /** The probe once added: its check runs after every step from then on. */
  readonly sandboxProbe: SandboxProbe | undefined;
  /**
   * Stops the services as a host does, and starts them again on the same folder, with this managed policy when
   * given; with `waitForServers` false it returns while the servers start.
   */
  restart(managed?: ManagedPolicy | null, waitForServers?: boolean): Promise<void>;
  /** Errors no caller saw (listener failures, internal errors of the dispatcher). */
  readonly internalErrors: unknown[];
  /** Connections the host opened to a server while what it runs was not accepted (recorded at the server). */
  readonly unacceptedStarts: string[];
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
  /**
   * Runs the timers that are due now, without moving the clock: under the test's fake timers the MCP SDK's HTTP
   * server (@hono/node-server) streams a response in `setTimeout(…, 0)` steps, which a server's request in the
   * middle of a call (sampling) needs to reach the client.
   */
  runDueTimers?: () => void;
}

/** The harness whose servers receive calls now; the recording servers are shared by every run. */
let current:
  | {
      record(label: string, slot: string, toolName: string, args: CallArguments, leg?: boolean): void;
      sampled(text: string): void;
      answered(serverName: string, text: string): void;
      elicited(serverName: string, nonce: string): void;
      elicitationAnswered(
        serverName: string,
        nonce: string,
        action: string,
        content: Record<string, unknown> | undefined,
      ): void;
      pageRequired(serverName: string, nonce: string): void;
      connected(label: string, slot: string): void;
    }
  | undefined;

/** The host opened a connection to a recording server (it started it): `slot` says which add of it. */
export function recordConnect(label: string, slot: string): void {
  current?.connected(label, slot);
}

/** A server refused a call with -32042 before running it (recording-servers.ts). */
export function recordPageRequired(serverName: string, nonce: string): void {
  current?.pageRequired(serverName, nonce);
}

/** A server ran a call: `label` is what it is, `slot` which add of it (recording-servers.ts) the call came through. */
export function recordCall(label: string, slot: string, toolName: string, args: CallArguments): void {
  if (!current) throw new Error(`a server ran ${label}.${toolName} while no test run was active`);
  current.record(label, slot, toolName, args);
}

/** A further leg of a call reached a 2026-07-28 server (recording-servers-2026.ts). */
export function recordLeg(label: string, slot: string, toolName: string, args: CallArguments): void {
  if (!current) throw new Error(`a server got a leg of ${label}.${toolName} while no test run was active`);
  current.record(label, slot, toolName, args, true);
}

/** The model got a sampling request (the scripted model saw its prompt). */
export function recordSamplingRequest(text: string): void {
  if (!current) throw new Error(`the model got a sampling request while no test run was active: ${text}`);
  current.sampled(text);
}

/** A server got the answer to its sampling request. */
export function recordSamplingAnswer(serverName: string, text: string): void {
  // A server whose run was disposed of may still hear back (a cancelled request); nothing of this run is then checked.
  current?.answered(serverName, text);
}

/** A server is about to ask the person (elicitation). */
export function recordElicitationRequest(serverName: string, nonce: string): void {
  current?.elicited(serverName, nonce);
}

/** A server got the answer to its elicitation. */
export function recordElicitationAnswer(
  serverName: string,
  nonce: string,
  action: string,
  content: Record<string, unknown> | undefined,
): void {
  current?.elicitationAnswered(serverName, nonce, action, content);
}

export async function createHarness(options: HarnessOptions): Promise<Harness> {
  // Memory-backed when the machine has it: every audit row is committed with fsync, hundreds of times per run.
  const dir = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'aiwb-invariant-'));
  const dataDir = path.join(dir, 'data');
  // Setting up through the contract takes longer than the rest of a short run: runs start from a copy.
  if (options.template) fs.cpSync(options.template, dataDir, { recursive: true });
  const internalErrors: unknown[] = [];
  const unacceptedStarts: string[] = [];
  const runs: RecordedRun[] = [];
  const samplings: RecordedSampling[] = [];
  const samplingAnswers: RecordedSamplingAnswer[] = [];
  const elicitations: RecordedElicitation[] = [];
  const log: string[] = [];
  let managed = options.managed;
  let managedFiles = 0;
  let services: Services;
  let dispatch: Dispatch;
  let reader: BetterSqlite3.Database;
  let userRules: readonly ApprovalRule[] = [];
  let argsKey: Buffer | undefined;
  let samplingSetting = 'ask';
  let closed = false;
  let disposing = false;
  const bindings = new Map<string, Binding>(
    SERVER_NAMES.map((name) => [name, { label: name, slot: name, formerNames: [], reused: false }]),
  );
  const history: { sequence: number; name: string; label: string | null }[] = SERVER_NAMES.map((name) => ({
    sequence: 0,
    name,
    label: name,
  }));
  let slotCount = 0;
  const madeAllows: MadeAllow[] = [];
  const appAnswers = new Map<string, string>();
  const appCallsOut: { done: boolean }[] = [];
  const appViewOf = new Map<string, string>();

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
    dispatch = createDispatcher(createHandlers(services), (error, method) =>
      internalErrors.push(new Error(`${method}: ${String(error)}`)),
    );
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
    fake: options.fake,
    runs,
    samplings,
    samplingAnswers,
    elicitations,
    tally: options.tally,
    step: 'setup',
    log,
    services: () => services,
    call,
    ok,
    userRules: () => userRules,
    argsHash: (args) => keyedArgsHash((argsKey ??= loadArgsHashKey(dataDir)), canonicalJson(args)),
    noteView(view) {
      userRules = view.policy.rules;
      samplingSetting = view.policy.servers['Shell']?.sampling ?? 'ask';
    },
    samplingSetting: () => samplingSetting,
    denyHits(serverName, toolName, args) {
      const label = bindings.get(serverName)?.label ?? serverName;
      const organisation = (managed?.rules ?? []).filter((rule) => {
        const meaning = ruleOfId(rule.id);
        if (!meaning) throw new Error(`rule '${rule.id}' was not made by this test`);
        // By what it runs, whatever it is called; by name, under the names it has, had, or shares with the same server.
        if (meaning.identity !== undefined) return meaning.identity === label && meaning.matches(label, toolName, args);
        const named = meaning.draft.server;
        if (named !== '*' && !aliases(serverName).includes(named)) return false;
        return meaning.matches(named === '*' ? serverName : named, toolName, args);
      });
      // The person's rules name a server by its name now: a rename rewrites them (docs/user/approvals.md).
      const own = userRules.filter((rule) => {
        if (rule.effect !== 'deny') return false;
        const meaning = ruleOfId(rule.id);
        if (!meaning) throw new Error(`rule '${rule.id}' was not made by this test`);
        if (rule.server !== '*' && rule.server !== serverName) return false;
        return meaning.matches(meaning.draft.server === '*' ? serverName : meaning.draft.server, toolName, args);
      });
      return [...organisation, ...own].map((rule) => rule.id);
    },
    bindings,
    labelAt(name, sequence) {
      const last = history.filter((entry) => entry.name === name && entry.sequence < sequence).at(-1);
      return last?.label ?? null;
    },
    labelMeant(name, sequence) {
      const before = history.filter((entry) => entry.name === name && entry.sequence < sequence);
      return before.at(-1)?.label ?? before.findLast((entry) => entry.label !== null)?.label ?? null;
    },
    wasNamed: (name) => history.some((entry) => entry.name === name),
    bind(name, binding) {
      const sequence = committed();
      history.push({ sequence, name, label: binding?.label ?? null });
      if (binding) bindings.set(name, binding);
      else bindings.delete(name);
    },
    roleNames: new Map(SERVER_NAMES.map((name) => [name, name])),
    madeAllows,
    appAnswers,
    appCallsOut,
    appViewOf,
    urlFor(label) {
      const slot = `s${++slotCount}`;
      return { url: `${options.servers.urls[label] as string}?slot=${slot}`, slot };
    },
    committed: () => committed(),
    async turn() {
      collectStdioRuns();
      options.runDueTimers?.();
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    async settle() {
      // A chat whose tool call waits on the server's sampling request waits for a person, like a call does.
      for (const chatId of harness.chats) {
        let settled = false;
        void services.conversations.settled(chatId).then(() => (settled = true));
        const asking = (): boolean =>
          services.conversations.activity(chatId).status === 'running-tools' &&
          services.conversations
            .serverRequests()
            .some((request) => request.chatId === chatId || request.chatId === null);
        for (let turn = 0; !settled && !asking(); turn++) {
          collectStdioRuns();
          options.runDueTimers?.();
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (turn === 200_000) {
            const servers = services.mcp
              .list()
              .map((server) => `${server.name}: ${server.status.state}`)
              .join(', ');
            throw new Error(
              `chat ${chatId} never settled (${JSON.stringify(services.conversations.activity(chatId))}; servers ${servers})`,
            );
          }
        }
      }
      collectStdioRuns();
    },
    async restart(next, waitForServers = true) {
      await close();
      if (next !== undefined)
        log.push(
          `  organisation's rules now: ${next === null ? 'none' : next.rules.map((rule) => rule.id).join(', ') || 'none'}`,
        );
      if (next !== undefined) managed = next;
      open();
      services.mcp.start();
      if (waitForServers) await services.mcp.whenSettled();
      harness.noteView(await ok('policy.get'));
    },
    internalErrors,
    unacceptedStarts,
    sandboxProbe: undefined,
    async sandbox() {
      if (harness.sandboxProbe) return harness.sandboxProbe;
      const files = probeFiles(path.join(dir, 'probe'), PROBE_FILES);
      const probe = await addSandboxProbe({
        services: () => services,
        call: async (method, input) => {
          const envelope = await dispatch(method, input);
          return envelope.ok
            ? { ok: true, value: envelope.value as never }
            : { ok: false, code: envelope.error.code, message: envelope.error.message };
        },
        files,
        log,
        tally: options.tally.sandbox,
        locked: () => managed?.sandbox?.lockProfiles ?? false,
      });
      (harness as { sandboxProbe: SandboxProbe | undefined }).sandboxProbe = probe;
      return probe;
    },
    async dispose() {
      // A server's request decided while the services stop (allowed before, it still reaches the model) belongs to
      // this run, which is no longer checked: it is noted, and only what comes after this run's end is an error.
      disposing = true;
      await close();
      if (current === recorder) current = undefined;
      fs.rmSync(dir, { recursive: true, force: true });
    },
    async keepAsTemplate() {
      disposing = true;
      await close();
      if (current === recorder) current = undefined;
      return dataDir;
    },
  };
  /** The names an organisation's rule by name reaches a server under (compiled-policy.ts, in plain words). */
  const aliases = (serverName: string): string[] => {
    const own = bindings.get(serverName);
    if (!own) return [serverName];
    const names = new Set([serverName, ...own.formerNames]);
    for (const [name, other] of bindings) {
      if (other.label !== own.label) continue;
      names.add(name);
      for (const former of other.formerNames) names.add(former);
    }
    return [...names];
  };
  function committed(): number {
    return (
      reader.prepare('SELECT COALESCE(MAX(sequence), 0) AS sequence FROM audit_log').get() as { sequence: number }
    ).sequence;
  }
  /**
   * The calls the stdio server ran since the last look, from the file it appends to before it answers
   * (recording-stdio-server.ts): read on every turn of `settle` and after it, so a call is recorded with the audit rows
   * committed within a turn of when it ran (never fewer than at its start).
   */
  // Each name Term had has its own scratch folder (a rename moves it on): every one is read.
  const stdioRead = new Map<string, number>();
  const scratchRoot = path.dirname(scratchDir(dataDir, STDIO_LABEL));
  function collectStdioRuns(): void {
    let folders: string[];
    try {
      folders = fs.readdirSync(scratchRoot);
    } catch {
      return;
    }
    for (const folder of folders.sort()) {
      const stdioRecord = path.join(scratchRoot, folder, 'invariant-runs.jsonl');
      let size: number;
      try {
        size = fs.statSync(stdioRecord).size;
      } catch {
        continue;
      }
      const read = stdioRead.get(stdioRecord) ?? 0;
      if (size <= read) continue;
      const text = fs.readFileSync(stdioRecord).subarray(read).toString('utf8');
      const complete = text.lastIndexOf('\n') + 1;
      stdioRead.set(stdioRecord, read + Buffer.byteLength(text.slice(0, complete)));
      for (const line of text.slice(0, complete).split('\n').filter(Boolean)) {
        const { toolName, args, label, slot } = JSON.parse(line) as {
          toolName: string;
          args: CallArguments;
          label: string;
          slot: string;
        };
        options.tally.stdioRuns += 1;
        recorder.record(label, slot, toolName, args);
      }
    }
  }
  const pagesRequired = new Set<string>();
  const recorder = {
    record(label: string, slot: string, toolName: string, args: CallArguments, leg = false): void {
      if (disposing) return void log.push(`  (the run ended) ${label} ran ${toolName} ${JSON.stringify(args)}`);
      const sequence = committed();
      const serverName = [...bindings].find(([, binding]) => binding.slot === slot)?.[0] ?? `(removed, slot ${slot})`;
      if (bindings.get(serverName)?.reused) options.tally.runsAfterNameReuse += 1;
      runs.push({
        serverName,
        label,
        toolName,
        args,
        committedSequence: sequence,
        denyHits: harness.denyHits(serverName, toolName, args),
        step: harness.step,
        ...(leg ? { leg } : {}),
      });
      if (leg) {
        options.tally.legs += 1;
        return void log.push(`  server got a further leg of ${serverName}.${toolName} ${JSON.stringify(args)}`);
      }
      options.tally.runs += 1;
      if (pagesRequired.has(String(args['nonce']))) options.tally.sentAgainAfterPage += 1;
      log.push(
        `  server ran ${serverName}.${toolName} ${JSON.stringify(args)} (it is ${label}; ${sequence} audit rows committed)`,
      );
    },
    sampled(text: string): void {
      if (disposing) return void log.push(`  (the run ended) the model got Shell's sampling request ${text}`);
      const sequence = committed();
      const args = { messages: [{ role: 'user', text }] };
      samplings.push({
        serverName: 'Shell',
        args,
        committedSequence: sequence,
        denyHits: harness.denyHits('Shell', 'sampling', args),
        setting: samplingSetting,
        step: harness.step,
      });
      options.tally.samplingRequests += 1;
      log.push(`  the model got Shell's sampling request ${JSON.stringify(text)} (${sequence} audit rows committed)`);
    },
    answered(serverName: string, text: string): void {
      if (disposing) return;
      const sequence = committed();
      samplingAnswers.push({ serverName, text, committedSequence: sequence, step: harness.step });
      options.tally.samplingAnswers += 1;
      log.push(`  ${serverName} got the answer ${JSON.stringify(text)} (${sequence} audit rows committed)`);
    },
    connected(label: string, slot: string): void {
      if (disposing || closed) return;
      // Which configured server this is, by the add its URL names, and whether what it runs is accepted right now.
      const name = services.mcpServers
        .list()
        .find((server) => server.url !== undefined && new URL(server.url).searchParams.get('slot') === slot)?.name;
      const change = name === undefined ? undefined : services.mcpServers.facts().get(name)?.identityChanged;
      if (change !== undefined) {
        unacceptedStarts.push(`${name} (it is ${label}, slot ${slot}) was started while ${JSON.stringify(change)}`);
        log.push(`  the host connected to ${name} (${label}), whose identity is not accepted`);
        return;
      }
      // The engine may count it as accepted while the person never accepted it (a save that skipped the question).
      const bound = [...bindings].find(([, binding]) => binding.slot === slot && unacceptedBinding(binding));
      if (!bound) return;
      const [boundName, binding] = bound;
      unacceptedStarts.push(
        `${boundName} (it is ${label}, slot ${slot}) was started while the person accepted only ${binding.acceptedLabel as string} under that name`,
      );
      log.push(`  the host connected to ${boundName} (${label}), which the person did not accept`);
    },
    pageRequired(serverName: string, nonce: string): void {
      pagesRequired.add(nonce);
      options.tally.pagesRequired += 1;
      log.push(`  ${serverName} refused the call ${nonce} with -32042: a page to open first`);
    },
    elicited(serverName: string, nonce: string): void {
      const args = { message: `confirm ${nonce}` };
      elicitations.push({ serverName, nonce, denyHits: harness.denyHits(serverName, 'elicitation', args) });
      log.push(`  ${serverName} asks the person (elicitation ${nonce})`);
    },
    elicitationAnswered(
      serverName: string,
      nonce: string,
      action: string,
      content: Record<string, unknown> | undefined,
    ): void {
      if (disposing) return;
      const sequence = committed();
      const asked = elicitations.find(
        (elicitation) => elicitation.serverName === serverName && elicitation.nonce === nonce && !elicitation.answer,
      );
      const answer = { action, content, committedSequence: sequence, step: harness.step };
      if (asked) asked.answer = answer;
      else elicitations.push({ serverName, nonce, denyHits: [], answer });
      options.tally.elicitationAnswers += 1;
      if (action === 'accept') options.tally.elicitationsAccepted += 1;
      log.push(
        `  ${serverName} got the elicitation answer ${action}${content ? ` ${JSON.stringify(content)}` : ''} (${sequence} audit rows committed)`,
      );
    },
  };
  current = recorder;

  open();
  if (options.template) {
    (harness as { chats: readonly string[] }).chats = (await ok('chat.list')).chats.map((chat) => chat.id).sort();
  } else {
    // A fresh data folder comes with the bundled filesystem server; the test's own servers replace it.
    for (const server of (await ok('mcp.list')).servers) await ok('mcp.remove', { name: server.name });
    for (const name of SERVER_NAMES)
      await ok('mcp.add', {
        name,
        server:
          name === STDIO_LABEL
            ? { command: process.execPath, args: [STDIO_SERVER] }
            : { url: options.servers.urls[name] as string, type: 'http' },
      });
    await ok('providers.add', {
      kind: 'openai',
      id: 'fake',
      baseURL: options.fake.baseURL('openai'),
      defaultModel: 'fake-large',
      apiKey: TEST_KEY,
    });
    const chat = { providerId: 'fake', model: 'fake-large' };
    (harness as { chats: readonly string[] }).chats = [
      (await ok('chat.create', chat)).id,
      (await ok('chat.create', chat)).id,
    ].sort();
  }
  harness.services().mcp.start();
  await harness.services().mcp.whenSettled();
  harness.noteView(await ok('policy.get'));
  return harness;
}
