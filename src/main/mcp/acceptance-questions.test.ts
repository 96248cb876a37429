/**
 * A call made while the person is asked whether to accept what a server runs (docs/user/cli.md#settingsjson-while-chat-runs)
 * waits for the answer: accepted, it goes on once the server settled with the definition it was decided on; kept
 * stopped, refused; and never past its timeout or its cancellation. The real CLI flow: src/cli/cli-settings-watch.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { afterAcceptance, createAcceptanceQuestions } from './acceptance-questions';

const wait = (overrides: Partial<Parameters<typeof afterAcceptance>[1]> = {}) => ({
  name: 'Notes',
  toolName: 'read_graph',
  timeoutMs: 5_000,
  whenSettled: () => Promise.resolve(),
  currentHash: () => 'h1',
  definitionHash: 'h1',
  ...overrides,
});

describe('acceptance questions', () => {
  it('nothing waits unless a question is open; a question answered is closed', async () => {
    const questions = createAcceptanceQuestions();
    expect(questions.pending('Notes')).toBeUndefined();
    const question = questions.ask('Notes');
    const answered = questions.pending('Notes');
    expect(answered).toBeDefined();
    question.answer(true);
    await expect(answered).resolves.toBe(true);
    expect(questions.pending('Notes')).toBeUndefined();
  });

  it('accepted: goes on once the server settled; kept stopped: refused, saying why', async () => {
    const settled: string[] = [];
    await expect(
      afterAcceptance(Promise.resolve(true), wait({ whenSettled: async () => void settled.push('settled') })),
    ).resolves.toBeUndefined();
    expect(settled).toEqual(['settled']);
    await expect(afterAcceptance(Promise.resolve(false), wait())).rejects.toMatchObject({
      code: 'refused',
      message: 'You kept "Notes" stopped: what it runs now is not accepted, so Notes.read_graph did not run.',
    });
  });

  it('a tool listed differently by what the server runs now does not run', async () => {
    await expect(afterAcceptance(Promise.resolve(true), wait({ currentHash: () => 'h2' }))).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('no answer within the call timeout, or a cancelled call: it does not run', async () => {
    const never = new Promise<boolean>(() => undefined);
    await expect(afterAcceptance(never, wait({ timeoutMs: 20 }))).rejects.toMatchObject({ code: 'timeout' });
    const aborter = new AbortController();
    const waiting = afterAcceptance(never, wait({ signal: aborter.signal }));
    aborter.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
    await expect(afterAcceptance(never, wait({ signal: AbortSignal.abort() }))).rejects.toMatchObject({
      code: 'cancelled',
    });
  });
});
