/**
 * The CLI's acceptance question in the trust invariant (docs/dev/testing.md, "The trust invariant";
 * docs/user/cli.md#settingsjson-while-chat-runs): `workbench chat` asks the person whether to start a server whose
 * launch spec changed, and a call of that server allowed meanwhile without a question (approvals off, a chat set to
 * never ask) waits for the answer (mcp/acceptance-questions.ts). The step opens that question as the chat does
 * (`mcp.askAcceptance`, on the run's own services), has the model call the server while it is open, and answers it:
 * yes (the accept the chat makes, given what the person was shown), no, or yes after the server was changed again
 * meanwhile (that accept is refused, and the question answered no). Checked in the step: nothing runs on the server
 * while the question is open, and nothing of that call ever runs after a no or a change.
 */
import fc from 'fast-check';
import { InvariantError } from './invariant-checks';
import { chatOf, expectOutcome, Step, type InvariantWorld } from './invariant-commands';
import { unacceptedBinding, type Binding, type RecordedRun } from './invariant-harness';
import type { AcceptanceQuestion } from '../../mcp/acceptance-questions';

export type AcceptanceAnswer = 'yes' | 'no' | 'changed';
export interface AcceptancePick {
  readonly chat: number;
  /** The value of the call's path (invariant-catalogue.ts PATHS). */
  readonly value: number;
  readonly answer: AcceptanceAnswer;
}

/** Files' write_file (invariant-catalogue.ts TOOLS): no page to open first, so the call goes straight to the door. */
const WRITE_FILE = 0;
/** Turns of the event loop given to the engine, once the call runs, to (wrongly) reach the server before the answer. */
const TURNS_TO_RUN = 1_500;
/** A bound on waiting for the model's reply to reach its tool call. */
const TURNS_TO_CALL = 200_000;

const describe = (runs: readonly RecordedRun[]): string =>
  runs.map((run) => `${run.toolName} ${JSON.stringify(run.args)} (as ${run.label})`).join('; ');

const turn = async (world: InvariantWorld): Promise<void> => {
  await world.advanceTime(0);
  await new Promise<void>((resolve) => setImmediate(resolve));
};

export class AcceptanceQuestionStep extends Step {
  constructor(readonly pick: AcceptancePick) {
    super();
    this.planned = true;
  }
  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    const tally = harness.tally.acceptance;
    const name = harness.roleNames.get('Files') ?? 'Files';
    let found = harness.bindings.get(name);
    if (!found) {
      harness.log.push(`  no server is called ${name}: no reply can call it`);
      return;
    }
    if (unacceptedBinding(found)) {
      // Held, its tools are offered to no model: the person accepts what it runs first (as `servers accept` does).
      expectOutcome(
        world,
        `mcp.edit ${name} acceptIdentity`,
        await harness.call('mcp.edit', { name, acceptIdentity: true }),
        'ok',
      );
      const label = found.label;
      harness.madeAllows.splice(
        0,
        harness.madeAllows.length,
        ...harness.madeAllows.map((made) => (made.name === name ? { ...made, label } : made)),
      );
      found = { ...found, acceptedLabel: undefined };
      harness.bind(name, found);
      await harness.services().mcp.whenSettled();
    }
    const accepted: Binding = found;
    let chatId: string | undefined;
    for (const index of [this.pick.chat, this.pick.chat + 1]) {
      const candidate = chatOf(world, index);
      if ((await harness.ok('chat.messages', { chatId: candidate, limit: 1 })).activity.status === 'idle') {
        chatId = candidate;
        break;
      }
    }
    if (chatId === undefined) {
      harness.log.push('  no chat is idle: no reply can call it');
      return;
    }
    // The call is allowed without a question (approvals off, unless the organisation locks the mode or forbids it): the
    // one thing that may still hold it is the open question.
    const { mode } = (await harness.ok('policy.get')).policy;
    const off = await harness.call('policy.update', { mode: 'never-ask' });
    if (off.ok) harness.noteView(await harness.ok('policy.get'));
    const chatMode = (await harness.ok('approvals.getChatMode', { chatId })).mode;
    await harness.call('approvals.setChatMode', { chatId, mode: 'never-ask' });

    // While the reply is on its way (its tools offered), what the server runs changes, as a save of settings.json the
    // chat reads would change it, and the chat asks the person about it (mcp.askAcceptance).
    const label = accepted.label === 'Other' ? 'Files' : 'Other';
    let binding: Binding = accepted;
    let question: AcceptanceQuestion | undefined;
    let shown: string | undefined;
    let runsBefore = harness.runs.length;
    const message = world.model.messageFor([[{ tool: WRITE_FILE, value: this.pick.value }]]);
    world.model.beforeCalls(message, () => {
      const { url, slot } = harness.urlFor(label);
      const services = harness.services();
      services.mcpServers.edit({ name, url });
      binding = { ...accepted, label, slot, acceptedLabel: accepted.label };
      harness.bind(name, binding);
      shown = services.mcpServers.get(name).identityChanged?.current;
      question = services.mcp.askAcceptance(name);
      runsBefore = harness.runs.length;
      tally.asked += 1;
      harness.log.push(`  ${name} now runs ${label} (${shown ?? '?'}); asked whether to start it`);
    });
    // What runs the new identity: before the answer, nothing may.
    const ranThere = () =>
      harness.runs.slice(runsBefore).filter((run) => run.serverName === name && run.label === label);
    let waited: boolean;
    try {
      const sent = await harness.call('chat.send', { chatId, message: { role: 'user', text: message } });
      expectOutcome(world, 'chat.send', sent, 'ok');
      const status = () => harness.services().conversations.activity(chatId).status;
      for (let count = 0; status() === 'generating' && count < TURNS_TO_CALL; count++) await turn(world);
      // The call was allowed and runs: it must wait for the answer, however long it is given.
      for (let count = 0; status() === 'running-tools' && count < TURNS_TO_RUN; count++) {
        if (ranThere().length > 0) break;
        await turn(world);
      }
      waited = question !== undefined && status() === 'running-tools';
      if (ranThere().length > 0)
        throw new InvariantError(
          'a call ran on a server while the person was still asked whether to start it',
          `${name} ran ${describe(ranThere())} (it runs ${label}, the person accepted only ${accepted.label})`,
        );
      if (waited) tally.waited += 1;
      harness.log.push(`  the call ${waited ? 'waits for the answer' : `did not wait (${status()})`}`);
      if (question === undefined) return;

      if (this.pick.answer === 'changed') {
        // Changed again while the person was asked: back to what they accepted before.
        const { url, slot } = harness.urlFor(accepted.label);
        const back = await harness.call('mcp.edit', { name, url });
        expectOutcome(world, `mcp.edit ${name} url → ${accepted.label}`, back, 'ok');
        binding = { ...accepted, slot };
        harness.bind(name, binding);
      }
      if (this.pick.answer === 'no') {
        question.answer(false);
      } else {
        // What the chat does on "accept": accepts what the person was shown, refused when it runs something else now.
        const envelope = await harness.call('mcp.edit', { name, acceptIdentity: true, acceptedIdentity: shown });
        expectOutcome(
          world,
          `mcp.edit ${name} acceptIdentity (shown: ${shown ?? '?'})`,
          envelope,
          this.pick.answer === 'yes' ? 'ok' : 'refused',
        );
        if (envelope.ok) {
          harness.madeAllows.splice(
            0,
            harness.madeAllows.length,
            ...harness.madeAllows.map((made) => (made.name === name ? { ...made, label } : made)),
          );
          binding = { ...binding, acceptedLabel: undefined };
          harness.bind(name, binding);
        }
        question.answer(envelope.ok);
      }
    } finally {
      // Never left open: a call would wait on it for good.
      question?.answer(false);
      world.model.beforeCalls(message, () => undefined);
    }
    await harness.services().mcp.whenSettled();
    await harness.settle();
    if (off.ok) harness.noteView(await harness.ok('policy.update', { mode }));
    await harness.call('approvals.setChatMode', { chatId, mode: chatMode });
    if (!waited) return;
    // The call that waited: run after a yes (through the door, as any call), never after a no or a change.
    const ran = harness.runs.slice(runsBefore).filter((run) => run.serverName === name);
    if (this.pick.answer === 'yes') {
      if (ran.length > 0) tally.ranAfterYes += 1;
      return;
    }
    if (ran.length > 0)
      throw new InvariantError(
        this.pick.answer === 'no'
          ? 'a call ran although the person kept the server stopped'
          : 'a call ran although the server was changed while the person was asked',
        `${name} ran ${describe(ran)}`,
      );
    if (this.pick.answer === 'no') tally.refusedAfterNo += 1;
    else tally.refusedChanged += 1;
  }
  toString(): string {
    return `acceptanceQuestion(${JSON.stringify(this.pick)})`;
  }
}

/**
 * The acceptance question's steps, planned apart from the commands like the sandbox and identity steps (so adding them
 * left every other step of a seed as it was): each runs before the command at its position.
 */
export const acceptancePlanArb: fc.Arbitrary<readonly { at: number; pick: AcceptancePick }[]> = fc.array(
  fc.record({
    at: fc.nat({ max: 13 }),
    pick: fc.record({
      chat: fc.nat({ max: 1 }),
      value: fc.nat({ max: 6 }),
      answer: fc.constantFrom<AcceptanceAnswer>('yes', 'no', 'changed'),
    }),
  }),
  { maxLength: 2 },
);
