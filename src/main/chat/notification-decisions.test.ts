import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createNotificationDecisions, type NotificationPlan } from './notification-decisions';
import { callOf, startLoopHarness, type LoopHarness } from './testing/loop-harness';
import { StandInNotification } from './testing/stand-in-notification';

/**
 * Allow once / Deny on the desktop notification (docs/user/desktop.md#desktop-features) through the real services,
 * SQLite, the Files server and a scripted model. The one part that cannot exist here is Electron: the notification is
 * `StandInNotification`, of Electron's `Notification` shape (testing/stand-in-notification.ts).
 */
const SECRET = 'the-secret-content-7f3a';
let harness: LoopHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  StandInNotification.made = [];
});

function notifierFor(test: LoopHarness, opened: { chatId: string; toolCallId: string }[] = []) {
  return createNotificationDecisions({
    Notification: StandInNotification,
    waiting: (chatId) => test.services.approvals.pending.list(chatId),
    send: (chatId, message, origin) => test.services.conversations.send(chatId, message, origin),
    open: (request) => opened.push(request),
  });
}

function planFor(test: LoopHarness): NotificationPlan {
  const [waiting] = test.services.approvals.pending.list(test.chatId);
  if (!waiting) throw new Error('nothing waits');
  return {
    title: `Files wants to run ${waiting.request.toolName}`,
    body: 'Review the call in AI Workbench: it runs only if you allow it.',
    chatId: test.chatId,
    toolCallId: waiting.request.toolCallId,
  };
}

function decisionRows(test: LoopHarness): [string | null, string | null, string | null][] {
  return test
    .audit()
    .filter((row) => row.kind === 'decision')
    .map((row) => [row.decision, row.actor, row.decidedBy]);
}

it('Allow once on the notification runs the call through the card’s path, recorded as decided there', async () => {
  harness = await startLoopHarness('openai');
  const test = harness;
  const target = path.join(test.sandbox, 'a.md');
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('write_file', { path: target, content: SECRET })] },
    { kind: 'reply', text: ['done'] },
  );
  expect((await test.say('write a')).status).toBe('waiting-approval');
  const notifier = notifierFor(test);
  notifier.show(planFor(test));

  const [notification] = StandInNotification.made;
  expect(notification?.shown).toBe(true);
  expect(notification?.options.actions).toEqual([
    { type: 'button', text: 'Allow once' },
    { type: 'button', text: 'Deny' },
  ]);
  // Never the arguments outside the app.
  expect(JSON.stringify(notification?.options)).not.toContain(SECRET);
  expect(JSON.stringify(notification?.options)).not.toContain(test.sandbox);

  notification?.press('Allow once');
  expect((await test.services.conversations.settled(test.chatId)).status).toBe('idle');
  expect(fs.readFileSync(target, 'utf8')).toBe(SECRET);
  expect(test.services.approvals.pending.list(test.chatId)).toEqual([]);
  expect(decisionRows(test)).toEqual([['allow_once', 'user', "You chose 'Allow once' on the desktop notification"]]);
  expect((await test.services.audit.verify()).ok).toBe(true);
  notifier.dispose();
});

it('Deny on the notification denies the call; the file is not written', async () => {
  harness = await startLoopHarness('openai');
  const test = harness;
  const target = path.join(test.sandbox, 'b.md');
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('write_file', { path: target, content: '1' })] },
    { kind: 'reply', text: ['as you wish'] },
  );
  expect((await test.say('write b')).status).toBe('waiting-approval');
  const notifier = notifierFor(test);
  notifier.show(planFor(test));
  StandInNotification.made[0]?.press('Deny');
  expect((await test.services.conversations.settled(test.chatId)).status).toBe('idle');
  expect(fs.existsSync(target)).toBe(false);
  expect(decisionRows(test)).toEqual([['deny', 'user', "You chose 'Deny' on the desktop notification"]]);
  notifier.dispose();
});

it('a press on a call already decided in the app decides nothing, says so, and its notification was closed', async () => {
  harness = await startLoopHarness('openai');
  const test = harness;
  const target = path.join(test.sandbox, 'c.md');
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('write_file', { path: target, content: '1' })] },
    { kind: 'reply', text: ['stopped'] },
  );
  expect((await test.say('write c')).status).toBe('waiting-approval');
  const opened: { chatId: string; toolCallId: string }[] = [];
  const notifier = notifierFor(test, opened);
  const plan = planFor(test);
  notifier.show(plan);
  const [notification] = StandInNotification.made;

  // Denied on the card; the notification still on screen is pressed late.
  await test.decide([{ toolCallId: plan.toolCallId, decision: 'TOOL_CALL_DECISION_DENY' }]);
  notifier.resolved([plan.toolCallId]);
  expect(notification?.closed).toBe(true);
  notification?.press('Allow once');
  expect(fs.existsSync(target)).toBe(false);
  expect(decisionRows(test)).toEqual([['deny', 'user', "You chose 'Deny'"]]);
  const said = StandInNotification.made[1];
  expect(said?.options.title).toBe(`Not decided: ${plan.title}`);
  expect(said?.options.body).toMatch(/decided meanwhile or its time ran out/);
  said?.click();
  expect(opened).toEqual([{ chatId: test.chatId, toolCallId: plan.toolCallId }]);
  notifier.dispose();
});

it('a call that is not alone in its chat gets no buttons: the calls of a chat are answered together, in the app', async () => {
  harness = await startLoopHarness('openai');
  const test = harness;
  test.fake.script(
    {
      kind: 'reply',
      toolCalls: [
        callOf('write_file', { path: path.join(test.sandbox, 'd.md'), content: '1' }),
        callOf('write_file', { path: path.join(test.sandbox, 'e.md'), content: '1' }),
      ],
    },
    { kind: 'reply', text: ['ok'] },
  );
  expect((await test.say('write two')).status).toBe('waiting-approval');
  const opened: { chatId: string; toolCallId: string }[] = [];
  const notifier = notifierFor(test, opened);
  const plan = planFor(test);
  notifier.show(plan);
  const [notification] = StandInNotification.made;
  expect(notification?.options.actions).toBeUndefined();
  expect(() => notification?.press('Allow once')).toThrow(/no button/);
  notification?.click();
  expect(opened).toEqual([{ chatId: test.chatId, toolCallId: plan.toolCallId }]);
  expect(test.services.approvals.pending.list(test.chatId)).toHaveLength(2);
  expect(decisionRows(test)).toEqual([]);
  notifier.dispose();
});
