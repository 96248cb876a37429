// `workbench run` as scripts and CI use it: stdin a pipe (no TTY), the scripted fake LLM server, the real Files
// server. It must never hang (each command fails the test after HANG_LIMIT_MS), end with the right exit code, and
// leave the right rows in the audit log.
import fs from 'node:fs';
import path from 'node:path';
/* eslint-disable no-control-regex -- one test looks for control characters in the output */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditPage } from '../shared/audit';
import { callOf } from '../main/chat/testing/loop-harness';
import { APPROVE_DENY_REASON, NON_INTERACTIVE_REASON } from './commands/run';
import { hasColors } from './terminal';
import { cliJson, makeHome, runCli } from './testing/cli-process';
import { withFakeProvider, type FakeWorkbench } from './testing/fake-provider';

let test: FakeWorkbench;
beforeEach(async () => {
  test = await withFakeProvider(makeHome());
}, 60_000);
afterEach(async () => {
  await test.fake.close();
  fs.rmSync(test.home, { recursive: true, force: true });
});

const allRows = async (): Promise<AuditPage['entries']> =>
  (await cliJson<AuditPage>(['audit', 'query'], { home: test.home })).entries.slice().reverse();
/** The rows about tool calls; the policy rows of the set-up (`workbench policy set`) are checked on their own. */
const auditRows = async (): Promise<AuditPage['entries']> => (await allRows()).filter((row) => row.kind !== 'policy');

const scriptWrite = (file: string): void => {
  test.fake.script(
    {
      kind: 'reply',
      text: ['Writing it.'],
      toolCalls: [callOf('write_file', { path: path.join(test.sandbox, file), content: 'from the model' }, 'call_w')],
    },
    { kind: 'reply', text: ['All done.'] },
  );
};

describe('workbench run (no terminal)', { timeout: 180_000 }, () => {
  it('denies a call that needs a person, recorded as denied by the non-interactive mode; exit code 2', async () => {
    scriptWrite('denied.txt');
    const result = await runCli(['run', 'write denied.txt', ...test.providerFlags], { home: test.home });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('Writing it.\nAll done.\n');
    expect(result.stderr).toContain('⏺ Files · write_file · denied');
    expect(result.stderr).toContain(NON_INTERACTIVE_REASON);
    expect(hasColors(result.stderr)).toBe(false);
    expect(fs.existsSync(path.join(test.sandbox, 'denied.txt'))).toBe(false);
    const rows = await auditRows();
    expect(rows).toEqual([
      expect.objectContaining({
        kind: 'decision',
        toolName: 'write_file',
        decision: 'deny',
        actor: 'system',
        decidedBy: NON_INTERACTIVE_REASON,
        reason: null,
      }),
    ]);
    // The model was told it was denied, and by whom: not a person's "User denied".
    const told = JSON.stringify(test.fake.generations()[1]?.body);
    expect(told).toContain(`Denied: ${NON_INTERACTIVE_REASON}`);
    expect(told).not.toContain('User denied');
    expect((await cliJson<AuditPage>(['audit', 'verify'], { home: test.home })) as unknown).toMatchObject({
      ok: true,
      rowCount: 1,
    });
  });

  it('prints no escape sequence or control character that a model or a tool sent, in run, chats show and audit query; --json keeps them exactly', async () => {
    const attack = '\u001b[2J\u001b[31mFAKE: Allowed once\u001b]8;;https://evil.example\u0007\r\u202E';
    await cliJson(['policy', 'set', 'tool', 'Files', 'read_text_file', 'auto-approve'], { home: test.home });
    const script = (): void =>
      test.fake.script(
        {
          kind: 'reply',
          text: [`Reading. ${attack}`],
          toolCalls: [callOf('read_text_file', { path: path.join(test.sandbox, `missing${attack}.txt`) }, 'call_r')],
        },
        { kind: 'reply', text: [`Done. ${attack}`] },
      );
    const unsafe = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    script();
    const result = await runCli(['run', 'read it', ...test.providerFlags], { home: test.home });
    // The tool failed (the file is missing): a failed call ends the command with 1, as docs/user/cli.md says.
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('Reading. FAKE: Allowed once\nDone. FAKE: Allowed once\n');
    expect(result.stderr).toMatch(/⏺ Files · read_text_file · error/);
    expect(result.stderr).not.toMatch(unsafe);
    const [chat] = await cliJson<{ id: string }[]>(['chats', 'list'], { home: test.home });
    const shown = await runCli(['chats', 'show', chat?.id as string], { home: test.home });
    expect(shown.stdout).toContain('Done. FAKE: Allowed once');
    expect(shown.stdout).not.toMatch(unsafe);
    const audit = await runCli(['audit', 'query'], { home: test.home });
    expect(audit.stdout).toContain('FAKE: Allowed once');
    expect(audit.stdout).not.toMatch(unsafe);

    script();
    const json = await runCli(['run', 'read it again', ...test.providerFlags, '--json'], { home: test.home });
    expect(json.stdout).not.toMatch(unsafe);
    expect((JSON.parse(json.stdout) as { text: string }).text).toContain(`Done. ${attack}`);
  });

  it('runs the call when the policy allows it; exit code 0, decision and result rows', async () => {
    await cliJson(['policy', 'set', 'tool', 'Files', 'write_file', 'auto-approve'], { home: test.home });
    scriptWrite('allowed.txt');
    const result = await runCli(['run', 'write allowed.txt', ...test.providerFlags], { home: test.home });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/⏺ Files · write_file · ok · \d+ ms/);
    expect(fs.readFileSync(path.join(test.sandbox, 'allowed.txt'), 'utf8')).toBe('from the model');
    const rows = await auditRows();
    expect(rows.map((row) => [row.kind, row.decision ?? row.outcome, row.actor])).toEqual([
      ['decision', 'auto_allow', 'policy'],
      ['result', 'success', null],
    ]);
    // The setting itself is a policy row, made by the CLI, before the call's rows.
    expect((await allRows()).map((row) => [row.kind, row.actor, row.decidedBy])).toEqual([
      ['policy', 'cli', expect.stringContaining('tool Files.write_file')],
      ['decision', 'policy', expect.any(String)],
      ['result', null, null],
    ]);
  });

  it('takes the prompt from stdin, and with --approve deny --json prints the outcome', async () => {
    scriptWrite('json.txt');
    const result = await runCli(['run', '--approve', 'deny', '--json', ...test.providerFlags], {
      home: test.home,
      input: 'write json.txt\n',
    });
    expect(result.code).toBe(2);
    const outcome = JSON.parse(result.stdout) as {
      status: string;
      text: string;
      denied: number;
      chatId: string;
      toolCalls: { tool: string; status: string; decision: { actor: string; reason: string } }[];
    };
    expect(outcome).toMatchObject({ status: 'done', text: 'Writing it.\nAll done.', denied: 1 });
    expect(outcome.toolCalls).toEqual([
      expect.objectContaining({
        tool: 'write_file',
        status: 'denied',
        decision: { outcome: 'deny', actor: 'system', reason: APPROVE_DENY_REASON },
      }),
    ]);
    expect(test.fake.generations()[0]?.body).toMatchObject({
      messages: expect.arrayContaining([expect.objectContaining({ role: 'user', content: 'write json.txt' })]),
    });
    // The same chat goes on with --chat.
    test.fake.script({ kind: 'reply', text: ['Still here.'] });
    const again = await runCli(['run', 'anyone there?', '--chat', outcome.chatId.slice(0, 8)], { home: test.home });
    expect(again).toMatchObject({ code: 0, stdout: 'Still here.\n' });
    expect(JSON.stringify(test.fake.generations()[2]?.body)).toContain('write json.txt');
  });

  it('refuses a call a deny rule matches without asking anyone; exit code 2', async () => {
    await cliJson(['policy', 'set', 'rule', 'add', 'deny', 'Files', 'write_*', '--id', 'no-writes'], {
      home: test.home,
    });
    scriptWrite('ruled.txt');
    const result = await runCli(['run', 'write ruled.txt', ...test.providerFlags], { home: test.home });
    expect(result.code).toBe(2);
    expect((await auditRows()).map((row) => [row.decision, row.actor])).toEqual([['auto_deny', 'policy']]);
  });

  it("ends with exit code 1 and the provider's message when the reply fails, and 1 with no prompt", async () => {
    test.fake.script({ kind: 'error', error: 'bad_key' });
    const result = await runCli(['run', 'hello', ...test.providerFlags], { home: test.home });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error: .*key/i);
    const empty = await runCli(['run', ...test.providerFlags], { home: test.home, input: '' });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('Give the prompt');
  });
});
