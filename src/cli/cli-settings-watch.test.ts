// `workbench chat` follows settings.json while it runs (docs/user/cli.md#settingsjson-while-chat-runs), in a real
// terminal (tmux), with a real settings file edited during the run and the real memory server from node_modules.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { titleUnless } from '../main/testing/skip-reason';
import { IDENTITY_CHOICES } from './identity-prompt';
import { assertBuilt, cliJson, makeHome, runCli, tmuxAvailable } from './testing/cli-process';
import { withFakeProvider, type FakeWorkbench } from './testing/fake-provider';
import { startInTmux, type TmuxSession } from './testing/tmux-session';

const MEMORY_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');
const tmux = tmuxAvailable();
const title = titleUnless(
  'workbench chat follows settings.json',
  !tmux,
  'tmux is not installed here; .ci/run installs it',
);

let test: FakeWorkbench;
let terminal: TmuxSession | undefined;
beforeEach(async () => {
  if (!tmux) return;
  assertBuilt();
  test = await withFakeProvider(makeHome());
}, 60_000);
afterEach(async () => {
  if (!tmux) return;
  await terminal?.close();
  terminal = undefined;
  await test.fake.close();
  fs.rmSync(test.home, { recursive: true, force: true });
});

/** Whether a process whose command line holds `tag` runs now (the server, or the sandbox around it). */
const running = (tag: string): boolean =>
  spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .stdout.split('\n')
    .some((line) => line.includes(tag));
/** Waits up to 20 s for `running(tag)` to be `wanted`, and answers what it is then. */
const becomes = async (tag: string, wanted: boolean): Promise<boolean> => {
  for (let tries = 0; running(tag) !== wanted && tries < 200; tries++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return running(tag);
};

/**
 * Notes (the memory server, its command line tagged so that its process can be found) added through the CLI, and
 * saves of settings.json as an editor makes them (a new file renamed over it).
 */
async function notesServer() {
  const run = randomUUID().slice(0, 8);
  const tag = (which: string): string => `aiwb-tag-${run}-${which}`;
  const settingsFile = path.join(test.home, 'settings.json');
  await cliJson(['servers', 'remove', 'Files'], { home: test.home });
  const added = await runCli(['servers', 'add', 'Notes', '--', process.execPath, MEMORY_SERVER, tag('a')], {
    home: test.home,
  });
  expect(added.code).toBe(0);
  const good = fs.readFileSync(settingsFile, 'utf8');
  /** Saves settings.json as an editor does: a new file renamed over it. */
  const save = (text: string): void => {
    const temporary = `${settingsFile}.${randomUUID()}~`;
    fs.writeFileSync(temporary, text);
    fs.renameSync(temporary, settingsFile);
  };
  /** The file with Notes' command changed (its record of what it ran when added stays as it is). */
  const withTag = (which: string): string => {
    const document = JSON.parse(good) as { mcpServers: Record<string, { args: string[] }> };
    const notes = document.mcpServers['Notes'];
    if (!notes) throw new Error(`no Notes in ${good}`);
    notes.args = notes.args.map((arg) => (arg === tag('a') ? tag(which) : arg));
    return JSON.stringify(document, null, 2);
  };
  return { tag, good, save, withTag };
}

describe.skipIf(!tmux)(title, { timeout: 180_000 }, () => {
  it('a command changed by hand asks at once; k keeps it stopped, a starts it; a half-written file is said once and changes nothing', async () => {
    const { tag, good, save, withTag } = await notesServer();
    terminal = startInTmux(['chat', '--provider', 'fake'], test.home);
    await terminal.waitFor('› ');
    expect(await becomes(tag('a'), true)).toBe(true);

    // Half-written: said once in clear words, twice saved the same way still once; what runs stays.
    save(good.slice(0, good.length / 2));
    await terminal.waitFor('The settings in force are the last good ones.');
    save(good.slice(0, good.length / 2 - 1) + ' ');
    save(good.slice(0, good.length / 2));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const problem = terminal.screen();
    expect(
      problem.match(/settings\.json: .*is not valid JSON.*The settings in force are the last good ones\./g),
    ).toEqual([expect.any(String)]);
    expect(running(tag('a'))).toBe(true);

    // The command changed by hand: asked at once; what ran stops; the new command does not start.
    save(withTag('b'));
    const asked = await terminal.waitFor(IDENTITY_CHOICES);
    expect(asked).toContain('Start Notes?');
    expect(asked).toContain('Notes runs something else than when its settings were made.');
    expect(asked).toContain(`now: ${process.execPath} ${MEMORY_SERVER} ${tag('b')}`);
    expect(await becomes(tag('a'), false)).toBe(false);
    expect(running(tag('b'))).toBe(false);
    terminal.type('k');
    await terminal.waitFor('Notes stays stopped. To start it later: workbench servers accept Notes');
    await terminal.waitFor('› ', 3);
    expect(running(tag('b'))).toBe(false);

    // Changed again and accepted: it starts.
    save(withTag('c'));
    await terminal.waitFor(IDENTITY_CHOICES, 2);
    expect(running(tag('c'))).toBe(false);
    terminal.type('a');
    await terminal.waitFor('it starts, and your settings count for it.');
    expect(await becomes(tag('c'), true)).toBe(true);
    expect(running(tag('b'))).toBe(false);
    terminal.type('/exit');
    await terminal.waitFor('EXITED 0');
    expect(await becomes(tag('c'), false)).toBe(false);
  });
  it('a command changed while a reply streams is asked about at once, and the call the reply then makes of it is not asked about or run before the answer', async () => {
    const { tag, save, withTag } = await notesServer();
    let release = (): void => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    test.fake.script(
      {
        kind: 'reply',
        text: ['Let me look', ' at your notes.'],
        toolCalls: [{ id: 'call_0', name: 'Notes__read_graph', argumentChunks: ['{}'] }],
        // The reply stops streaming after "Let me look" until the test lets it go on.
        pauseAfter: { events: 2, until: released },
      },
      { kind: 'reply', text: ['Your notes are empty.'] },
    );
    terminal = startInTmux(['chat', '--provider', 'fake'], test.home);
    await terminal.waitFor('› ');
    expect(await becomes(tag('a'), true)).toBe(true);
    terminal.type('what is in my notes?');
    await terminal.waitFor('Let me look');

    // Saved while the reply streams: asked at once, in the middle of the reply; what ran stops, the new one waits.
    save(withTag('b'));
    const asked = await terminal.waitFor(IDENTITY_CHOICES);
    expect(asked).toContain('Start Notes?');
    expect(asked).toContain(`now: ${process.execPath} ${MEMORY_SERVER} ${tag('b')}`);
    expect(asked).not.toContain(' at your notes.');
    expect(await becomes(tag('a'), false)).toBe(false);

    // The reply goes on and calls Notes while the question is open: neither asked about nor run.
    release();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const meanwhile = terminal.screen();
    expect(meanwhile).not.toContain('Allow tool call from Notes?');
    expect(meanwhile).not.toContain(' at your notes.');
    expect(running(tag('b'))).toBe(false);
    expect(test.fake.generations()).toHaveLength(1);

    // Accepted: it starts; then the call is asked about, and runs once allowed.
    terminal.type('a');
    await terminal.waitFor('it starts, and your settings count for it.');
    expect(await becomes(tag('b'), true)).toBe(true);
    const card = await terminal.waitFor('Allow tool call from Notes?');
    expect(card).toContain(' at your notes.');
    terminal.type('o');
    await terminal.waitFor('Your notes are empty.');
    expect(test.fake.generations()).toHaveLength(2);
    expect(JSON.stringify(test.fake.generations()[1]?.body)).toContain('entities');
    terminal.type('/exit');
    await terminal.waitFor('EXITED 0');
  });

  it('a call allowed while the question is open waits for the answer: accepted, it runs then; kept stopped, it is refused', async () => {
    // Approvals off (before the file is read for the saves below): the calls are allowed without a question.
    expect((await runCli(['policy', 'set', 'mode', 'never-ask'], { home: test.home })).code).toBe(0);
    const { tag, save, withTag } = await notesServer();
    const gates = [0, 1].map(() => {
      let release = (): void => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      return { release, released };
    });
    const [first, second] = gates as [(typeof gates)[0], (typeof gates)[0]];
    test.fake.script(
      {
        kind: 'reply',
        text: ['Let me look', ' at your notes.'],
        toolCalls: [{ id: 'call_0', name: 'Notes__read_graph', argumentChunks: ['{}'] }],
        pauseAfter: { events: 2, until: first.released },
      },
      { kind: 'reply', text: ['Your notes are empty.'] },
      {
        kind: 'reply',
        text: ['Looking', ' again.'],
        toolCalls: [{ id: 'call_1', name: 'Notes__read_graph', argumentChunks: ['{}'] }],
        pauseAfter: { events: 2, until: second.released },
      },
      { kind: 'reply', text: ['Notes did not start.'] },
    );
    terminal = startInTmux(['chat', '--provider', 'fake'], test.home);
    await terminal.waitFor('› ');
    expect(await becomes(tag('a'), true)).toBe(true);
    terminal.type('what is in my notes?');
    await terminal.waitFor('Let me look');

    // The command changed while the reply streams: asked at once.
    save(withTag('b'));
    await terminal.waitFor(IDENTITY_CHOICES);
    expect(await becomes(tag('a'), false)).toBe(false);

    // The reply goes on and calls Notes, allowed, while the question is open: it waits, and runs nothing.
    first.release();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(terminal.screen()).not.toContain('is not ready');
    expect(running(tag('b'))).toBe(false);
    expect(test.fake.generations()).toHaveLength(1);

    // Accepted: Notes starts, and the call that waited runs on it.
    terminal.type('a');
    await terminal.waitFor('it starts, and your settings count for it.');
    expect(await becomes(tag('b'), true)).toBe(true);
    await terminal.waitFor('Your notes are empty.');
    expect(test.fake.generations()).toHaveLength(2);
    const ran = JSON.stringify(test.fake.generations()[1]?.body);
    expect(ran).toContain('entities');
    expect(ran).not.toContain('not ready');

    // Changed again and kept stopped: the call that waited is refused, saying why, and nothing ran.
    terminal.type('and now?');
    await terminal.waitFor('Looking');
    save(withTag('c'));
    await terminal.waitFor(IDENTITY_CHOICES, 2);
    second.release();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(test.fake.generations()).toHaveLength(3);
    terminal.type('k');
    await terminal.waitFor('Notes did not start.');
    expect(running(tag('c'))).toBe(false);
    // What the model is told of the call: the refusal, not a result.
    const { messages } = test.fake.generations()[3]?.body as { messages: { role: string; content: unknown }[] };
    const told = JSON.stringify(messages.at(-1));
    expect(told).toContain('stopped: what it runs now is not accepted, so Notes.read_graph did not run.');
    expect(told).not.toContain('entities');
    terminal.type('/exit');
    await terminal.waitFor('EXITED 0');
  });
});
