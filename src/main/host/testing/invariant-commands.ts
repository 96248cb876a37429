/**
 * The steps of the trust invariant test as fast-check commands: what a person, the organisation, the model and the
 * clock can do to the running services, each through the contract. A step checks what it can know on its own (a
 * well-formed approval must be applied, a malformed one refused); every step then lets the chats settle and checks
 * every invariant (invariant-checks.ts).
 */
import BetterSqlite3 from 'better-sqlite3';
import { sandboxAvailability } from '../../mcp/sandbox/bwrap';
import type { ServerRequestView } from '../../../shared/server-request-views';
import { sandboxStepArb, type SandboxStep } from './invariant-sandbox';
import { saveServersByHand } from './invariant-settings-file';
import fc from 'fast-check';
import type {
  ChatApprovalMode,
  GlobalApprovalMode,
  ManagedPolicy,
  PendingApproval,
  RuleEffect,
  ToolApprovalSetting,
  ToolCallApproval,
} from '../../../shared/approval';
import type { Envelope } from '../../../shared/errors';
import {
  createNotificationDecisions,
  type NotificationDecisions,
  type NotificationPlan,
} from '../../chat/notification-decisions';
import { StandInNotification } from '../../chat/testing/stand-in-notification';
import {
  elicitationContent,
  RULES,
  HTTP_SERVER_NAMES,
  STDIO_LABEL,
  STDIO_OTHER_LABEL,
  STDIO_TOOL,
  TASK_TOOL_INDEX,
  TOOLS,
  USER_RULES,
  ruleDraft,
  toolsOfLabel,
} from './invariant-catalogue';
import { checkInvariants, InvariantError, type CheckState } from './invariant-checks';
import { STDIO_SERVER, type Harness, type MadeAllow } from './invariant-harness';
import { valueFor, type Plan, type ScriptedModel } from './scripted-model';

/** What the commands act on: one run's harness, the model, and the test's clock. */
export interface InvariantWorld {
  harness: Harness;
  model: ScriptedModel;
  checks: CheckState;
  /** Moves the fake clock on, firing the approval timeouts that fall due. */
  advanceTime(ms: number): Promise<void>;
  /** Made-up rule ids stay unique within a run. */
  nextRuleId: number;
  /** Runs the steps planned apart from the commands that fall before this one (sandboxPlanArb). */
  between?: (model: InvariantModel) => Promise<void>;
}

/**
 * fast-check's model: how many calls wait in each chat, as the services said after the last step. The services are
 * the state; the model only lets fast-check skip answers when nothing waits (one such refusal per run is plenty).
 */
export interface InvariantModel {
  waiting: number[];
  /** Server requests (sampling) waiting for the person, in any chat or none. */
  serverWaiting: number;
}
export const newInvariantModel = (): InvariantModel => ({ waiting: [0, 0], serverWaiting: 0 });
export type Command = fc.AsyncCommand<InvariantModel, InvariantWorld>;

export abstract class Step implements Command {
  /** Run by a plan between the commands (stdioPlanArb): it does not run the planned steps itself. */
  planned = false;
  check(_model: Readonly<InvariantModel>): boolean {
    return true;
  }
  async run(model: InvariantModel, world: InvariantWorld): Promise<void> {
    // The steps planned apart from the commands run between them (sandboxPlanArb, identityPlanArb).
    if (!this.planned && !(this instanceof SandboxChange) && !(this instanceof IdentityChange))
      await world.between?.(model);
    world.harness.step = this.toString();
    world.harness.log.push(this.toString());
    if (process.env['INVARIANT_DEBUG'] === '2') process.stderr.write(`step ${this.toString()}\n`);
    await this.act(world);
    await world.harness.settle();
    model.waiting = await logWaiting(world);
    model.serverWaiting = await logServerRequests(world);
    await checkInvariants(world.harness, world.checks);
  }
  protected abstract act(world: InvariantWorld): Promise<void>;
  abstract toString(): string;
}

/**
 * Renames the server playing `role` (Files, or the stdio server) to `to` through `mcp.edit`, expecting it refused when
 * the server is absent or the name is taken; a rename to the name it has changes nothing, and is applied. The model
 * moves the binding, its former names and the allows made by name. True when the server was renamed.
 */
async function renameRole(world: InvariantWorld, role: string, to: string): Promise<boolean> {
  const { harness } = world;
  const current = harness.roleNames.get(role) ?? role;
  const binding = harness.bindings.get(current);
  const taken = [...harness.bindings.keys()].some((other) => other.toLowerCase() === to.toLowerCase());
  const possible = binding !== undefined && (to === current || !taken);
  const envelope = await harness.call('mcp.edit', { name: current, rename: to });
  expectOutcome(world, `mcp.edit rename ${current} → ${to}`, envelope, possible ? 'ok' : 'refused');
  if (!envelope.ok || !binding || to === current) return false;
  harness.bind(current, null);
  harness.bind(to, {
    ...binding,
    formerNames: [...binding.formerNames.filter((name) => name !== current && name !== to), current],
  });
  harness.roleNames.set(role, to);
  for (const made of harness.madeAllows) if (made.name === current) made.name = to;
  return true;
}

/** What waits in each chat; the counterexample reads better with it after each step. */
async function logWaiting(world: InvariantWorld): Promise<number[]> {
  const counts: number[] = [];
  for (const [index, chatId] of world.harness.chats.entries()) {
    const waiting = (await world.harness.ok('approvals.pending', { chatId })).approvals;
    counts.push(waiting.length);
    if (waiting.length === 0) continue;
    const calls = waiting.map(
      ({ request }) => `${request.serverName}.${request.toolName} ${JSON.stringify(request.args)}`,
    );
    world.harness.log.push(`  waiting in chat ${index}: ${calls.join('; ')}`);
  }
  return counts;
}

/** The server requests that wait, for the counterexample. */
async function logServerRequests(world: InvariantWorld): Promise<number> {
  const { requests } = await world.harness.ok('serverRequests.list', {});
  for (const request of requests) {
    const what =
      request.kind === 'sampling'
        ? `${request.stage} ${JSON.stringify(request.stage === 'answer' ? request.answer?.text : request.messages[0]?.text)}`
        : request.kind;
    world.harness.log.push(
      `  ${request.serverName} asks (${what}) in ${request.chatId === null ? 'no chat' : `chat ${world.harness.chats.indexOf(request.chatId)}`}`,
    );
  }
  return requests.length;
}

export const chatOf = (world: InvariantWorld, index: number): string =>
  world.harness.chats[index % world.harness.chats.length] as string;

export function expectOutcome(
  world: InvariantWorld,
  what: string,
  envelope: Envelope,
  expected: 'ok' | 'refused' | 'either',
): void {
  world.harness.log.push(`  ${what} → ${envelope.ok ? 'ok' : `${envelope.error.code}: ${envelope.error.message}`}`);
  if (expected === 'ok' && !envelope.ok)
    throw new Error(`${what} should have been applied, but was refused: ${envelope.error.message}`);
  if (expected === 'refused' && envelope.ok) throw new Error(`${what} should have been refused, but was applied`);
}

const ticks = async (count: number): Promise<void> => {
  for (let index = 0; index < count; index++) await new Promise<void>((resolve) => setImmediate(resolve));
};

// ── A tool's MCP Apps view asks for a call (docs/user/mcp-apps.md#what-a-view-may-ask) ───────────

let appNonce = 0;

/** Until every view's call sent has been answered by the contract or waits for the person (bounded). */
async function appCallsAnswered(world: InvariantWorld): Promise<void> {
  const { harness } = world;
  for (let turn = 0; turn < 50_000; turn++) {
    const out = harness.appCallsOut.filter((call) => !call.done).length;
    if (out === 0) return;
    const waiting = harness
      .services()
      .approvals.pending.serverRequests.appCalls()
      .filter((request) => request.kind === 'app-tool-call').length;
    if (out <= waiting) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * The chat's latest view asks for a call of its own server's tool (`apps.callTool`), as a view's button would. It is
 * part of other steps (a chat's mode set, a stop) rather than a step of its own, so the seed's sequences stay the same.
 */
async function appAsks(world: InvariantWorld, chat: number, toolIndex: number, value: number): Promise<void> {
  const { harness } = world;
  const chatId = chatOf(world, chat);
  const { messages } = await harness.ok('chat.messages', { chatId });
  // The chat's latest call with a view is the view that asks; without one there is no view to ask.
  const views = messages.flatMap((message) =>
    message.role === 'assistant'
      ? message.reply.turns.flatMap((turn) => (turn.toolCalls ?? []).filter((call) => call.viewUri && call.serverName))
      : [],
  );
  const view = views.at(-1);
  if (!view?.serverName) return;
  const label = harness.bindings.get(view.serverName)?.label ?? 'Files';
  // A view asks for its server's tools that run at once (not Files' task tool, whose calls have a plan of their own).
  const tools = toolsOfLabel(label).filter((candidate) => TOOLS.indexOf(candidate) !== TASK_TOOL_INDEX);
  const tool = tools[toolIndex % Math.max(1, tools.length)] ?? TOOLS[0];
  if (!tool) return;
  const args: Record<string, unknown> = { [tool.field]: valueFor(tool.field, value), nonce: `app-${++appNonce}` };
  if (tool.name === 'write_file') args['content'] = 'from the app';
  const entry = { done: false };
  harness.appViewOf.set(String(args['nonce']), view.toolCallId);
  // The name may mean another server now than the one the view was shown for: asked all the same, as a view would.
  const shownFor = view.viewIdentity;
  const current = (await harness.ok('mcp.list')).servers.find((server) => server.name === view.serverName);
  const stale = shownFor === undefined || current?.identity?.key !== shownFor;
  harness.appCallsOut.push(entry);
  harness.tally.appCallsAsked += 1;
  harness.log.push(`  the view of ${view.serverName} in chat ${chat} asks for ${tool.name} ${JSON.stringify(args)}`);
  let outcome: string | undefined;
  void harness
    .call('apps.callTool', { chatId, viewCallId: view.toolCallId, tool: tool.name, arguments: args })
    .then((envelope) => {
      entry.done = true;
      outcome = envelope.ok ? 'ran' : `${envelope.error.code}: ${envelope.error.message}`;
      harness.log.push(`  app call ${tool.name} ${JSON.stringify(args)} → ${outcome}`);
      if (envelope.ok) harness.tally.appCallsRan += 1;
      if (stale && !envelope.ok && /^Stale view/.test(envelope.error.message)) harness.tally.appCallsStale += 1;
    });
  if (!stale) return appCallsAnswered(world);
  // A stale view's call is refused at once, before anything decides it (docs/user/mcp-apps.md#a-view-belongs-to-its-server):
  // one that waits for the person, runs, hangs or is refused for another reason fails here, not later as a timeout.
  for (let turn = 0; turn < 1_000 && !entry.done; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
  if (outcome === undefined || !outcome.startsWith('refused: Stale view')) {
    const waits = harness
      .services()
      .approvals.pending.serverRequests.appCalls()
      .some((request) => request.kind === 'app-tool-call' && request.args['nonce'] === args['nonce']);
    throw new InvariantError(
      "a stale view's call was not refused as stale",
      `the view of ${view.serverName} in chat ${chat} (shown for ${shownFor ?? 'no recorded server'}, the name now runs ${current?.identity?.key ?? 'nothing'}) asked for ${tool.name} ${JSON.stringify(args)}: ${
        outcome ?? (waits ? 'it waits for the person' : 'no answer yet')
      }`,
    );
  }
}

// ── The person talks to the model ─────────────────────────────────────────────────────────────

class SendMessage extends Step {
  constructor(
    readonly chat: number,
    readonly plan: Plan,
    /** Stop the reply after this many turns of the event loop; null lets it go on. */
    readonly stopAfter: number | null,
    /** Only when the chat is idle (fast-check skips it otherwise); a message to a busy chat must be refused. */
    readonly onlyWhenIdle: boolean,
  ) {
    super();
  }
  override check(model: Readonly<InvariantModel>): boolean {
    return !this.onlyWhenIdle || model.waiting[this.chat] === 0;
  }
  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    const chatId = chatOf(world, this.chat);
    const before = (await harness.ok('chat.messages', { chatId, limit: 1 })).activity;
    const cached = harness
      .services()
      .mcp.tools()
      .some((tool) => tool.cached);
    const envelope = await harness.call('chat.send', {
      chatId,
      message: { role: 'user', text: world.model.messageFor(this.plan) },
    });
    if (envelope.ok && cached) harness.tally.sentWithCachedTools += 1;
    expectOutcome(world, 'chat.send', envelope, before.status === 'idle' ? 'ok' : 'refused');
    if (!envelope.ok && envelope.error.code !== 'conflict')
      throw new Error(`a message sent to a busy chat was refused as ${envelope.error.code}, not conflict`);
    if (envelope.ok) harness.tally.userMessages += 1;
    if (this.stopAfter === null) return;
    await ticks(this.stopAfter);
    await harness.ok('chat.stop', { chatId });
    harness.tally.stops += 1;
  }
  toString(): string {
    const calls = this.plan.map((round) => round.map((call) => `${call.tool}:${call.value}`).join(' ')).join(' | ');
    return `send(chat ${this.chat}, [${calls}]${this.stopAfter === null ? '' : `, stop after ${this.stopAfter} ticks`})`;
  }
}

/** One answer a person gives; applied to the waiting calls in order, round robin. */
export interface AnswerPick {
  decision: ToolCallApproval['decision'];
  /** Change the call's rule-relevant argument to this value (an index), or to a value of the wrong type. */
  edit: number | 'wrong-type' | null;
  reason: string | null;
  /**
   * Remember from the card (docs/user/approvals.md) with an allow: the suggested rule, an attacker-wide rule (`**` on
   * the rule-relevant field), the tool set to auto-approve, or the server trusted. What a deny rule catches must be
   * refused outright; anything else may be refused (locked, an ask rule overlaps, it would keep asking).
   */
  remember: 'none' | 'tool' | 'server' | 'rule' | 'wide-rule';
}
let rememberedRules = 0;
type Mistake = 'none' | 'leave-one-out' | 'unknown-id' | 'answer-twice';

class Approve extends Step {
  constructor(
    readonly chat: number,
    readonly picks: readonly AnswerPick[],
    readonly mistake: Mistake,
  ) {
    super();
  }
  override check(model: Readonly<InvariantModel>): boolean {
    return this.mistake !== 'none' || model.waiting.some((count) => count > 0);
  }
  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    // The chat picked, or the other one when only that one has calls waiting: most answers should have something to answer.
    let chatId = chatOf(world, this.chat);
    let waiting = (await harness.ok('approvals.pending', { chatId })).approvals;
    if (waiting.length === 0) {
      chatId = chatOf(world, this.chat + 1);
      waiting = (await harness.ok('approvals.pending', { chatId })).approvals;
    }
    let expected: 'ok' | 'refused' | 'either' = waiting.length === 0 || this.mistake !== 'none' ? 'refused' : 'ok';
    const answers: ToolCallApproval[] = [];
    const made: MadeAllow[] = [];
    for (const [index, approval] of waiting.entries()) {
      const pick = this.picks[index % this.picks.length] as AnswerPick;
      const { request } = approval;
      // A server under another name, or another server with Files' tools (invariant-catalogue.ts IDENTITY_LABELS).
      const label = harness.bindings.get(request.serverName)?.label;
      const catalogueName = label === 'Other' ? 'Files' : (label ?? request.serverName);
      const tool = TOOLS.find(
        (candidate) => candidate.serverName === catalogueName && candidate.name === request.toolName,
      );
      if (label === undefined && expected === 'ok') expected = 'either';
      const answer: ToolCallApproval = {
        toolCallId: request.toolCallId,
        decision: pick.decision,
        ...(pick.reason === null ? {} : { reason: pick.reason }),
      };
      if (pick.edit !== null && tool) {
        answer.editedArgs = {
          ...request.args,
          [tool.field]: pick.edit === 'wrong-type' ? 42 : valueFor(tool.field, pick.edit),
        };
        // An edit goes with an allow only, and must fit the tool's schema.
        if (pick.decision === 'TOOL_CALL_DECISION_DENY' || pick.edit === 'wrong-type') expected = 'refused';
      }
      // What a deny rule in force matches may be refused outright or denied when it would run; both keep the promise.
      const effective = answer.editedArgs ?? request.args;
      const denyHit = harness.denyHits(request.serverName, request.toolName, effective).length > 0;
      if (expected === 'ok' && pick.decision !== 'TOOL_CALL_DECISION_DENY' && denyHit) expected = 'either';
      if (pick.remember !== 'none' && tool) {
        if (pick.remember === 'tool' || pick.remember === 'server') answer.remember = { kind: pick.remember };
        else {
          const id = `inv-remembered-${(rememberedRules += 1)}`;
          const args =
            pick.remember === 'wide-rule'
              ? [{ pointer: `/${tool.field}`, match: 'glob' as const, value: '**' }]
              : (
                  await harness.ok('approvals.rememberOptions', {
                    chatId,
                    toolCallId: request.toolCallId,
                    ...(answer.editedArgs ? { args: answer.editedArgs } : {}),
                  })
                ).rule.args;
          answer.remember = { kind: 'rule', id, args };
        }
        // Remembering goes with an allow only; a deny rule that catches the call refuses the whole answer.
        if (pick.decision === 'TOOL_CALL_DECISION_DENY' || denyHit) expected = 'refused';
        else if (expected === 'ok') expected = 'either';
      }
      answers.push(answer);
      if (
        label !== undefined &&
        pick.decision !== 'TOOL_CALL_DECISION_DENY' &&
        (pick.remember !== 'none' || pick.decision === 'TOOL_CALL_DECISION_ALLOW_SESSION')
      )
        made.push({ label, name: request.serverName, what: `${pick.decision} remember=${pick.remember}` });
    }
    // A lone call answered Allow once or Deny, as it is: pressed on its desktop notification instead of the card
    // (which carries no reason for a denial).
    const [only] = answers;
    if (this.mistake === 'none' && waiting.length === 1 && only && pressable(only)) {
      pressOnNotification(world, chatId, waiting[0] as PendingApproval, only.decision, expected);
      return;
    }
    // Nothing waits: a notification left on screen from a call decided long ago is pressed, and decides nothing.
    if (waiting.length === 0) pressStaleNotifications(world);
    if (this.mistake === 'leave-one-out') answers.pop();
    if (this.mistake === 'unknown-id' || answers.length === 0)
      answers.push({ toolCallId: 'no-such-call', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' });
    if (this.mistake === 'answer-twice' && answers[0])
      answers.push({ ...answers[0], decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' });
    const envelope = await harness.call('chat.send', {
      chatId,
      message: { role: 'approval', toolCallApprovals: answers },
    });
    expectOutcome(world, `chat.send ${JSON.stringify(answers)}`, envelope, answers.length === 0 ? 'refused' : expected);
    if (envelope.ok) {
      harness.madeAllows.push(...made);
      harness.tally.approvalsApplied += 1;
      harness.tally.editsApplied += answers.filter((answer) => answer.editedArgs !== undefined).length;
      harness.tally.remembered += answers.filter((answer) => answer.remember !== undefined).length;
    } else harness.tally.approvalsRefused += 1;
  }
  toString(): string {
    const picks = this.picks
      .map(
        (pick) =>
          `${pick.decision.replace('TOOL_CALL_DECISION_', '')}${pick.edit === null ? '' : ` edit=${pick.edit}`}${pick.remember === 'none' ? '' : ` remember=${pick.remember}`}`,
      )
      .join(', ');
    return `approve(chat ${this.chat}, [${picks}]${this.mistake === 'none' ? '' : `, ${this.mistake}`})`;
  }
}

// ── The desktop notification's Allow once / Deny (docs/user/desktop.md#desktop-features) ─────────────

/** The notifications shown in each run, pressed again once their call was decided. */
const notified = new WeakMap<InvariantWorld['harness'], NotificationPlan[]>();

function pressable(answer: ToolCallApproval): boolean {
  return (
    (answer.decision === 'TOOL_CALL_DECISION_ALLOW_ONCE' || answer.decision === 'TOOL_CALL_DECISION_DENY') &&
    answer.editedArgs === undefined &&
    answer.remember === undefined
  );
}

/** The notifier the desktop shell runs, over the run's services, with Electron's Notification stood in. */
function notifierOf(world: InvariantWorld): NotificationDecisions {
  const services = world.harness.services();
  return createNotificationDecisions({
    Notification: StandInNotification,
    waiting: (chatId) => services.approvals.pending.list(chatId),
    send: (chatId, message, origin) => services.conversations.send(chatId, message, origin),
    open: () => undefined,
  });
}

function pressOnNotification(
  world: InvariantWorld,
  chatId: string,
  approval: PendingApproval,
  decision: ToolCallApproval['decision'],
  expected: 'ok' | 'refused' | 'either',
): void {
  const { harness } = world;
  const { request } = approval;
  const plan = {
    title: `${request.serverName} wants to run ${request.toolName}`,
    body: 'Review the call in AI Workbench: it runs only if you allow it.',
    chatId,
    toolCallId: request.toolCallId,
  };
  const made = StandInNotification.made.length;
  notifierOf(world).show(plan);
  const notification = StandInNotification.made[made];
  if (!notification) throw new Error('no notification was shown');
  const shownText = JSON.stringify(notification.options);
  for (const value of Object.values(request.args))
    if (typeof value === 'string' && value.length > 2 && shownText.includes(value))
      throw new Error(`the notification shows the arguments: ${shownText}`);
  notification.press(decision === 'TOOL_CALL_DECISION_DENY' ? 'Deny' : 'Allow once');
  const applied = !harness
    .services()
    .approvals.pending.list(chatId)
    .some((waiting) => waiting.request.toolCallId === request.toolCallId);
  harness.log.push(
    `  pressed ${decision.replace('TOOL_CALL_DECISION_', '')} on the notification of ${request.serverName}.${request.toolName} → ${applied ? 'applied' : 'not applied'}`,
  );
  if (expected === 'ok' && !applied) throw new Error(`the notification's ${decision} should have been applied`);
  if (expected === 'refused' && applied) throw new Error(`the notification's ${decision} should have been refused`);
  notified.set(harness, [...(notified.get(harness) ?? []), plan]);
  StandInNotification.made = [];
  if (!applied) return;
  harness.tally.notificationDecisions += 1;
  // Pressed again at once (a second click, a second notification of the same call): already decided, refused.
  pressLate(world, plan);
}

/**
 * A press on the notification of a call that was decided, as if it raced the decision: the notifier is told the call
 * still waits, so the engine itself must refuse it (nothing applied, no decision row: invariant 3).
 */
function pressLate(world: InvariantWorld, plan: NotificationPlan): void {
  const { harness } = world;
  const made = StandInNotification.made.length;
  const racing = createNotificationDecisions({
    Notification: StandInNotification,
    waiting: () => [{ request: { toolCallId: plan.toolCallId } } as PendingApproval],
    send: (chatId, message, origin) => harness.services().conversations.send(chatId, message, origin),
    open: () => undefined,
  });
  racing.show(plan);
  StandInNotification.made[made]?.press('Allow once');
  const refused = StandInNotification.made.slice(made).some((shown) => shown.options.title.startsWith('Not decided'));
  harness.log.push(
    `  Allow once pressed late on the notification of ${plan.toolCallId} → ${refused ? 'refused' : 'applied'}`,
  );
  if (!refused) throw new Error(`a late press on the notification of the decided call ${plan.toolCallId} was applied`);
  harness.tally.notificationRefused += 1;
  StandInNotification.made = [];
}

/** Every notification shown earlier in the run, pressed now that nothing waits (decided, expired, stopped). */
function pressStaleNotifications(world: InvariantWorld): void {
  for (const plan of notified.get(world.harness) ?? []) pressLate(world, plan);
}

/** One answer to a server's sampling request, at either of its stages. */
export interface ServerRequestPick {
  action: 'allow-once' | 'allow-chat' | 'deny';
  /** Edit the request's text before allowing it: bring in the word the `sampling-secret` rule is about, or take it out. */
  edit: 'none' | 'add-secret' | 'remove-secret';
  /** The model's answer: let it go back as written, edited, or not at all. */
  answer: 'send' | 'send-edited' | 'deny';
}

/**
 * Another process answers (docs/user/approvals.md#one-inbox): a second connection to the database writes the answer
 * row itself, addressed to the process that holds the request, as `workbench approvals` or the app's inbox would (the
 * two sources in turn) — but unchecked, as a hostile writer would; the holder then takes it. What the holder says is the envelope. An answer only the card gives
 * (`relayProblem`) must be refused; any other must come out as the card's answer would.
 */
function relayed(
  world: InvariantWorld,
  request: ServerRequestView,
  decision: Record<string, unknown>,
  cardExpects: 'ok' | 'refused',
): { envelope: Envelope; expected: 'ok' | 'refused' } {
  const { harness } = world;
  const services = harness.services();
  const writer = new BetterSqlite3(services.databaseFile, { fileMustExist: true });
  const answerId = `relayed-${++relayNonce}`;
  const origin = relayNonce % 2 === 0 ? 'app' : 'cli';
  try {
    const held = writer
      .prepare(
        "SELECT owner FROM pending_requests WHERE request_id IN (?, ?) AND status = 'pending' ORDER BY rowid DESC LIMIT 1",
      )
      .get(request.id, `${request.id}#answer`) as { owner: string | null } | undefined;
    writer
      .prepare(
        'INSERT INTO pending_answers (answer_id, request_id, owner, decision, origin, created_at) VALUES (?, ?, ?, ?, ?, 0)',
      )
      .run(answerId, request.id, held?.owner ?? 'nobody', JSON.stringify(decision), origin);
  } finally {
    writer.close();
  }
  services.approvals.pending.serverRequests.takeAnswers();
  const result = services.approvals.pending.serverRequests.relayed(answerId);
  const envelope: Envelope =
    result?.applied === true
      ? { ok: true, value: { request: null } }
      : { ok: false, error: { code: 'conflict', message: result?.why ?? 'the holder never took the answer' } };
  const expected = onlyOnTheCard(request, decision) ? 'refused' : cardExpects;
  if (envelope.ok) harness.tally.relayedApplied += 1;
  else harness.tally.relayedRefused += 1;
  return { envelope, expected };
}
let relayNonce = 0;

/**
 * The answers another process may not give (docs/user/approvals.md#one-inbox), written out here apart from the
 * engine's own `relayProblem`, so that a mistake there cannot hide itself: "Allow for this chat", an edit, opening a
 * page.
 */
const onlyOnTheCard = (request: ServerRequestView, decision: Record<string, unknown>): boolean =>
  decision['action'] === 'allow-chat' ||
  decision['messages'] !== undefined ||
  decision['systemPrompt'] !== undefined ||
  decision['text'] !== undefined ||
  (request.kind === 'elicitation' && request.mode === 'url' && decision['action'] === 'accept');

/**
 * A forger writes a copy of the waiting request whose record names pid 1 — a running process that is no AI Workbench
 * holder — as its holder (docs/user/approvals.md#one-inbox): the copy must not be listed, and the same answer to it
 * through the contract must be refused at once as `conflict`, with nothing written to the answers inbox. The copy
 * goes afterwards, so the world is as it was.
 */
async function forgedHolderRefused(
  world: InvariantWorld,
  request: ServerRequestView,
  decision: Record<string, unknown>,
): Promise<void> {
  const { harness } = world;
  const writer = new BetterSqlite3(harness.services().databaseFile, { fileMustExist: true });
  const id = `f0f0f0f0-0000-4000-8000-${String(++relayNonce).padStart(12, '0')}`;
  const answers = (): number => (writer.prepare('SELECT count(*) AS n FROM pending_answers').get() as { n: number }).n;
  try {
    writer
      .prepare(
        'INSERT INTO pending_requests (chat_id, request_id, kind, request, created_at, owner) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        request.chatId,
        id,
        request.kind,
        JSON.stringify({ ...request, id }),
        request.createdAt,
        '1:forged:cli chat',
      );
    const before = answers();
    const listed = await harness.call('serverRequests.list', {});
    if (listed.ok && (listed.value as { requests: ServerRequestView[] }).requests.some((item) => item.id === id))
      throw new Error('a request whose record names pid 1 as its holder was listed');
    const envelope = await harness.call('serverRequests.decide', { id, decision } as never);
    if (envelope.ok || envelope.error.code !== 'conflict')
      throw new Error(
        `an answer to a request whose record names pid 1 as its holder was not refused as conflict: ${JSON.stringify(envelope)}`,
      );
    if (answers() !== before) throw new Error('an answer was written for a request whose record names pid 1');
    harness.tally.forgedHoldersRefused += 1;
  } finally {
    writer.prepare('DELETE FROM pending_requests WHERE request_id = ?').run(id);
    writer.close();
  }
}

/** How many server requests of each kind a run answered: every second answer of a kind comes from another process. */
const answersGiven = new WeakMap<Harness, Map<string, number>>();

/**
 * Answers a request: on the card (the contract), or — every second answer of a kind in a run — from another process
 * through the answers inbox. Returns the envelope and what the answer must come to.
 */
async function answerRequest(
  world: InvariantWorld,
  request: ServerRequestView,
  decision: Record<string, unknown>,
  cardExpects: 'ok' | 'refused' = 'ok',
): Promise<{ envelope: Envelope; expected: 'ok' | 'refused'; how: string }> {
  const given = answersGiven.get(world.harness) ?? new Map<string, number>();
  answersGiven.set(world.harness, given);
  const answered = (given.get(request.kind) ?? 0) + 1;
  given.set(request.kind, answered);
  if (answered % 2 === 0 && request.kind !== 'sandbox-widening') {
    await forgedHolderRefused(world, request, decision);
    return { ...relayed(world, request, decision, cardExpects), how: 'from another process ' };
  }
  const envelope = await world.harness.call('serverRequests.decide', { id: request.id, decision } as never);
  return { envelope, expected: cardExpects, how: '' };
}

class DecideServerRequests extends Step {
  constructor(readonly picks: readonly ServerRequestPick[]) {
    super();
  }
  override check(model: Readonly<InvariantModel>): boolean {
    return model.serverWaiting > 0;
  }
  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    const { requests } = await harness.ok('serverRequests.list', {});
    for (const [index, request] of requests.entries()) {
      const pick = this.picks[index % this.picks.length] as ServerRequestPick;
      if (request.kind === 'app-tool-call') {
        // A view's call: allowed once, for the chat (a grant for this server's app), or denied.
        const decision = { action: pick.action };
        const { envelope, expected, how } = await answerRequest(world, request, decision);
        expectOutcome(world, `serverRequests.decide ${how}app call ${JSON.stringify(decision)}`, envelope, expected);
        if (envelope.ok) {
          harness.appAnswers.set(request.id, pick.action);
          harness.tally.appCallDecisions += 1;
          const label = harness.bindings.get(request.serverName)?.label;
          if (pick.action === 'allow-chat' && label !== undefined)
            harness.madeAllows.push({ label, name: request.serverName, what: 'app allow-chat' });
        }
        continue;
      }
      if (request.kind === 'sandbox-widening') {
        // A widening the steps did not ask for is never allowed here: denied, which grants nothing.
        const envelope = await harness.call('serverRequests.decide', { id: request.id, decision: { action: 'deny' } });
        expectOutcome(world, 'serverRequests.decide widening deny', envelope, 'ok');
        continue;
      }
      if (request.kind === 'elicitation' && request.mode === 'url') {
        // A page to open before a call is sent again (-32042): accepted, or declined (the call then ends unsent).
        const decision = { action: pick.action === 'deny' ? 'decline' : 'accept' };
        const { envelope, expected, how } = await answerRequest(world, request, decision);
        expectOutcome(world, `serverRequests.decide ${how}page ${JSON.stringify(decision)}`, envelope, expected);
        if (envelope.ok) harness.tally.serverRequestDecisions += 1;
        continue;
      }
      if (request.kind === 'elicitation') {
        // Shell's form asks to confirm: accept with what the person types, or decline, or cancel.
        const nonce = /confirm (n\d+)/.exec(request.message)?.[1] ?? 'n?';
        const decision =
          pick.action === 'deny'
            ? { action: pick.answer === 'deny' ? 'cancel' : 'decline' }
            : { action: 'accept', content: elicitationContent(nonce) };
        const { envelope, expected, how } = await answerRequest(world, request, decision);
        expectOutcome(world, `serverRequests.decide ${how}elicitation ${JSON.stringify(decision)}`, envelope, expected);
        if (envelope.ok) harness.tally.serverRequestDecisions += 1;
        continue;
      }
      let decision: Record<string, unknown>;
      let expected: 'ok' | 'refused' = 'ok';
      if (request.stage === 'request') {
        const text = request.messages[0]?.text ?? '';
        decision = { action: pick.action };
        if (pick.action !== 'deny' && pick.edit !== 'none') {
          const edited =
            pick.edit === 'add-secret' ? `${text.replace(' secret', '')} secret` : text.replace(' secret', '');
          decision['messages'] = [edited];
          // A deny rule (or the server's sampling set to deny meanwhile) must not be edited around: such an edit is refused outright.
          if (
            harness.denyHits(request.serverName, 'sampling', { messages: [{ role: 'user', text: edited }] }).length > 0
          )
            expected = 'refused';
          if (harness.samplingSetting() === 'deny') expected = 'refused';
        }
        if (pick.action === 'allow-chat' && request.chatId === null) expected = 'refused';
      } else {
        decision =
          pick.answer === 'deny'
            ? { action: 'deny' }
            : {
                action: 'send',
                ...(pick.answer === 'send-edited' ? { text: `${request.answer?.text ?? ''} (edited)` } : {}),
              };
      }
      const answered = await answerRequest(world, request, decision, expected);
      const { envelope } = answered;
      expectOutcome(
        world,
        `serverRequests.decide ${answered.how}${request.stage} ${JSON.stringify(decision)}`,
        envelope,
        answered.expected,
      );
      if (envelope.ok) harness.tally.serverRequestDecisions += 1;
    }
    await appCallsAnswered(world);
  }
  toString(): string {
    return `decideServerRequests([${this.picks.map((pick) => `${pick.action}${pick.edit === 'none' ? '' : ` ${pick.edit}`}, answer ${pick.answer}`).join('; ')}])`;
  }
}

/** One server reconnects alone (`mcp.restart`), while calls may wait for a person, a page, or run. */
class Reconnect extends Step {
  constructor(readonly server: string) {
    super();
  }
  protected async act(world: InvariantWorld): Promise<void> {
    // The server by the name it has now; one removed cannot reconnect.
    const name = world.harness.roleNames.get(this.server) ?? this.server;
    const bound = world.harness.bindings.has(name);
    const envelope = await world.harness.call('mcp.restart', { name });
    expectOutcome(world, `mcp.restart ${name}`, envelope, bound ? 'ok' : 'refused');
    await world.harness.services().mcp.whenSettled();
    if (envelope.ok) world.harness.tally.reconnects += 1;
  }
  toString(): string {
    return `reconnect(${this.server})`;
  }
}

/**
 * A step on the contained probe's sandbox profile, through the engine (invariant-sandbox.ts): a widening request
 * allowed, denied or left waiting, a narrowing, or a read. The probe is added to the run's services on the first.
 */
export class SandboxChange extends Step {
  constructor(readonly change: Exclude<SandboxStep, { kind: 'lock' }>) {
    super();
  }
  protected async act(world: InvariantWorld): Promise<void> {
    const probe = await world.harness.sandbox();
    await probe.step(this.change);
  }
  toString(): string {
    return `sandbox ${JSON.stringify(this.change)}`;
  }
}

class Stop extends Step {
  constructor(readonly chat: number) {
    super();
  }
  protected async act(world: InvariantWorld): Promise<void> {
    const { stopped } = await world.harness.ok('chat.stop', { chatId: chatOf(world, this.chat) });
    world.harness.log.push(`  chat.stop → stopped: ${stopped}`);
    if (stopped) world.harness.tally.stops += 1;
    // A view stays after a stop, and may still ask.
    await appAsks(world, this.chat + 1, this.chat, world.harness.tally.stops);
  }
  toString(): string {
    return `stop(chat ${this.chat})`;
  }
}

// ── The person's settings ────────────────────────────────────────────────────────────────────

export type PolicyChange =
  | { kind: 'add-rule'; rule: string; effect: RuleEffect; first: boolean }
  | { kind: 'remove-rule'; pick: number }
  | { kind: 'mode'; mode: GlobalApprovalMode }
  | { kind: 'tool'; tool: number; setting: ToolApprovalSetting }
  | { kind: 'server'; server: string; autoApprove: boolean }
  | { kind: 'timeout'; seconds: number }
  | { kind: 'trust'; server: string; trusted: boolean }
  | { kind: 'sampling'; setting: 'ask' | 'allow' | 'deny' };

class ChangePolicy extends Step {
  constructor(readonly change: PolicyChange) {
    super();
  }
  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    const change = this.change;
    // The catalogue's servers by the names they have now (a step may have renamed or removed Files).
    const nameOf = (catalogueName: string): string => harness.roleNames.get(catalogueName) ?? catalogueName;
    const allows = (name: string, what: string): void => {
      // What is set for a name no server has is made for no server: it must not allow one added under it later.
      const label = harness.bindings.get(name)?.label;
      if (label !== undefined) harness.madeAllows.push({ label, name, what });
    };
    if (change.kind === 'trust') {
      const name = nameOf(change.server);
      const envelope = await harness.call('mcp.edit', { name, trusted: change.trusted });
      expectOutcome(world, 'mcp.edit', envelope, harness.bindings.has(name) ? 'ok' : 'refused');
      if (envelope.ok && change.trusted) allows(name, 'trusted');
      await harness.services().mcp.whenSettled();
      harness.tally.policyChanges += 1;
      return;
    }
    let update: object;
    switch (change.kind) {
      case 'add-rule':
        update = {
          rules: {
            add: [ruleDraft(change.rule, change.effect, `${change.rule}--${world.nextRuleId++}`)],
            ...(change.first ? { index: 0 } : {}),
          },
        };
        break;
      case 'remove-rule': {
        const rules = harness.userRules();
        if (rules.length === 0) return;
        update = { rules: { remove: [(rules[change.pick % rules.length] as { id: string }).id] } };
        break;
      }
      case 'mode':
        update = { mode: change.mode };
        break;
      case 'tool': {
        const tool = TOOLS[change.tool % TOOLS.length] as (typeof TOOLS)[number];
        update = { tools: { [nameOf(tool.serverName)]: { [tool.name]: change.setting } } };
        if (change.setting === 'auto-approve') allows(nameOf(tool.serverName), `tool ${tool.name} auto-approve`);
        break;
      }
      case 'server':
        update = { servers: { [nameOf(change.server)]: { autoApprove: change.autoApprove } } };
        if (change.autoApprove) allows(nameOf(change.server), 'server auto-approve');
        break;
      case 'timeout':
        update = { timeoutSeconds: change.seconds };
        break;
      case 'sampling':
        update = { servers: { Shell: { sampling: change.setting } } };
        break;
    }
    const envelope = await harness.call('policy.update', update);
    expectOutcome(world, 'policy.update', envelope, 'ok');
    if (envelope.ok) harness.noteView(envelope.value as Parameters<Harness['noteView']>[0]);
    harness.tally.policyChanges += 1;
  }
  toString(): string {
    return `policy(${JSON.stringify(this.change)})`;
  }
}

// ── What a server is: rename, remove, and add again (docs/user/approvals.md, "A server's identity") ──

/** The names the lifecycle steps give Files' server, or another server, or Files again. */
const SERVER_NAME_POOL = ['Files', 'Docs', 'Twin'] as const;

export type Lifecycle =
  /** The server the model calls Files' tools by is renamed. */
  | { kind: 'rename'; to: string }
  | { kind: 'remove' }
  /** Another server (with Files' tools) is added under a name: freed by Files, or never used. */
  | { kind: 'add-other'; name: string }
  /** The very same server as Files is added (again) under a name. */
  | { kind: 'add-same'; name: string }
  /**
   * The person sets Files' server to auto-approve, then it is removed and another server added under the name it
   * freed: nothing of the first may allow the second.
   */
  | { kind: 'replace' }
  /**
   * The server the model calls Files' tools by is pointed at another server (Other) without the person accepting it,
   * as a hand edit of settings.json would: it must not be started (connected to) until accepted.
   */
  | { kind: 'repoint' }
  /**
   * The same by a save of settings.json on disk (an editor's save: a new file renamed over it), which the live watch
   * reads again (settings/settings-watch.ts): the server's entry now names Other, its record of what was accepted stays.
   */
  | { kind: 'repoint-file' }
  /** The person accepts what that server runs now: its settings count for it, and it starts. */
  | { kind: 'accept' };

class ServerLifecycle extends Step {
  constructor(readonly change: Lifecycle) {
    super();
  }
  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    const change = this.change;
    const current = harness.roleNames.get('Files') ?? 'Files';
    const taken = (name: string): boolean =>
      [...harness.bindings.keys()].some((other) => other.toLowerCase() === name.toLowerCase());
    if (change.kind === 'rename') {
      if (await renameRole(world, 'Files', change.to)) harness.tally.renames += 1;
    } else if (change.kind === 'repoint') {
      const binding = harness.bindings.get(current);
      const { url, slot } = harness.urlFor('Other');
      const envelope = await harness.call('mcp.edit', { name: current, url });
      expectOutcome(world, `mcp.edit ${current} url → Other`, envelope, binding ? 'ok' : 'refused');
      if (envelope.ok && binding) {
        harness.bind(current, {
          ...binding,
          label: 'Other',
          slot,
          acceptedLabel: binding.acceptedLabel ?? binding.label,
        });
        harness.tally.repointed += 1;
      }
    } else if (change.kind === 'repoint-file') {
      const binding = harness.bindings.get(current);
      // No entry of that name on disk (it was removed): a save has nothing of it to change.
      if (binding) {
        const { url, slot } = harness.urlFor('Other');
        await saveServersByHand(harness.services(), world.advanceTime, (servers) => {
          const entry = servers[current];
          if (!entry) throw new Error(`settings.json has no server named ${current}`);
          entry['url'] = url;
        });
        harness.bind(current, {
          ...binding,
          label: 'Other',
          slot,
          acceptedLabel: binding.acceptedLabel ?? binding.label,
        });
        harness.tally.repointedByFile += 1;
      }
    } else if (change.kind === 'accept') {
      const envelope = await harness.call('mcp.edit', { name: current, acceptIdentity: true });
      expectOutcome(
        world,
        `mcp.edit ${current} acceptIdentity`,
        envelope,
        harness.bindings.has(current) ? 'ok' : 'refused',
      );
      const binding = harness.bindings.get(current);
      if (envelope.ok && binding) {
        // "Use my settings for what it runs now": what was made under the name is for what it runs now.
        harness.madeAllows.splice(
          0,
          harness.madeAllows.length,
          ...harness.madeAllows.map((made) => (made.name === current ? { ...made, label: binding.label } : made)),
        );
        harness.bind(current, { ...binding, acceptedLabel: undefined });
        harness.tally.accepted += 1;
      }
    } else if (change.kind === 'remove' || change.kind === 'replace') {
      const binding = harness.bindings.get(current);
      if (change.kind === 'replace' && binding) {
        const view = await harness.ok('policy.update', { servers: { [current]: { autoApprove: true } } });
        harness.noteView(view);
        harness.madeAllows.push({ label: binding.label, name: current, what: 'server auto-approve' });
      }
      const envelope = await harness.call('mcp.remove', { name: current });
      expectOutcome(world, `mcp.remove ${current}`, envelope, harness.bindings.has(current) ? 'ok' : 'refused');
      if (envelope.ok) {
        harness.bind(current, null);
        // Nothing made for it is kept (docs/user/approvals.md): what was made under this name allows no one now.
        harness.madeAllows.splice(
          0,
          harness.madeAllows.length,
          ...harness.madeAllows.filter((made) => made.name !== current),
        );
        harness.tally.removals += 1;
      }
      if (envelope.ok && change.kind === 'replace') {
        const { url, slot } = harness.urlFor('Other');
        const added = await harness.call('mcp.add', { name: current, server: { url, type: 'http' } });
        expectOutcome(world, `mcp.add ${current} (Other)`, added, 'ok');
        harness.bind(current, { label: 'Other', slot, formerNames: [], reused: true });
        harness.tally.addedOther += 1;
      }
    } else {
      const label = change.kind === 'add-other' ? 'Other' : 'Files';
      const { url, slot } = harness.urlFor(label);
      const envelope = await harness.call('mcp.add', { name: change.name, server: { url, type: 'http' } });
      expectOutcome(world, `mcp.add ${change.name} (${label})`, envelope, taken(change.name) ? 'refused' : 'ok');
      if (envelope.ok) {
        const reused = harness.wasNamed(change.name);
        harness.bind(change.name, { label, slot, formerNames: [], reused });
        harness.roleNames.set('Files', change.name);
        if (change.kind === 'add-other') harness.tally.addedOther += 1;
        else harness.tally.addedSame += 1;
      }
    }
    await harness.services().mcp.whenSettled();
    harness.noteView(await harness.ok('policy.get'));
    // A view shown before the name changed hands asks again: its calls must not reach another server (a stale view,
    // docs/user/mcp-apps.md#a-view-belongs-to-its-server).
    if (change.kind !== 'add-same')
      for (const chat of [0, 1]) await appAsks(world, chat, harness.tally.removals + chat, harness.tally.renames);
  }
  toString(): string {
    return `server(${JSON.stringify(this.change)})`;
  }
}

/** A repoint or an acceptance, planned apart from the commands (identityPlanArb). */
export class IdentityChange extends ServerLifecycle {}

/** The names Term's lifecycle steps give it. */
const TERM_NAME_POOL = ['Term', 'Cmd'] as const;

/**
 * What happens to the stdio server (Term) as to the HTTP ones: renamed, removed and added again under its name (the
 * same program, or TermOther: the same program with another argument, so another identity), its command pointed at
 * TermOther without the person accepting it (as a hand edit would), and accepted. The slot naming each add comes in
 * its environment, which is no part of what it is.
 */
export type TermChange =
  { kind: 'rename'; to: string } | { kind: 'readd'; other: boolean } | { kind: 'repoint' } | { kind: 'accept' };

const termArgs = (label: string): string[] => (label === STDIO_OTHER_LABEL ? [STDIO_SERVER, 'other'] : [STDIO_SERVER]);

class TermLifecycle extends Step {
  constructor(readonly change: TermChange) {
    super();
  }
  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    const change = this.change;
    const current = harness.roleNames.get(STDIO_LABEL) ?? STDIO_LABEL;
    const binding = harness.bindings.get(current);
    const taken = (name: string): boolean =>
      [...harness.bindings.keys()].some((other) => other.toLowerCase() === name.toLowerCase());
    const tally = harness.tally.termLifecycle;
    if (change.kind === 'rename') {
      if (await renameRole(world, STDIO_LABEL, change.to)) tally.renames += 1;
    } else if (change.kind === 'readd') {
      const removed = await harness.call('mcp.remove', { name: current });
      expectOutcome(world, `mcp.remove ${current}`, removed, binding ? 'ok' : 'refused');
      if (removed.ok) {
        harness.bind(current, null);
        harness.madeAllows.splice(
          0,
          harness.madeAllows.length,
          ...harness.madeAllows.filter((made) => made.name !== current),
        );
      }
      const label = change.other ? STDIO_OTHER_LABEL : STDIO_LABEL;
      const slot = `t${tally.readded + tally.readdedOther + 1}`;
      const added = await harness.call('mcp.add', {
        name: current,
        server: { command: process.execPath, args: termArgs(label), env: { INVARIANT_SLOT: slot } },
      });
      expectOutcome(world, `mcp.add ${current} (${label})`, added, taken(current) ? 'refused' : 'ok');
      if (added.ok) {
        harness.bind(current, { label, slot, formerNames: [], reused: true });
        if (change.other) tally.readdedOther += 1;
        else tally.readded += 1;
      }
    } else if (change.kind === 'repoint') {
      const label = binding?.label === STDIO_OTHER_LABEL ? STDIO_LABEL : STDIO_OTHER_LABEL;
      const envelope = await harness.call('mcp.edit', { name: current, args: termArgs(label) });
      expectOutcome(world, `mcp.edit ${current} args → ${label}`, envelope, binding ? 'ok' : 'refused');
      if (envelope.ok && binding) {
        harness.bind(current, { ...binding, label, acceptedLabel: binding.acceptedLabel ?? binding.label });
        tally.repointed += 1;
      }
    } else {
      const envelope = await harness.call('mcp.edit', { name: current, acceptIdentity: true });
      expectOutcome(world, `mcp.edit ${current} acceptIdentity`, envelope, binding ? 'ok' : 'refused');
      if (envelope.ok && binding) {
        harness.madeAllows.splice(
          0,
          harness.madeAllows.length,
          ...harness.madeAllows.map((made) => (made.name === current ? { ...made, label: binding.label } : made)),
        );
        harness.bind(current, { ...binding, acceptedLabel: undefined });
        tally.accepted += 1;
      }
    }
    await harness.services().mcp.whenSettled();
    harness.noteView(await harness.ok('policy.get'));
  }
  toString(): string {
    return `term(${JSON.stringify(this.change)})`;
  }
}

class SetChatMode extends Step {
  constructor(
    readonly chat: number,
    readonly mode: ChatApprovalMode,
  ) {
    super();
  }
  protected async act(world: InvariantWorld): Promise<void> {
    expectOutcome(
      world,
      'approvals.setChatMode',
      await world.harness.call('approvals.setChatMode', { chatId: chatOf(world, this.chat), mode: this.mode }),
      'ok',
    );
    world.harness.tally.policyChanges += 1;
    const index = ['use-tool-settings', 'always-ask', 'never-ask'].indexOf(this.mode);
    await appAsks(world, this.chat, index, index * 2 + this.chat);
  }
  toString(): string {
    return `chatMode(chat ${this.chat}, ${this.mode})`;
  }
}

// ── The clock and the process ────────────────────────────────────────────────────────────────

/** Longer than any timeout the test sets, so every waiting call with a timeout falls due. */
const PAST_EVERY_TIMEOUT_MS = 301_000;

class TimePasses extends Step {
  protected async act(world: InvariantWorld): Promise<void> {
    await world.advanceTime(PAST_EVERY_TIMEOUT_MS);
    world.harness.tally.timeouts += 1;
  }
  toString(): string {
    return 'timePasses(301 s)';
  }
}

class Restart extends Step {
  constructor(
    /** `undefined` keeps the organisation's policy; otherwise the host starts with this one (null: none). */
    readonly managed: ManagedPolicy | null | undefined,
    /** False goes on while the servers start: messages are then offered their tools of the last launch. */
    readonly waitForServers: boolean,
  ) {
    super();
  }
  protected async act(world: InvariantWorld): Promise<void> {
    await world.harness.restart(this.managed, this.waitForServers);
    world.harness.tally.restarts += 1;
  }
  toString(): string {
    return `restart(${this.managed === undefined ? 'same managed policy' : JSON.stringify(this.managed)}${this.waitForServers ? '' : ', servers still starting'})`;
  }
}

// ── Arbitraries ──────────────────────────────────────────────────────────────────────────────

const chatArb = fc.nat({ max: 1 });
const planArb: fc.Arbitrary<Plan> = fc.array(
  fc.array(fc.record({ tool: fc.nat({ max: STDIO_TOOL - 1 }), value: fc.nat({ max: 6 }) }), {
    minLength: 1,
    maxLength: 3,
  }),
  {
    minLength: 1,
    maxLength: 2,
  },
);
const decisionArb = fc.constantFrom<ToolCallApproval['decision']>(
  'TOOL_CALL_DECISION_ALLOW_ONCE',
  'TOOL_CALL_DECISION_ALLOW_SESSION',
  'TOOL_CALL_DECISION_DENY',
);
const answerArb: fc.Arbitrary<AnswerPick> = fc.record({
  decision: decisionArb,
  edit: fc.oneof(
    { arbitrary: fc.constant(null), weight: 6 },
    { arbitrary: fc.nat({ max: 6 }), weight: 5 },
    { arbitrary: fc.constant('wrong-type' as const), weight: 1 },
  ),
  reason: fc.option(fc.constantFrom('not now', 'looks wrong'), { nil: null }),
  remember: fc.oneof(
    { arbitrary: fc.constant('none' as const), weight: 8 },
    {
      arbitrary: fc.constantFrom('tool' as const, 'server' as const, 'rule' as const, 'wide-rule' as const),
      weight: 3,
    },
  ),
});
const mistakeArb: fc.Arbitrary<Mistake> = fc.oneof(
  { arbitrary: fc.constant('none' as const), weight: 8 },
  { arbitrary: fc.constantFrom('leave-one-out' as const, 'unknown-id' as const, 'answer-twice' as const), weight: 1 },
);
const ruleKeyArb = fc.constantFrom(...USER_RULES.map((rule) => rule.key));
const policyChangeArb: fc.Arbitrary<PolicyChange> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('add-rule' as const),
      rule: ruleKeyArb,
      effect: fc.constantFrom<RuleEffect>('deny', 'deny', 'ask', 'allow'),
      first: fc.boolean(),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('remove-rule' as const), pick: fc.nat({ max: 9 }) }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('mode' as const),
      mode: fc.constantFrom<GlobalApprovalMode>('ask', 'auto-approve-read-only-trusted', 'never-ask'),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('tool' as const),
      tool: fc.nat({ max: STDIO_TOOL - 1 }),
      setting: fc.constantFrom<ToolApprovalSetting>('auto-approve', 'always-ask', 'inherit'),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('server' as const),
      server: fc.constantFrom(...HTTP_SERVER_NAMES),
      autoApprove: fc.boolean(),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant('timeout' as const), seconds: fc.constantFrom(0, 1, 30) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('trust' as const),
      server: fc.constantFrom(...HTTP_SERVER_NAMES),
      trusted: fc.boolean(),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('sampling' as const),
      setting: fc.constantFrom('ask' as const, 'allow' as const, 'allow' as const, 'deny' as const),
    }),
    weight: 3,
  },
);
const serverRequestPickArb: fc.Arbitrary<ServerRequestPick> = fc.record({
  action: fc.constantFrom('allow-once' as const, 'allow-once' as const, 'allow-chat' as const, 'deny' as const),
  edit: fc.oneof(
    { arbitrary: fc.constant('none' as const), weight: 3 },
    { arbitrary: fc.constantFrom('add-secret' as const, 'remove-secret' as const), weight: 2 },
  ),
  answer: fc.constantFrom(
    'send' as const,
    'send' as const,
    'send' as const,
    'send-edited' as const,
    'send-edited' as const,
    'deny' as const,
  ),
});

const lifecycleArb: fc.Arbitrary<Lifecycle> = fc.oneof(
  fc.record({ kind: fc.constant('rename' as const), to: fc.constantFrom(...SERVER_NAME_POOL) }),
  fc.constant({ kind: 'remove' as const }),
  fc.constant({ kind: 'replace' as const }),
  fc.record({ kind: fc.constant('add-other' as const), name: fc.constantFrom(...SERVER_NAME_POOL) }),
  fc.record({ kind: fc.constant('add-same' as const), name: fc.constantFrom(...SERVER_NAME_POOL) }),
);

/** An organisation's policy: some of the catalogue's rules, as deny rules; sometimes "never ask" is not allowed. */
export const managedPolicyArb: fc.Arbitrary<ManagedPolicy | null> = fc.option(
  fc.record({
    rules: fc
      .subarray(
        RULES.map((rule) => rule.key),
        { maxLength: 2 },
      )
      .map((keys) =>
        keys.map((key) => ({ ...ruleDraft(key, 'deny', `${key}--org`), effect: 'deny' as const, id: `${key}--org` })),
      ),
    disallowNeverAsk: fc.boolean(),
    defaults: fc.constant({}),
    // Locked ask rules (docs/user/organisation-policy.md): the organisation's, before the person's, never removable.
    locked: fc
      .subarray(
        RULES.map((rule) => rule.key),
        { maxLength: 1 },
      )
      .map((keys) =>
        keys.length === 0
          ? {}
          : {
              rules: keys.map((key) => ({
                ...ruleDraft(key, 'ask', `${key}--org-ask`),
                effect: 'ask' as const,
                id: `${key}--org-ask`,
              })),
            },
      ),
  }),
  { nil: null, freq: 2 },
);

/** The steps above, and `more` from other files (invariant-suggestions.ts). */
export function invariantCommands(
  maxCommands: number,
  more: readonly fc.Arbitrary<Command>[] = [],
): fc.Arbitrary<Iterable<Command>> {
  return fc.commands(
    [
      ...more,
      fc
        .tuple(chatArb, planArb, fc.option(fc.nat({ max: 6 }), { nil: null, freq: 4 }))
        .map(([chat, plan, stopAfter]) => new SendMessage(chat, plan, stopAfter, false)),
      fc.tuple(chatArb, planArb).map(([chat, plan]) => new SendMessage(chat, plan, null, true)),
      fc.tuple(chatArb, planArb).map(([chat, plan]) => new SendMessage(chat, plan, null, true)),
      // A call of Shell's that asks the model (invariant-catalogue.ts, SAMPLING_COMMANDS): `ls` or `echo hi`; twice,
      // so that the server lifecycle steps below leave sampling as often exercised.
      fc
        .tuple(chatArb, fc.constantFrom(0, 1, 5, 6))
        .map(([chat, value]) => new SendMessage(chat, [[{ tool: 2, value }]], null, true)),
      fc
        .tuple(chatArb, fc.constantFrom(0, 1, 5, 6))
        .map(([chat, value]) => new SendMessage(chat, [[{ tool: 2, value }]], null, true)),
      // A call of Shell's that asks the person (ELICITATION_COMMANDS): `format c:`; twice, as sampling above.
      chatArb.map((chat) => new SendMessage(chat, [[{ tool: 2, value: 4 }]], null, true)),
      chatArb.map((chat) => new SendMessage(chat, [[{ tool: 2, value: 4 }]], null, true)),
      fc
        .tuple(chatArb, fc.array(answerArb, { minLength: 1, maxLength: 3 }), mistakeArb)
        .map(([chat, picks, mistake]) => new Approve(chat, picks, mistake)),
      fc
        .tuple(chatArb, fc.array(answerArb, { minLength: 1, maxLength: 3 }))
        .map(([chat, picks]) => new Approve(chat, picks, 'none')),
      fc
        .tuple(chatArb, fc.array(answerArb, { minLength: 1, maxLength: 3 }))
        .map(([chat, picks]) => new Approve(chat, picks, 'none')),
      policyChangeArb.map((change) => new ChangePolicy(change)),
      policyChangeArb.map((change) => new ChangePolicy(change)),
      fc
        .tuple(chatArb, fc.constantFrom<ChatApprovalMode>('use-tool-settings', 'always-ask', 'never-ask'))
        .map(([chat, mode]) => new SetChatMode(chat, mode)),
      fc.array(serverRequestPickArb, { minLength: 1, maxLength: 2 }).map((picks) => new DecideServerRequests(picks)),
      fc.array(serverRequestPickArb, { minLength: 1, maxLength: 2 }).map((picks) => new DecideServerRequests(picks)),
      fc.array(serverRequestPickArb, { minLength: 1, maxLength: 2 }).map((picks) => new DecideServerRequests(picks)),
      chatArb.map((chat) => new Stop(chat)),
      // Files' read_file (tool 1) of every other nonce asks for a page first (-32042) and is sent again once accepted.
      fc
        .tuple(chatArb, fc.nat({ max: 6 }))
        .map(([chat, value]) => new SendMessage(chat, [[{ tool: 1, value }]], null, true)),
      fc
        .tuple(chatArb, fc.nat({ max: 6 }))
        .map(([chat, value]) => new SendMessage(chat, [[{ tool: 1, value }]], null, true)),
      fc.constantFrom(...HTTP_SERVER_NAMES).map((server) => new Reconnect(server)),
      lifecycleArb.map((change) => new ServerLifecycle(change)),
      lifecycleArb.map((change) => new ServerLifecycle(change)),
      fc.constant(new TimePasses()),
      fc
        .tuple(fc.option(managedPolicyArb, { nil: undefined, freq: 2 }), fc.boolean())
        .map(([managed, wait]) => new Restart(managed, wait)),
    ],
    // Long sequences: the holes need a few steps in a row (a rule, a call that waits, an answer).
    { maxCommands, size: 'max' },
  );
}

/**
 * Sandbox steps planned apart from the commands, so that adding them leaves every other step of a seed as it was:
 * each runs before the command at its position (only where a sandbox runs: unconfined, the probe reads anything).
 */
export const sandboxPlanArb: fc.Arbitrary<readonly { at: number; step: Exclude<SandboxStep, { kind: 'lock' }> }[]> =
  sandboxAvailability().available
    ? fc.array(
        fc.record({
          at: fc.nat({ max: 13 }),
          step: sandboxStepArb(2).filter(
            (step): step is Exclude<SandboxStep, { kind: 'lock' }> => step.kind !== 'lock',
          ),
        }),
        { maxLength: 4 },
      )
    : fc.constant([]);

/**
 * What a server runs changed without the person accepting it, and accepted, planned apart from the commands like the
 * sandbox steps (so adding them left every other step of a seed as it was): each runs before the command at its
 * position. Checked after every step: no connection is opened to a server whose identity is not accepted.
 */
export const identityPlanArb: fc.Arbitrary<
  readonly { at: number; change: Extract<Lifecycle, { kind: 'repoint' | 'repoint-file' | 'accept' }> }[]
> = fc.array(
  fc.record({
    at: fc.nat({ max: 13 }),
    change: fc.constantFrom(
      { kind: 'repoint' as const },
      { kind: 'repoint-file' as const },
      { kind: 'accept' as const },
    ),
  }),
  { maxLength: 3 },
);

/**
 * The steps above, one at a time, for a sequence written out by hand (a mutant test: trust-invariant-mutants.test.ts).
 * Each runs as in a random sequence: it acts, waits for the chats to settle, and checks the invariant.
 */
export const invariantSteps = {
  send: (chat: number, plan: Plan): Command => new SendMessage(chat, plan, null, false),
  approve: (chat: number, picks: readonly AnswerPick[]): Command => new Approve(chat, picks, 'none'),
  server: (change: Lifecycle): Command => new ServerLifecycle(change),
  decideServerRequests: (picks: readonly ServerRequestPick[]): Command => new DecideServerRequests(picks),
  stop: (chat: number): Command => new Stop(chat),
  reconnect: (server: string): Command => new Reconnect(server),
  term: (change: TermChange): Command => new TermLifecycle(change),
};

/**
 * The 2026-07-28 stdio server's steps (Term, recording-stdio-server.ts), planned apart from the commands like the
 * sandbox steps: a message whose reply calls Term's `exec` (sometimes beside a call of an HTTP server's tool, both
 * revisions in one reply), or a reconnect of Term (its process started again). Each runs before the command at its
 * position.
 */
export type StdioStep =
  | { kind: 'send'; chat: number; value: number; beside: number | undefined }
  | { kind: 'reconnect' }
  | { kind: 'lifecycle'; change: TermChange };
export const stdioPlanArb: fc.Arbitrary<readonly { at: number; step: StdioStep }[]> = fc.array(
  fc.record({
    at: fc.nat({ max: 13 }),
    step: fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant('send' as const),
          chat: fc.nat({ max: 1 }),
          value: fc.nat({ max: 6 }),
          beside: fc.option(fc.nat({ max: STDIO_TOOL - 1 }), { nil: undefined }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('reconnect' as const) }) },
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant('lifecycle' as const),
          change: fc.oneof(
            fc.record({ kind: fc.constant('rename' as const), to: fc.constantFrom(...TERM_NAME_POOL) }),
            fc.record({ kind: fc.constant('readd' as const), other: fc.boolean() }),
            fc.constant({ kind: 'repoint' as const }),
            fc.constant({ kind: 'accept' as const }),
          ),
        }),
      },
    ),
  }),
  { maxLength: 3 },
);

/** The command a planned stdio step runs. */
export function stdioStep(step: StdioStep): Command {
  const calls = [{ tool: STDIO_TOOL, value: step.kind === 'send' ? step.value : 0 }];
  if (step.kind === 'send' && step.beside !== undefined) calls.push({ tool: step.beside, value: step.value });
  const command =
    step.kind === 'reconnect'
      ? new Reconnect(STDIO_LABEL)
      : step.kind === 'lifecycle'
        ? new TermLifecycle(step.change)
        : new SendMessage(step.chat, [calls], null, false);
  command.planned = true;
  return command;
}
