/**
 * Tool calls that a server runs as an MCP task in the trust invariant (docs/dev/testing.md, "The trust invariant";
 * docs/user/mcp-servers.md#tasks): Files' `write_report` (recording-tasks.ts) is called in a step of its own, planned
 * apart from the commands like the stdio server's (so adding it left every other step of a seed as it was). The step
 * sets the tool's own setting or leaves it as the other steps made it (rules, modes, trust, grants, remembered rules,
 * the organisation's rules), sends a message whose reply calls it, answers a call that waits Allow once or leaves it
 * waiting for the other steps (answers, timeouts, restarts), and, when the call's task was created in the step, holds
 * it running and then cancels it, stops the reply while it runs, lets it finish, or keeps it running across the
 * steps after it (`keep`: the reply stopped, the task followed while rules come, servers are renamed, removed or
 * restarted and the app restarts; `watchKeptTasks` runs before each later step and once after the last). Checks (1)
 * and (2) hold every task's `tools/call` to its allow row and each of its legs (`tasks/get`, `tasks/result`, recorded
 * as they arrive) to the deny rules in force then: no task is created that was not allowed, and no leg goes out under
 * a deny rule. The step checks that a cancel reached the server (`tasks/cancel`, the task ends `cancelled`, the call
 * shows cancelled with its task rows) and that none of `tasks/get`, `tasks/result` or `tasks/cancel` ran a tool: the
 * runs counted before and after are the task's one.
 */
import fc from 'fast-check';
import type { ToolCallRecord } from '../../../shared/messages';
import { ruleDraft, TASK_TOOL_INDEX, USER_RULES, type CallArguments } from './invariant-catalogue';
import { InvariantError } from './invariant-checks';
import { chatOf, expectOutcome, Step, type Command, type InvariantWorld } from './invariant-commands';
import { TASK_TOOL, taskControl, type RecordedTask } from './recording-tasks';

export interface TaskStep {
  chat: number;
  /** The call's path (an index into PATHS): some hit the deny rules on Files' `write_*` and on `/etc/`. */
  value: number;
  /** The task tool's own setting before the message, or the state the other steps left (`as-is`). */
  setting: 'as-is' | 'auto-approve' | 'always-ask' | 'inherit';
  /** A call that waits for the person: answered Allow once in the step, or left to the other steps. */
  answer: boolean;
  /** What the person does while its task runs (when it was created in this step). */
  then: 'cancel' | 'stop' | 'finish' | 'keep';
  /** A kept task: before which later step (1: the next) a deny rule on its arguments comes, if the catalogue has one. */
  ruleLater?: number | undefined;
}

/**
 * A task kept running past its step, of either revision (`keep` here, `modernTaskKept` in invariant-tasks-2026.ts), and
 * the call that made it.
 */
export interface KeptTask {
  /** Whose task it is, for the log: "Files' task of t3". */
  readonly what: string;
  readonly revision: '2025-11-25' | '2026-07-28';
  /** The catalogue's server the task runs on (Files, Shell): what a catalogue rule names. */
  readonly serverLabel: string;
  /** The server's slot, its tool and the call's arguments: what a deny rule in force now is matched against. */
  readonly slot: string;
  readonly toolName: string;
  readonly args: CallArguments;
  readonly chatId: string;
  readonly toolCallId: string;
  /** What had reached the model when it was kept, and the words of its result. */
  readonly generations: number;
  readonly resultText: string;
  /** Its status on the server, and how many `tasks/get` (or `tasks/result`) reached the server for it. */
  status(): string;
  looks(): number;
  /** Lets it complete at its next look (and the look held now go). */
  release(): void;
  /** Lets the look at it that its server holds be answered (it arrived before any rule the step added). */
  letGo(): void;
  /** Whether its server holds a look at it now: no leg of it is on its way. */
  waiting(): boolean;
  /** Gives its follower the chance to send its next leg (a turn; on 2026-07-28 the clock moves on to its next poll). */
  poke(): Promise<void>;
  /** Before which later step (1: the next) a deny rule on its arguments comes into force, if any. */
  readonly ruleLater?: number | undefined;
}

/** How many times each kept task was watched. */
const watched = new WeakMap<KeptTask, number>();

/** A deny rule of the catalogue that matches the kept task's call. */
const ruleFor = (task: KeptTask): string | undefined =>
  USER_RULES.find(
    (rule) =>
      (rule.draft.server === '*' || rule.draft.server === task.serverLabel) &&
      rule.matches(task.serverLabel, task.toolName, task.args),
  )?.key;

/** Keeps a task running across the steps after its own, watched by `watchKeptTasks`. */
export function keepTask(world: InvariantWorld, task: KeptTask): void {
  const kept = keptTasks.get(world) ?? [];
  kept.push(task);
  keptTasks.set(world, kept);
  world.harness.tally.keptTasks[task.revision].kept += 1;
  world.harness.log.push(`  ${task.what} is kept running`);
}

/** The tasks each sequence keeps running, until they end. */
const keptTasks = new WeakMap<InvariantWorld, KeptTask[]>();

const BOUND = 200_000;

/** The running task calls of a chat, as its messages show them. */
async function taskCallsOf(world: InvariantWorld, chatId: string): Promise<ToolCallRecord[]> {
  const { messages } = await world.harness.ok('chat.messages', { chatId });
  return messages.flatMap((message) =>
    message.role === 'assistant' ? message.reply.turns.flatMap((turn) => turn.toolCalls ?? []) : [],
  );
}

class TaskCall extends Step {
  constructor(readonly plan: TaskStep) {
    super();
    this.planned = true;
  }

  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    const { plan } = this;
    const chatId = chatOf(world, plan.chat);
    const filesName = harness.roleNames.get('Files') ?? 'Files';
    if (plan.setting !== 'as-is' && harness.bindings.has(filesName)) {
      const view = await harness.ok('policy.update', { tools: { [filesName]: { write_report: plan.setting } } });
      harness.noteView(view);
      const label = harness.bindings.get(filesName)?.label;
      if (plan.setting === 'auto-approve' && label !== undefined)
        harness.madeAllows.push({ label, name: filesName, what: 'tool write_report auto-approve' });
    }
    const before = (await harness.ok('chat.messages', { chatId, limit: 1 })).activity;
    const known = taskControl.tasks.length;
    taskControl.holdNew = true;
    try {
      const envelope = await harness.call('chat.send', {
        chatId,
        message: { role: 'user', text: world.model.messageFor([[{ tool: TASK_TOOL_INDEX, value: plan.value }]]) },
      });
      expectOutcome(world, 'chat.send (a task call)', envelope, before.status === 'idle' ? 'ok' : 'refused');
      if (!envelope.ok) return;
      harness.tally.userMessages += 1;
      harness.tally.tasks.asked += 1;
      let answered = false;
      let task: RecordedTask | undefined;
      for (let turn = 0; turn < BOUND && !task; turn++) {
        task = taskControl.tasks.slice(known).find((candidate) => candidate.held);
        if (task) break;
        const status = harness.services().conversations.activity(chatId).status;
        if (status === 'idle') break;
        if (status !== 'generating' && status !== 'running-tools') {
          // It waits for the person: allowed once here, or left to the other steps.
          if (!plan.answer || answered) break;
          answered = true;
          const waiting = (await harness.ok('approvals.pending', { chatId })).approvals;
          const answers = waiting.map(({ request }) => ({
            toolCallId: request.toolCallId,
            decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' as const,
          }));
          const answer = await harness.call('chat.send', {
            chatId,
            message: { role: 'approval', toolCallApprovals: answers },
          });
          // A deny rule in force catches the call: refused outright, or denied at the door.
          expectOutcome(world, `chat.send ${JSON.stringify(answers)}`, answer, 'either');
          if (answer.ok) harness.tally.approvalsApplied += 1;
          continue;
        }
        await harness.turn();
      }
      if (!task) return;
      harness.tally.tasks.created += 1;
      harness.log.push(`  ${task.serverName} runs the task of ${task.nonce} (held)`);
      await this.whileRunning(world, chatId, task);
    } finally {
      taskControl.holdNew = false;
      taskControl.release();
    }
  }

  /** The person acts while the held task runs; then the checks of what its end did. */
  private async whileRunning(world: InvariantWorld, chatId: string, task: RecordedTask): Promise<void> {
    const { harness } = world;
    const runsBefore = harness.runs.length;
    // The client hears of the task when the server's answer to tools/call arrives: a few turns after it was created.
    let record: ToolCallRecord | undefined;
    for (let turn = 0; turn < BOUND && !record; turn++) {
      // The chat is read every few turns only: the contract's read costs more than a turn.
      if (turn % 10 === 0)
        record = (await taskCallsOf(world, chatId)).find(
          (call) => call.args['nonce'] === task.nonce && call.status === 'running' && call.task !== undefined,
        );
      if (!record) await harness.turn();
    }
    if (!record) throw new Error(`the task of ${task.nonce} runs on the server, but no call of the chat shows it`);
    if (this.plan.then === 'keep') {
      // The reply stops; the task runs on, held, followed across the next steps (watchKeptTasks).
      task.kept = true;
      await harness.ok('chat.stop', { chatId });
      harness.tally.stops += 1;
      keepTask(world, {
        what: `${task.serverName}'s task of ${task.nonce}`,
        revision: '2025-11-25',
        serverLabel: 'Files',
        ruleLater: this.plan.ruleLater,
        slot: task.slot,
        toolName: TASK_TOOL,
        args: task.args,
        chatId,
        toolCallId: record.toolCallId,
        generations: harness.fake.generations().length,
        resultText: `ran ${TASK_TOOL} ${task.nonce}`,
        status: () => task.status,
        looks: () => task.looks,
        release: () => taskControl.releaseKept(task),
        letGo: () => taskControl.letLookGo(task),
        waiting: () => taskControl.lookHeld(task),
        poke: () => harness.turn(),
      });
      return;
    }
    if (this.plan.then === 'cancel') {
      const cancelled = await harness.call('chat.cancelTask', { chatId, toolCallId: record.toolCallId });
      expectOutcome(world, 'chat.cancelTask', cancelled, 'ok');
      for (let turn = 0; turn < BOUND && task.status !== 'cancelled'; turn++) await harness.turn();
      await harness.settle();
      const after = (await taskCallsOf(world, chatId)).find((call) => call.toolCallId === record.toolCallId);
      if (task.status !== 'cancelled' || after?.status !== 'cancelled')
        throw new InvariantError(
          "a task call's cancel did not reach its server",
          `${task.serverName}'s task of ${task.nonce} is ${task.status} on the server, the call ${after?.status ?? 'gone'}`,
        );
      const rows = (await harness.ok('audit.query', { limit: 500, kind: 'task' })).entries.filter(
        (row) => row.toolCallId === record.toolCallId,
      );
      // The rows' words (sqlite-audit-log.ts) and the status they carry: the person's cancel, then the task's end.
      const cancelAsked = rows.some((row) => row.actor === 'user' && /^cancel of the task/.test(row.decidedBy ?? ''));
      const endedCancelled = rows.some(
        (row) => row.decidedBy === 'task ended' && (row.args as { status?: string } | null)?.status === 'cancelled',
      );
      if (!cancelAsked || !endedCancelled)
        throw new InvariantError(
          'a cancelled task call is not in the audit log as cancelled',
          `${record.toolCallId}: ${rows.map((row) => `${row.decidedBy ?? ''} ${JSON.stringify(row.args)}`).join('; ') || 'no task rows'}`,
        );
      harness.tally.tasks.cancelled += 1;
    } else {
      if (this.plan.then === 'stop') {
        await harness.ok('chat.stop', { chatId });
        harness.tally.stops += 1;
      }
      taskControl.release();
      // Its polling runs on the timers due now: until its server says it ended, and its result is in its block.
      for (let turn = 0; turn < BOUND; turn++) {
        if (task.status === 'completed' && turn % 10 === 0) {
          const now = (await taskCallsOf(world, chatId)).find((call) => call.toolCallId === record.toolCallId);
          if (now?.status !== 'running') break;
        }
        await harness.turn();
      }
      const after = (await taskCallsOf(world, chatId)).find((call) => call.toolCallId === record.toolCallId);
      if (after?.status !== 'success')
        throw new Error(
          `the task of ${task.nonce} completed on the server, but its call is ${after?.status ?? 'gone'} (${after?.error ?? ''})`,
        );
      if (this.plan.then === 'stop') harness.tally.tasks.detached += 1;
      else harness.tally.tasks.completed += 1;
    }
    // tasks/get, tasks/result and tasks/cancel run no tool: nothing ran on any server since the task was created.
    const more = harness.runs.slice(runsBefore).filter((run) => !run.leg);
    if (more.length > 0)
      throw new InvariantError(
        "a task's cancel or result ran a tool",
        more.map((run) => `${run.serverName}.${run.toolName} ${JSON.stringify(run.args)}`).join('; '),
      );
  }

  toString(): string {
    const { chat, value, setting, answer, then } = this.plan;
    return `task(chat ${chat}, write_report:${value}${setting === 'as-is' ? '' : `, tool ${setting}`}${answer ? ', allow once' : ''}, then ${then})`;
  }
}

/** The audit rows of one call. */
async function rowsOf(world: InvariantWorld, toolCallId: string): Promise<{ decision?: string | null }[]> {
  const { entries } = await world.harness.ok('audit.query', { limit: 500 });
  return entries.filter((row) => row.toolCallId === toolCallId);
}

/**
 * The tasks kept running (`keep`), before each later step and once after the last (`last`). A kept task whose call a
 * deny rule in force now matches, while its server is there to follow it: its next leg must not go out (check (2)
 * catches one that does); it must be cancelled on the server, its call shown denied with an `auto_deny` row, and its
 * result never given to the model. After the last step the others are let go: each ends on the server, and a result
 * reaches its call only past the door (check (2) holds its `tasks/get` and `tasks/result` to the rules in force).
 */
export async function watchKeptTasks(world: InvariantWorld, last: boolean): Promise<void> {
  const { harness } = world;
  const kept = keptTasks.get(world) ?? [];
  const BOUND_POKES = 100;
  for (const task of [...kept]) {
    const name = [...harness.bindings].find(([, binding]) => binding.slot === task.slot)?.[0];
    // A leg that passed the door before this step arrives now, and is held: none is on its way while rules change.
    for (let poke = 0; poke < 20 && task.status() === 'working' && !task.waiting(); poke++) await task.poke();
    const times = (watched.get(task) ?? 0) + 1;
    watched.set(task, times);
    if (task.ruleLater !== undefined && (times === task.ruleLater || last) && name !== undefined) {
      // A deny rule on its arguments comes into force while it runs (once).
      const key = task.status() === 'working' ? ruleFor(task) : undefined;
      if (key !== undefined && harness.denyHits(name, task.toolName, task.args).length === 0) {
        harness.noteView(
          await harness.ok('policy.update', {
            rules: { add: [ruleDraft(key, 'deny', `${key}--${world.nextRuleId++}`)] },
          }),
        );
        harness.log.push(`  a deny rule ${key} came into force while ${task.what} ran`);
      }
    }
    const denied = name === undefined ? [] : harness.denyHits(name, task.toolName, task.args);
    if (task.status() === 'working' && denied.length === 0 && !last) continue;
    if (task.status() === 'working' && denied.length === 0) task.release();
    else task.letGo();
    const callOf = async (): Promise<ToolCallRecord | undefined> =>
      (await taskCallsOf(world, task.chatId).catch(() => [])).find((call) => call.toolCallId === task.toolCallId);
    // Until it ends on the server, or its follower has had the time to send a leg and sent none (it is not followed:
    // its server is gone or not ready, or its call is no longer shown running); then until its end is written.
    const before = task.looks();
    for (let poke = 0; poke < BOUND_POKES && task.status() === 'working'; poke++) await task.poke();
    for (let poke = 0; poke < BOUND_POKES && task.status() !== 'working'; poke++) {
      if (poke % 10 === 0 && (await callOf())?.status !== 'running') break;
      await task.poke();
    }
    const call = await callOf();
    if (denied.length > 0 && task.status() !== 'completed') {
      if (task.status() === 'working' && task.looks() === before) {
        harness.log.push(`  ${task.what} is not followed now (its call ${call?.status ?? 'gone'})`);
        if (!last) continue;
      } else {
        const rows = await rowsOf(world, task.toolCallId);
        if (
          task.status() !== 'cancelled' ||
          (call && call.status !== 'denied') ||
          !rows.some((row) => row.decision === 'auto_deny')
        )
          throw new InvariantError(
            'a deny rule that came into force while a task ran did not stop it',
            `${task.what} is ${task.status()} on the server, its call ${call?.status ?? 'gone'}, its rows ${rows.map((row) => row.decision ?? '-').join(', ')} (denied by ${denied.join(', ')})`,
          );
        harness.tally.keptTasks[task.revision].denied += 1;
        harness.log.push(`  ${task.what} met ${denied.join(', ')}: cancelled, its call denied`);
      }
    } else if (task.status() === 'completed' && call?.status === 'success') {
      harness.tally.keptTasks[task.revision].completed += 1;
      harness.log.push(`  ${task.what} completed (its call ${call?.status ?? 'gone'})`);
    }
    // What it made never reached the model unless it completed past the door.
    if (
      task.status() !== 'completed' &&
      JSON.stringify(harness.fake.generations().slice(task.generations)).includes(task.resultText)
    )
      throw new InvariantError('the result of a task that did not complete reached the model', task.resultText);
    if (last) task.release();
    kept.splice(kept.indexOf(task), 1);
  }
}

/** The command a planned task step runs. */
export const taskStep = (step: TaskStep): Command => new TaskCall(step);

/** Up to two task steps per sequence, each before the command at its position. */
export const taskPlanArb: fc.Arbitrary<readonly { at: number; step: TaskStep }[]> = fc.array(
  fc.record({
    at: fc.nat({ max: 13 }),
    step: fc.record({
      chat: fc.nat({ max: 1 }),
      value: fc.nat({ max: 6 }),
      setting: fc.constantFrom(
        'as-is' as const,
        'as-is' as const,
        'auto-approve' as const,
        'always-ask' as const,
        'inherit' as const,
      ),
      answer: fc.boolean(),
      then: fc.constantFrom('cancel' as const, 'stop' as const, 'finish' as const, 'keep' as const, 'keep' as const),
      ruleLater: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    }),
  }),
  { maxLength: 2 },
);
