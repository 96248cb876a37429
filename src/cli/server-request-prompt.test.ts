import { describe, expect, it } from 'vitest';
import type { ServerRequestView } from '../shared/server-request-views';
import type { LineReader } from './line-reader';
import { ABANDONED, INTERRUPTED } from './line-reader';
import {
  askAboutServerRequest,
  SAMPLING_CHAT_LESS_CHOICES,
  SAMPLING_CHOICES,
  WIDENING_CHOICES,
} from './server-request-prompt';
import type { Colors } from './terminal';

const plain = (text: string): string => text;
const colors: Colors = {
  bold: plain,
  dim: plain,
  red: plain,
  green: plain,
  yellow: plain,
  cyan: plain,
  magenta: plain,
};

function prompt(request: ServerRequestView, answers: (string | null | typeof INTERRUPTED)[]) {
  const ask = (): Promise<string | null> => Promise.resolve(answers.length > 0 ? (answers.shift() as string) : null);
  const reader: LineReader = { ask, askUnless: ask, suspend: (work) => work(), close: () => {} };
  let written = '';
  return {
    outcome: askAboutServerRequest(request, { reader, colors, write: (text) => (written += text) }),
    written: () => written,
  };
}

const sampling: ServerRequestView = {
  id: 'r1',
  serverName: 'Everything',
  chatId: '00000000-0000-4000-8000-000000000001',
  createdAt: 0,
  kind: 'sampling',
  stage: 'request',
  messages: [{ role: 'user', text: 'Summarise \u001b[31mthis\u001b[0m' }],
  systemPrompt: 'Be brief.',
  maxTokens: 50,
  temperature: null,
  modelPreferences: null,
  model: { providerId: 'fake', model: 'fake-large' },
  budget: { used: 10, limit: 100 },
  answer: null,
};

describe('the server request prompt (one at a time, like tool calls)', () => {
  it('sampling: shows the prompt without the terminal escapes the server put in it, takes an edit, then allow for this chat', async () => {
    const run = prompt(sampling, ['', 'x', 'e', 'Summarise that', 's']);
    expect(await run.outcome).toEqual({
      kind: 'decision',
      decision: { action: 'allow-chat', messages: ['Summarise that'] },
    });
    expect(run.written()).toContain('Allow Everything to use your model?');
    expect(run.written()).toContain('max 50 tokens · budget 10 of 100 used');
    expect(run.written()).toContain('System prompt: Be brief.');
    expect(run.written()).not.toContain('\u001b[31m');
    expect(run.written()).toContain(SAMPLING_CHOICES);
  });

  it('sampling: an image in a message is named with its type and size, never its base64', async () => {
    const data = 'A'.repeat(16_384);
    const withImage: ServerRequestView = {
      ...sampling,
      messages: [
        {
          role: 'user',
          text: 'What is in this picture?',
          media: [{ type: 'image', mimeType: 'image/png', bytes: 12_288, data }],
        },
      ],
    };
    const run = prompt(withImage, ['d']);
    expect(await run.outcome).toEqual({ kind: 'decision', decision: { action: 'deny' } });
    expect(run.written()).toContain('1. user: What is in this picture? [image image/png, 12 KB]');
    expect(run.written()).not.toContain(data.slice(0, 100));
  });

  it('a sandbox widening: says what it grants; a allows, d denies, anything else asks again', async () => {
    const widening: ServerRequestView = {
      id: 'widen-1',
      kind: 'sandbox-widening',
      serverName: 'Files',
      chatId: null,
      createdAt: 0,
      grant: { kind: 'read', path: '/opt/notes' },
      description: 'Files may read /opt/notes (and everything in it)',
    };
    const run = prompt(widening, ['yes', 'a']);
    expect(await run.outcome).toEqual({ kind: 'decision', decision: { action: 'allow-once' } });
    expect(run.written()).toContain("Widen Files's sandbox?");
    expect(run.written()).toContain('Files may read /opt/notes (and everything in it)');
    expect(run.written()).toContain(WIDENING_CHOICES);
    expect(run.written()).toContain('Type a or d and press Enter.');
    expect(await prompt(widening, ['d']).outcome).toEqual({ kind: 'decision', decision: { action: 'deny' } });
  });

  it('sampling with no chat: "allow for this chat" is not offered, and s is not taken', async () => {
    const run = prompt({ ...sampling, chatId: null }, ['s', 'd']);
    expect(await run.outcome).toEqual({ kind: 'decision', decision: { action: 'deny' } });
    expect(run.written()).toContain(SAMPLING_CHAT_LESS_CHOICES);
    expect(run.written()).toContain('Type o, d or e and press Enter.');
  });

  it("the model's answer: shown, edited, sent; Ctrl+C and a closed input stop asking", async () => {
    const answer: ServerRequestView = {
      ...sampling,
      stage: 'answer',
      answer: { text: 'The summary.', model: 'fake-large', stopReason: 'endTurn', outputTokens: 3 },
    };
    const run = prompt(answer, ['e', 'A better summary.', 'y']);
    expect(await run.outcome).toEqual({ kind: 'decision', decision: { action: 'send', text: 'A better summary.' } });
    expect(run.written()).toContain('The summary.');
    expect(await prompt(answer, [INTERRUPTED]).outcome).toEqual({ kind: 'interrupted' });
    expect(await prompt(answer, [null]).outcome).toEqual({ kind: 'closed' });
  });

  it('a form is filled one field per line: defaults kept, numbers and booleans typed, lists split', async () => {
    const form: ServerRequestView = {
      id: 'r2',
      serverName: 'Everything',
      chatId: null,
      createdAt: 0,
      kind: 'elicitation',
      mode: 'form',
      message: 'Tell me',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Name' },
          age: { type: 'integer' },
          ok: { type: 'boolean' },
          color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
        },
        required: ['name'],
      },
    };
    const run = prompt(form, ['a', 'Ada', '36', 'yes', '', 'a, b']);
    expect(await run.outcome).toEqual({
      kind: 'decision',
      decision: { action: 'accept', content: { name: 'Ada', age: 36, ok: true, color: 'red', tags: ['a', 'b'] } },
    });
    expect(run.written()).toContain('Everything asks for information');
    expect(await prompt(form, ['c']).outcome).toEqual({ kind: 'decision', decision: { action: 'cancel' } });
  });

  it('a form field that does not fit is named by its title and asked again alone; the others keep what was typed', async () => {
    const form: ServerRequestView = {
      id: 'r4',
      serverName: 'Everything',
      chatId: null,
      createdAt: 0,
      kind: 'elicitation',
      mode: 'form',
      message: 'Your details',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Full name', description: 'As on your passport' },
          email: { type: 'string', title: 'Email', format: 'email' },
          age: { type: 'integer', title: 'Age', minimum: 0 },
          hero: {
            type: 'string',
            title: 'Hero',
            oneOf: [
              { const: 'hero-1', title: 'Ada' },
              { const: 'hero-2', title: 'Grace' },
            ],
          },
          tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['a', 'b'] } },
        },
        required: ['name', 'email'],
      },
    };
    // name left empty (required), a bad email, age -3, hero by number, tags by title: then only name, email and age
    // are asked again, in the form's order.
    const run = prompt(form, ['a', '', 'not-an-email', '-3', '2', 'B', 'Ada Lovelace', 'ada@example.com', '36']);
    expect(await run.outcome).toEqual({
      kind: 'decision',
      decision: {
        action: 'accept',
        content: { name: 'Ada Lovelace', email: 'ada@example.com', age: 36, hero: 'hero-2', tags: ['b'] },
      },
    });
    const written = run.written();
    expect(written).toContain('As on your passport');
    expect(written).toContain('1) Ada (hero-1)');
    expect(written).toContain('2) Grace (hero-2)');
    expect(written).toContain('Full name is required.');
    expect(written).toContain('Email must be an email address, like name@example.com.');
    expect(written).toContain('Age must be 0 or more.');
    expect(written).not.toContain('must match format');
    // After the problems, the next questions are the three wrong fields only: Hero and Tags are not asked again.
    const again = written.slice(written.indexOf('Age must be 0 or more.'));
    expect(again).not.toContain('Hero');
    expect(again).not.toContain('Tags');
  });

  it('a choice typed that is none of the choices is named with the choices by title and asked again', async () => {
    const form: ServerRequestView = {
      id: 'r5',
      serverName: 'Everything',
      chatId: null,
      createdAt: 0,
      kind: 'elicitation',
      mode: 'form',
      message: 'Pick',
      requestedSchema: {
        type: 'object',
        properties: { size: { type: 'string', title: 'Size', enum: ['s', 'l'], enumNames: ['Small', 'Large'] } },
        required: ['size'],
      },
    };
    const run = prompt(form, ['a', 'huge', 'large']);
    expect(await run.outcome).toEqual({ kind: 'decision', decision: { action: 'accept', content: { size: 'l' } } });
    expect(run.written()).toContain('Size must be one of: Small, Large.');
  });

  it('a URL is printed whole and only a confirmation accepts it', async () => {
    const url: ServerRequestView = {
      id: 'r3',
      serverName: 'Everything',
      chatId: null,
      createdAt: 0,
      kind: 'elicitation',
      mode: 'url',
      message: 'Sign in',
      url: 'https://example.com/a?b=c',
      elicitationId: 'e1',
    };
    const run = prompt(url, ['', 'o']);
    expect(await run.outcome).toEqual({ kind: 'decision', decision: { action: 'accept' } });
    expect(run.written()).toContain('https://example.com/a?b=c');
    expect(await prompt(url, ['d']).outcome).toEqual({ kind: 'decision', decision: { action: 'decline' } });
  });
});

describe('a request answered elsewhere while it is asked about', () => {
  it('withdraws the question: gone, and nothing typed later answers it', async () => {
    const gone = new AbortController();
    let typed: ((line: string) => void) | undefined;
    const reader: LineReader = {
      ask: () => new Promise((resolve) => (typed = resolve)),
      askUnless: (_prompt, signal) =>
        new Promise((resolve) => {
          typed = resolve;
          signal.addEventListener('abort', () => resolve(ABANDONED), { once: true });
        }),
      suspend: (work) => work(),
      close: () => {},
    };
    const outcome = askAboutServerRequest(sampling, { reader, colors, write: () => {}, gone: gone.signal });
    await Promise.resolve();
    gone.abort('Allowed once');
    await expect(outcome).resolves.toEqual({ kind: 'gone' });
    typed?.('o');
    await expect(outcome).resolves.toEqual({ kind: 'gone' });
  });
});
