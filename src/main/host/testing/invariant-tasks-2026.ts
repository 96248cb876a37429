/**
 * A call that a 2026-07-28 server runs as a task of the tasks extension, in the trust invariant (docs/dev/testing.md,
 * "The trust invariant"; docs/dev/protocol-2026.md#tasks-on-2026-07-28): Shell's `run` of a task command
 * (recording-tasks-2026.ts) goes out on the host's raw path declaring the extension from the first `tools/call` (Shell
 * offered it), and its task is followed with `tasks/get`. The random seeds reach it through Shell's calls; this step
 * holds the server's answer to the call (it ran, allowed when it arrived) and, when `deny`, adds a deny rule on the
 * command before letting it go, so that the task's first `tasks/get` meets a rule that was not in force when the call
 * was sent: the door must keep it, and the task's result, from the server and the model (checks (1) and (2) hold each
 * run and each leg to the rules in force when it arrived).
 *
 * Two more steps hold a task running across steps (on the real clock: the extension's client polls on timers, so they
 * serve the mutants' sequences, not the random ones whose clock stands still): `modernTaskRunning` makes the call, waits
 * for its task's first `tasks/get`, and stops the reply (the task goes on, followed); `modernTaskRuleMidway` adds a deny
 * rule on the command while it runs, then waits until the call ends or another leg reaches Shell: that leg must not
 * come (check (2)), the task must be cancelled on the server and the call shown denied. A third, `modernTaskKept`,
 * serves the random sequences: under their fake clock it moves the clock on to each poll of the extension's client, and
 * keeps the task running across the steps after it, watched with the 2025-11-25 tasks (invariant-tasks.ts
 * `watchKeptTasks`).
 */
import fc from 'fast-check';
import { COMMANDS, ruleDraft, TOOLS } from './invariant-catalogue';
import type { ToolCallRecord } from '../../../shared/messages';
import { InvariantError } from './invariant-checks';
import { chatOf, expectOutcome, Step, type Command, type InvariantWorld } from './invariant-commands';
import { keepTask } from './invariant-tasks';
import { modernTaskControl, shellTaskResult } from './recording-tasks-2026';

const BOUND = 200_000;
const SHELL_RUN = TOOLS.findIndex((tool) => tool.serverName === 'Shell' && tool.name === 'run');
const TASK_COMMAND = COMMANDS.indexOf('shutdown');

class ModernTaskCall extends Step {
  constructor(
    readonly chat: number,
    readonly deny: boolean,
  ) {
    super();
  }

  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    const chatId = chatOf(world, this.chat);
    const shell = harness.roleNames.get('Shell') ?? 'Shell';
    // Allowed by the tool's setting: the call goes on without a person, straight to the server.
    const view = await harness.ok('policy.update', { tools: { [shell]: { run: 'auto-approve' } } });
    harness.noteView(view);
    const label = harness.bindings.get(shell)?.label;
    if (label !== undefined) harness.madeAllows.push({ label, name: shell, what: 'tool run auto-approve' });
    modernTaskControl.holdCalls = true;
    try {
      const before = (await harness.ok('chat.messages', { chatId, limit: 1 })).activity;
      const envelope = await harness.call('chat.send', {
        chatId,
        message: { role: 'user', text: world.model.messageFor([[{ tool: SHELL_RUN, value: TASK_COMMAND }]]) },
      });
      expectOutcome(world, 'chat.send (a 2026-07-28 task call)', envelope, before.status === 'idle' ? 'ok' : 'refused');
      if (!envelope.ok) return;
      harness.tally.userMessages += 1;
      for (let turn = 0; turn < BOUND && modernTaskControl.held === 0; turn++) {
        if (harness.services().conversations.activity(chatId).status === 'idle') return;
        await harness.turn();
      }
      harness.log.push(`  ${shell} ran run:shutdown as a task and holds its answer`);
      if (this.deny) {
        const rule = ruleDraft('shutdown', 'deny', `shutdown--${world.nextRuleId++}`);
        harness.noteView(await harness.ok('policy.update', { rules: { add: [rule] } }));
        harness.log.push('  a deny rule on shutdown came into force before the task was first looked at');
      }
    } finally {
      modernTaskControl.holdCalls = false;
      modernTaskControl.release();
    }
    for (let turn = 0; turn < BOUND; turn++) {
      if (harness.services().conversations.activity(chatId).status === 'idle') break;
      await harness.turn();
    }
  }

  toString(): string {
    return `modern-task(chat ${this.chat}, run:shutdown${this.deny ? ', a deny rule before its first look' : ''})`;
  }
}

export const modernTaskStep = (chat: number, deny: boolean): Command => new ModernTaskCall(chat, deny);

/** Waits, a turn at a time, until `done` holds (bounded). */
async function turnsUntil(world: InvariantWorld, done: () => boolean | Promise<boolean>): Promise<boolean> {
  for (let turn = 0; turn < BOUND; turn++) {
    if (turn % 10 === 0 && (await done())) return true;
    await world.harness.turn();
  }
  return done();
}

class ModernTaskRunning extends Step {
  constructor(readonly chat: number) {
    super();
  }

  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    const chatId = chatOf(world, this.chat);
    const shell = harness.roleNames.get('Shell') ?? 'Shell';
    harness.noteView(await harness.ok('policy.update', { tools: { [shell]: { run: 'auto-approve' } } }));
    const label = harness.bindings.get(shell)?.label;
    if (label !== undefined) harness.madeAllows.push({ label, name: shell, what: 'tool run auto-approve' });
    modernTaskControl.holdRunning = true;
    const before = (await harness.ok('chat.messages', { chatId, limit: 1 })).activity;
    const looks = modernTaskControl.looks;
    const envelope = await harness.call('chat.send', {
      chatId,
      message: { role: 'user', text: world.model.messageFor([[{ tool: SHELL_RUN, value: TASK_COMMAND }]]) },
    });
    expectOutcome(
      world,
      'chat.send (a running 2026-07-28 task)',
      envelope,
      before.status === 'idle' ? 'ok' : 'refused',
    );
    if (!envelope.ok) {
      modernTaskControl.finishRunning();
      return;
    }
    harness.tally.userMessages += 1;
    const followed = await turnsUntil(world, () => modernTaskControl.looks > looks);
    if (!followed) throw new Error('the 2026-07-28 task was never followed (no tasks/get reached Shell)');
    harness.log.push(`  ${shell} runs the task of run:shutdown, followed with tasks/get`);
    // The reply stops; the task goes on, followed, across the next steps.
    await harness.ok('chat.stop', { chatId });
    harness.tally.stops += 1;
  }

  toString(): string {
    return `modern-task-running(chat ${this.chat}, run:shutdown)`;
  }
}

/** The chat's calls of Shell's `run`, as the contract shows them. */
async function runCallsOf(world: InvariantWorld, chatId: string): Promise<ToolCallRecord[]> {
  const { messages } = await world.harness.ok('chat.messages', { chatId });
  return messages
    .flatMap((message) =>
      message.role === 'assistant' ? message.reply.turns.flatMap((turn) => turn.toolCalls ?? []) : [],
    )
    .filter((call) => call.toolName === 'run');
}

class ModernTaskRuleMidway extends Step {
  constructor(readonly chat: number) {
    super();
  }

  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    const chatId = chatOf(world, this.chat);
    try {
      // Shell holds its answer to the task's next tasks/get: no leg is on its way while the rule comes into force.
      modernTaskControl.holdLooks = true;
      if (!(await turnsUntil(world, () => modernTaskControl.heldLooks.length > 0))) return;
      const rule = ruleDraft('shutdown', 'deny', `shutdown--${world.nextRuleId++}`);
      harness.noteView(await harness.ok('policy.update', { rules: { add: [rule] } }));
      harness.log.push('  a deny rule on shutdown came into force while its task ran');
      const looks = modernTaskControl.looks;
      const cancels = modernTaskControl.cancels;
      modernTaskControl.answerLooks();
      // The next leg is kept out and the task cancelled; a leg that reaches Shell instead is for check (2).
      await turnsUntil(world, () => modernTaskControl.looks > looks || modernTaskControl.cancels > cancels);
      if (modernTaskControl.looks > looks) return;
      // No leg came: the task is cancelled on the server, and its call is shown denied once its end is written.
      await turnsUntil(world, async () => (await runCallsOf(world, chatId)).at(-1)?.status !== 'running');
      const call = (await runCallsOf(world, chatId)).at(-1);
      if (modernTaskControl.lastStatus() !== 'cancelled' || call?.status !== 'denied')
        throw new InvariantError(
          'a deny rule that came into force while a task ran did not stop it',
          `Shell's task of run:shutdown is ${modernTaskControl.lastStatus() ?? 'gone'}, its call ${call?.status ?? 'gone'}`,
        );
      harness.log.push('  its next tasks/get was kept out: the task cancelled, the call denied');
    } finally {
      modernTaskControl.finishRunning();
    }
  }

  toString(): string {
    return `modern-task-rule-midway(chat ${this.chat}, deny shutdown)`;
  }
}

export const modernTaskRunning = (chat: number): Command => new ModernTaskRunning(chat);
export const modernTaskRuleMidway = (chat: number): Command => new ModernTaskRuleMidway(chat);

/** The extension's client polls a task at most every 10 ms (`MIN_TASK_POLL_INTERVAL_MS` of ext-tasks). */
const POLL_MS = 10;

class ModernTaskKept extends Step {
  constructor(
    readonly chat: number,
    readonly ruleLater: number | undefined,
  ) {
    super();
    this.planned = true;
  }

  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    const chatId = chatOf(world, this.chat);
    const shell = harness.roleNames.get('Shell') ?? 'Shell';
    if (!harness.bindings.has(shell)) return;
    harness.noteView(await harness.ok('policy.update', { tools: { [shell]: { run: 'auto-approve' } } }));
    const label = harness.bindings.get(shell)?.label;
    if (label !== undefined) harness.madeAllows.push({ label, name: shell, what: 'tool run auto-approve' });
    const before = (await harness.ok('chat.messages', { chatId, limit: 1 })).activity;
    const created = modernTaskControl.created;
    modernTaskControl.holdRunning = true;
    let taskId: string | undefined;
    try {
      const envelope = await harness.call('chat.send', {
        chatId,
        message: {
          role: 'user',
          text: world.model.messageFor([[{ tool: SHELL_RUN, value: TASK_COMMAND, apart: true }]]),
        },
      });
      expectOutcome(world, 'chat.send (a kept 2026-07-28 task)', envelope, before.status === 'idle' ? 'ok' : 'refused');
      if (!envelope.ok) return;
      harness.tally.userMessages += 1;
      // The call is allowed by the tool's setting (a deny rule may catch it): until its task exists on Shell.
      for (let turn = 0; turn < BOUND && modernTaskControl.created === created; turn++) {
        if (harness.services().conversations.activity(chatId).status === 'idle') return;
        await harness.turn();
      }
      taskId = modernTaskControl.keepLast();
    } finally {
      modernTaskControl.holdRunning = false;
    }
    const task = taskId === undefined ? undefined : modernTaskControl.task(taskId);
    if (taskId === undefined || !task) return;
    // The client hears of the task and follows it: the clock moves on to its polls.
    let call: ToolCallRecord | undefined;
    for (let poke = 0; poke < 200 && !call; poke++) {
      await world.advanceTime(POLL_MS);
      await harness.turn();
      if (poke % 5 === 0)
        call = (await runCallsOf(world, chatId)).find(
          (candidate) => candidate.args['nonce'] === task.args['nonce'] && candidate.task !== undefined,
        );
    }
    if (!call) throw new Error(`Shell runs the task ${taskId}, but no call of the chat shows it`);
    await harness.ok('chat.stop', { chatId });
    harness.tally.stops += 1;
    const id = taskId;
    keepTask(world, {
      what: `${shell}'s task ${id} of run:shutdown`,
      revision: '2026-07-28',
      serverLabel: 'Shell',
      ruleLater: this.ruleLater,
      slot: task.slot,
      toolName: 'run',
      args: task.args,
      chatId,
      toolCallId: call.toolCallId,
      generations: harness.fake.generations().length,
      resultText: shellTaskResult(id),
      status: () => modernTaskControl.task(id)?.status ?? 'gone',
      looks: () => modernTaskControl.task(id)?.looks ?? 0,
      release: () => modernTaskControl.releaseKept(id),
      letGo: () => modernTaskControl.letLookGo(id),
      waiting: () => modernTaskControl.task(id)?.heldLook !== undefined,
      poke: async () => {
        await world.advanceTime(POLL_MS);
        await harness.turn();
      },
    });
  }

  toString(): string {
    return `modern-task-kept(chat ${this.chat}, run:shutdown${this.ruleLater === undefined ? '' : `, a deny rule before the ${this.ruleLater}th step after`})`;
  }
}

/** A 2026-07-28 task kept running across the steps after it (planned apart, like the 2025-11-25 task steps). */
export const modernTaskKept = (chat: number, ruleLater?: number): Command => new ModernTaskKept(chat, ruleLater);

/** Up to one kept 2026-07-28 task per sequence, before the command at its position. */
export const modernKeptPlanArb: fc.Arbitrary<readonly { at: number; chat: number; ruleLater: number | undefined }[]> =
  fc.array(
    fc.record({
      at: fc.nat({ max: 13 }),
      chat: fc.nat({ max: 1 }),
      ruleLater: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    }),
    { maxLength: 1 },
  );
