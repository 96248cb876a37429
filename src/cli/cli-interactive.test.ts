// `workbench chat` in a real terminal (tmux): the approval prompt of seed 000 answered every way, several calls
// waiting in one reply, Ctrl+C during a reply. The scripted fake LLM server and the real Files server.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatGrant } from '../shared/approval';
import type { AuditPage } from '../shared/audit';
import { callOf } from '../main/chat/testing/loop-harness';
import { APPROVAL_CHOICES, REMEMBER_CHOICES } from './approval-prompt';
import { hasColors } from './terminal';
import { cliJson, makeHome, tmuxAvailable } from './testing/cli-process';
import { withFakeProvider, type FakeWorkbench } from './testing/fake-provider';
import { startInTmux, type TmuxSession } from './testing/tmux-session';
import { titleUnless } from '../main/testing/skip-reason';

const tmux = tmuxAvailable();
const title = titleUnless(
  'workbench chat in a terminal (tmux)',
  !tmux,
  'tmux is not installed here; .ci/run installs it',
);

let test: FakeWorkbench;
let terminal: TmuxSession | undefined;
beforeEach(async () => {
  if (!tmux) return;
  test = await withFakeProvider(makeHome());
}, 60_000);
afterEach(async () => {
  if (!tmux) return;
  await terminal?.close();
  terminal = undefined;
  await test.fake.close();
  fs.rmSync(test.home, { recursive: true, force: true });
});

const chat = (env: Record<string, string> = {}): TmuxSession => {
  terminal = startInTmux(['chat', '--provider', 'fake'], test.home, env);
  return terminal;
};
const decisions = async (): Promise<AuditPage['entries']> =>
  (await cliJson<AuditPage>(['audit', 'query', '--kind', 'decision'], { home: test.home })).entries.slice().reverse();
const file = (name: string): string => path.join(test.sandbox, name);

describe.skipIf(!tmux)(title, { timeout: 240_000 }, () => {
  it('asks about several waiting calls one at a time and applies s, o, d and r (with the reason)', async () => {
    test.fake.script(
      {
        kind: 'reply',
        text: ['Writing four files.'],
        toolCalls: ['s', 'o', 'd', 'r'].map((name, index) =>
          callOf('write_file', { path: file(`${name}.txt`), content: name.toUpperCase() }, `call_${index}`),
        ),
      },
      { kind: 'reply', text: ['Two written, two denied.'] },
    );
    const term = chat();
    await term.waitFor('› ');
    term.type('write four files');
    await term.waitFor('(1 of 4)');
    const first = await term.waitFor(APPROVAL_CHOICES);
    // Seed 000's prompt, word for word, with the arguments pretty-printed.
    expect(first).toContain('Allow tool call from Files?');
    expect(first).toContain('  Run write_file from Files');
    expect(first).toContain(`"path": "${file('s.txt')}"`);
    expect(first).toContain(
      'Malicious MCP Servers or conversation content could potentially trick AI Workbench into attempting harmful actions through your installed tools.',
    );
    expect(first).toContain('Review each action carefully before approving.');
    expect(first).toContain(APPROVAL_CHOICES);
    expect(first).toContain(
      '[s] allow for this chat  [o] allow once  [d] deny  [r] deny with a reason  [e] edit arguments  [?] why is this asked',
    );
    term.type('s');
    await term.waitFor('(2 of 4)');
    term.type('o');
    await term.waitFor('(3 of 4)');
    term.type('d');
    await term.waitFor('(4 of 4)');
    term.type('r');
    await term.waitFor('Reason (told to the model');
    term.type('not this one');
    const screen = await term.waitFor('Two written, two denied.');
    await term.waitFor('› ', 2);

    expect(screen).toContain('→ Allowed for this chat');
    expect(screen).toContain('→ Allowed once');
    expect(screen).toContain('→ Denied\n');
    expect(screen).toContain('→ Denied: "not this one"');
    expect(screen.match(/⏺ Files · write_file · ok · \d+ ms/g)).toHaveLength(2);
    expect(screen.match(/⏺ Files · write_file · denied/g)).toHaveLength(2);
    expect(screen).toContain(`You chose 'Deny': "not this one"`);
    expect(fs.readFileSync(file('s.txt'), 'utf8')).toBe('S');
    expect(fs.readFileSync(file('o.txt'), 'utf8')).toBe('O');
    expect(fs.existsSync(file('d.txt'))).toBe(false);
    expect(fs.existsSync(file('r.txt'))).toBe(false);

    expect((await decisions()).map((row) => [row.decision, row.actor, row.reason])).toEqual([
      ['allow_session', 'user', null],
      ['allow_once', 'user', null],
      ['deny', 'user', null],
      ['deny', 'user', 'not this one'],
    ]);
    const grants = await cliJson<ChatGrant[]>(['grants', 'list'], { home: test.home });
    expect(grants.map((grant) => `${grant.serverName}.${grant.toolName}`)).toEqual(['Files.write_file']);
    expect(JSON.stringify(test.fake.generations()[1]?.body)).toContain(
      "User denied tool invocation. The user's reason: not this one",
    );

    term.type('/exit');
    await term.waitFor('EXITED 0');
  });

  it('remembers from the prompt: l shows the suggested rule with the same confirmation, y saves it and the next call like it runs without asking', async () => {
    fs.mkdirSync(file('notes'), { recursive: true });
    test.fake.script(
      { kind: 'reply', toolCalls: [callOf('write_file', { path: file('notes/a.md'), content: 'a' })] },
      { kind: 'reply', text: ['First note written.'] },
      { kind: 'reply', toolCalls: [callOf('write_file', { path: file('notes/b.md'), content: 'a' })] },
      { kind: 'reply', text: ['Second note written.'] },
    );
    const term = chat();
    await term.waitFor('› ');
    term.type('write a note');
    const prompt = await term.waitFor(REMEMBER_CHOICES);
    expect(prompt).toContain('[a] always allow this tool  [l] always allow calls like this');
    term.type('l');
    const confirm = await term.waitFor('Allow and remember? [y/n]');
    expect(confirm).toContain('Always allow calls like this? This call is allowed once now, and:');
    expect(confirm).toContain(`Files write_file when /path matches ${file('notes')}/**`);
    expect(confirm).toContain('/content');
    expect(confirm).toContain('Where to undo: Settings › Approvals › Rules');
    term.type('y');
    await term.waitFor('First note written.');
    await term.waitFor('› ');
    term.type('another note');
    await term.waitFor('Second note written.');
    expect(fs.readFileSync(file('notes/b.md'), 'utf8')).toBe('a');
    const rows = await decisions();
    expect(rows.map((row) => [row.decision, row.actor])).toEqual([
      ['allow_once', 'user'],
      ['auto_allow', 'policy'],
    ]);
    expect(rows[0]?.decidedBy).toContain("You chose 'Always allow calls like this'");
  });

  it('asks again on Enter and on a non-answer, explains with ?, and edits the arguments inline (refusing bad JSON and schema misfits)', async () => {
    test.fake.script(
      { kind: 'reply', toolCalls: [callOf('write_file', { path: file('original.txt'), content: 'original' })] },
      { kind: 'reply', text: ['Edited and written.'] },
    );
    const term = chat();
    await term.waitFor('› ');
    term.type('write a file');
    await term.waitFor(APPROVAL_CHOICES);
    term.press('Enter');
    await term.waitFor('Type s, o, d, r, e, a, l or ? and press Enter.');
    term.type('yes');
    await term.waitFor('"yes" is not an answer. Type s, o, d, r, e, a, l or ? and press Enter.');
    term.type('?');
    const why = await term.waitFor('To stop being asked');
    expect(why).toContain('Why this is asked: Asked: your global setting is to ask before every tool call');
    expect(why).toContain('The server says it may destroy data (a hint from the server, not a guarantee).');
    expect(why).toMatch(/1\. deny-rule: None of your deny rules matches Files\.write_file\./);
    term.type('e');
    await term.waitFor('json> ');
    term.type('{bad json');
    await term.waitFor('That is not valid JSON');
    term.type('{"path": 5}');
    await term.waitFor('The arguments do not fit the input schema of Files.write_file');
    term.type(JSON.stringify({ path: file('edited.txt'), content: 'edited' }));
    await term.waitFor('Arguments accepted.');
    expect(term.screen()).toContain('Run write_file from Files  (arguments edited)');
    term.type('o');
    const screen = await term.waitFor('Edited and written.');
    expect(screen).toMatch(/⏺ Files · write_file · ok · \d+ ms \(edited arguments\)/);
    expect(fs.readFileSync(file('edited.txt'), 'utf8')).toBe('edited');
    expect(fs.existsSync(file('original.txt'))).toBe(false);
    const [decision] = await decisions();
    expect(decision).toMatchObject({
      decision: 'allow_once',
      actor: 'user',
      args: { path: file('original.txt') },
      editedArgs: { path: file('edited.txt'), content: 'edited' },
    });
    // Colours on a terminal.
    expect(hasColors(term.screen(true))).toBe(true);
    term.press('C-d');
    await term.waitFor('EXITED 0');
  });

  it('edits the arguments in $EDITOR, refusing what does not fit and offering to edit again; no colours with NO_COLOR', async () => {
    const next = path.join(test.home, 'next-arguments.json');
    const editor = path.join(test.home, 'fake-editor.sh');
    fs.writeFileSync(editor, `#!/bin/sh\ncat '${next}' > "$1"\n`, { mode: 0o755 });
    fs.writeFileSync(next, '{"path": "x.txt", "unknown": 1}');
    test.fake.script(
      { kind: 'reply', toolCalls: [callOf('write_file', { path: file('model.txt'), content: 'model' })] },
      { kind: 'reply', text: ['Done.'] },
    );
    const term = chat({ EDITOR: editor, NO_COLOR: '1' });
    await term.waitFor('› ');
    term.type('write');
    await term.waitFor(APPROVAL_CHOICES);
    term.type('e');
    await term.waitFor('Edit again? [y/n]');
    expect(term.screen()).toContain('The arguments do not fit the input schema of Files.write_file');
    fs.writeFileSync(next, JSON.stringify({ path: file('from-editor.txt'), content: 'from the editor' }));
    term.type('y');
    await term.waitFor('Arguments accepted.');
    term.type('s');
    await term.waitFor('Done.');
    expect(fs.readFileSync(file('from-editor.txt'), 'utf8')).toBe('from the editor');
    expect((await decisions())[0]).toMatchObject({
      decision: 'allow_session',
      editedArgs: { path: file('from-editor.txt') },
    });
    expect(hasColors(term.screen(true))).toBe(false);
  });

  it('shows how long a call waits; when calls time out at the open prompt it says so, drops the half-typed answer and goes on', async () => {
    await cliJson(['policy', 'set', 'timeout', '6'], { home: test.home });
    test.fake.script(
      {
        kind: 'reply',
        toolCalls: ['late1', 'late2'].map((name, index) =>
          callOf('write_file', { path: file(`${name}.txt`), content: name }, `call_${index}`),
        ),
      },
      { kind: 'reply', text: ['Both timed out.'] },
      { kind: 'reply', toolCalls: [callOf('write_file', { path: file('prompt.txt'), content: 'in time' }, 'call_2')] },
      { kind: 'reply', text: ['Written in time.'] },
    );
    const term = chat();
    await term.waitFor('› ');
    term.type('write two files');
    await term.waitFor(/Waits [1-6] s more for your answer; then it is not run\./);
    // Half an answer, never sent: when the calls time out it must not be taken as one.
    term.press('-l', 'r');
    const timedOut = await term.waitFor('Both timed out.');
    expect(timedOut).toContain(
      '→ Timed out: no one answered in time (the approval timeout), so Files write_file was not run. On to the next call.',
    );
    expect(
      timedOut.match(
        /→ Timed out: no one answered in time \(the approval timeout\), so Files write_file was not run\./g,
      ),
    ).toHaveLength(2);
    expect(timedOut.match(/⏺ Files · write_file · timed out/g)).toHaveLength(2);
    // The prompt says it first; the calls' lines follow; the half-typed "r" was dropped with the question.
    expect(timedOut.indexOf('→ Timed out')).toBeLessThan(timedOut.indexOf('⏺ Files · write_file · timed out'));
    expect(timedOut).toMatch(/\n> \n/);
    expect(timedOut).not.toContain('error:');
    await term.waitFor('› ', 2);
    // The prompt still works: the next call is answered in time.
    term.type('write one more');
    await term.waitFor(APPROVAL_CHOICES, 2);
    term.type('o');
    await term.waitFor('Written in time.');
    expect(fs.existsSync(file('late1.txt')) || fs.existsSync(file('late2.txt'))).toBe(false);
    expect(fs.readFileSync(file('prompt.txt'), 'utf8')).toBe('in time');
    expect((await decisions()).map((row) => [row.decision, row.actor])).toEqual([
      ['timeout', 'system'],
      ['timeout', 'system'],
      ['allow_once', 'user'],
    ]);
    term.type('/exit');
    await term.waitFor('EXITED 0');
  });

  it("lists the servers' prompts with /prompts; /NAME asks for a missing argument, shows the text and sends it only on y", async () => {
    await cliJson(['servers', 'add', 'Everything', '--package', '@modelcontextprotocol/server-everything'], {
      home: test.home,
    });
    test.fake.script({ kind: 'reply', text: ['Sunny in Lyon.'] });
    const term = chat();
    await term.waitFor('› ');
    term.type('/prompts');
    const listed = await term.waitFor('/args-prompt city* state');
    expect(listed).toContain('(Everything)');
    expect(listed).toContain('/completable-prompt department* name*');
    await term.waitFor('› ', 2);
    term.type('/nothing-here');
    await term.waitFor('No prompt is named "nothing-here". /prompts lists them.');
    term.type('/args-prompt state=Rhône');
    await term.waitFor('city (Name of the city): ');
    term.type('Lyon');
    const shown = await term.waitFor('Send it? [y/n] ');
    expect(shown).toContain("/args-prompt from Everything:\n  What's weather in Lyon, Rhône?");
    expect(test.fake.generations()).toHaveLength(0);
    term.type('y');
    await term.waitFor('Sunny in Lyon.');
    expect(JSON.stringify(test.fake.generations()[0]?.body)).toContain("What's weather in Lyon, Rhône?");
    // The server's suggestions for an argument, given the ones before it.
    await term.waitFor('› ', 4);
    term.type('/completable-prompt');
    await term.waitFor('suggestions: Engineering, Sales, Marketing, Support');
    term.type('Engineering');
    await term.waitFor(
      'suggestions: Alice, Bob, Charlie\nname (Choose a team member to lead the selected department.): ',
    );
    term.type('Alice');
    await term.waitFor('Please promote Alice to the head of the Engineering team.');
    term.type('n');
    // n sends nothing.
    await term.waitFor('› ', 5);
    term.type('/simple-prompt');
    await term.waitFor('This is a simple prompt without arguments.');
    term.type('n');
    await term.waitFor('› ', 6);
    expect(test.fake.generations()).toHaveLength(1);
    term.type('/exit');
    await term.waitFor('EXITED 0');
  });

  it('run on a terminal asks too (prompt on stderr), --approve deny does not, and Ctrl+C at the prompt stops the run with 130', async () => {
    test.fake.script(
      { kind: 'reply', toolCalls: [callOf('write_file', { path: file('asked.txt'), content: 'asked' })] },
      { kind: 'reply', text: ['Written.'] },
      { kind: 'reply', toolCalls: [callOf('write_file', { path: file('never.txt'), content: 'never' })] },
      { kind: 'reply', text: ['Not written.'] },
      { kind: 'reply', toolCalls: [callOf('write_file', { path: file('stopped.txt'), content: 'stopped' })] },
    );
    terminal = startInTmux(['run', 'write asked.txt', '--provider', 'fake'], test.home);
    await terminal.waitFor(APPROVAL_CHOICES);
    terminal.type('o');
    await terminal.waitFor('EXITED 0');
    expect(terminal.screen()).toContain('Written.');
    expect(fs.readFileSync(file('asked.txt'), 'utf8')).toBe('asked');
    await terminal.close();

    terminal = startInTmux(['run', 'write never.txt', '--provider', 'fake', '--approve', 'deny'], test.home);
    await terminal.waitFor('EXITED 2');
    expect(terminal.screen()).not.toContain(APPROVAL_CHOICES);
    await terminal.close();

    terminal = startInTmux(['run', 'write stopped.txt', '--provider', 'fake'], test.home);
    await terminal.waitFor(APPROVAL_CHOICES);
    terminal.press('C-c');
    await terminal.waitFor('EXITED 130');
    expect(fs.existsSync(file('never.txt')) || fs.existsSync(file('stopped.txt'))).toBe(false);
    expect((await decisions()).map((row) => [row.decision, row.actor])).toEqual([
      ['allow_once', 'user'],
      ['deny', 'system'],
      ['cancelled', 'system'],
    ]);
  });

  it('shows escape sequences from the model and from a tool as nothing: the screen is not cleared, nothing is coloured or faked', async () => {
    const attack = '\u001b[2J\u001b[31mFAKE: Allowed once\u001b[0m';
    await cliJson(['policy', 'set', 'tool', 'Files', 'read_text_file', 'auto-approve'], { home: test.home });
    test.fake.script(
      // The reply's text arrives in pieces that cut the sequences in two.
      {
        kind: 'reply',
        text: ['Reading it. \u001b[2', 'J\u001b[3', '1mFAKE: Allowed once\u001b]0;pwned\u0007\u202Edone'],
        toolCalls: [callOf('read_text_file', { path: file(`missing${attack}.txt`) })],
      },
      { kind: 'reply', text: ['Finished.'] },
    );
    const term = chat();
    await term.waitFor('› ');
    term.type('read the file');
    const screen = await term.waitFor('Finished.');
    // ESC[2J would have wiped the header and the prompt above it.
    expect(screen).toContain('AI Workbench');
    expect(screen).toContain('› read the file');
    expect(screen).toContain('Reading it. FAKE: Allowed oncedone');
    expect(screen).toMatch(/⏺ Files · read_text_file · error/);
    const withEscapes = term.screen(true);
    // eslint-disable-next-line no-control-regex -- looking for the escape sequence itself
    expect(withEscapes).not.toMatch(/\u001b\[31m\s*FAKE/);
    expect(withEscapes).not.toContain('\u202E');
    // The CLI's own colours are still there.
    expect(hasColors(withEscapes)).toBe(true);
    term.type('/exit');
    await term.waitFor('EXITED 0');
    await term.close();

    // The tool's own words (its error names the file) reach the terminal through the audit log: harmless there too.
    terminal = startInTmux(['audit', 'query', '--kind', 'result'], test.home);
    const rows = await terminal.waitFor('EXITED 0');
    expect(rows).toContain('Files.read_text_file');
    expect(rows).toContain('FAKE: Allowed once');
    expect(rows).toContain('EXITED 0');
    // eslint-disable-next-line no-control-regex -- looking for the escape sequence itself
    expect(terminal.screen(true)).not.toMatch(/\u001b\[31m\s*FAKE/);
  });

  it('stops a streaming reply on Ctrl+C and stays usable; Ctrl+C twice quits with 130', async () => {
    test.fake.script(
      { kind: 'reply', text: ['Thinking', ' very hard'], holdOpenAfter: 3 },
      { kind: 'reply', text: ['Back again.'] },
      { kind: 'reply', text: ['Thinking again'], holdOpenAfter: 2 },
    );
    const term = chat();
    await term.waitFor('› ');
    term.type('think');
    await term.waitFor('Thinking very hard');
    term.press('C-c');
    await term.waitFor('Stopping the reply… (Ctrl+C again to quit)');
    await term.waitFor('· You stopped this reply.');
    expect(await test.fake.generations()[0]?.closed).toBe(true);
    await term.waitFor('› ', 2);
    term.type('are you there?');
    await term.waitFor('Back again.');
    // What the model was sent next: the stopped reply's text, then the new message.
    expect(JSON.stringify(test.fake.generations()[1]?.body)).toContain('are you there?');
    term.type('think again');
    await term.waitFor('Thinking again');
    term.press('C-c');
    await term.waitFor('Stopping the reply');
    term.press('C-c');
    await term.waitFor('EXITED 130');
    const messages = await cliJson<{ messages: { role: string; kind?: string }[] }>(
      ['chats', 'show', (await cliJson<{ id: string }[]>(['chats', 'list'], { home: test.home }))[0]?.id as string],
      { home: test.home },
    );
    expect(messages.messages.filter((message) => message.role === 'system').map((message) => message.kind)).toEqual([
      'stopped',
      'stopped',
    ]);
  });
});
