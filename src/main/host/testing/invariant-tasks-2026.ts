/**
 * A call that a 2026-07-28 server runs as a task of the tasks extension, in the trust invariant (docs/dev/testing.md,
 * "The trust invariant"; docs/dev/protocol-2026.md#tasks-on-2026-07-28): Shell's `run` of a task command
 * (recording-tasks-2026.ts) is refused without the extension, then made again on the host's raw path declaring it,
 * and its task followed with `tasks/get`. The random seeds reach it through Shell's calls; this step holds the server's
 * refusal and, when `deny`, adds a deny rule on the command before letting it go, so that the call declaring the
 * extension meets a rule that was not in force when the call was first sent: the door must keep it, and every later
 * leg, from the server (checks (1) and (2) hold each run and each leg to the rules in force when it arrived).
 */
import { COMMANDS, ruleDraft, TOOLS } from './invariant-catalogue';
import { chatOf, expectOutcome, Step, type Command, type InvariantWorld } from './invariant-commands';
import { modernTaskControl } from './recording-tasks-2026';

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
    modernTaskControl.holdRefusals = true;
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
      harness.log.push(`  ${shell} holds its refusal of run (the tasks extension was not declared)`);
      if (this.deny) {
        const rule = ruleDraft('shutdown', 'deny', `shutdown--${world.nextRuleId++}`);
        harness.noteView(await harness.ok('policy.update', { rules: { add: [rule] } }));
        harness.log.push('  a deny rule on shutdown came into force before the call declaring the extension');
      }
    } finally {
      modernTaskControl.holdRefusals = false;
      modernTaskControl.release();
    }
    for (let turn = 0; turn < BOUND; turn++) {
      if (harness.services().conversations.activity(chatId).status === 'idle') break;
      await harness.turn();
    }
  }

  toString(): string {
    return `modern-task(chat ${this.chat}, run:shutdown${this.deny ? ', a deny rule while refused' : ''})`;
  }
}

export const modernTaskStep = (chat: number, deny: boolean): Command => new ModernTaskCall(chat, deny);
