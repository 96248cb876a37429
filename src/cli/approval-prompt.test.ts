import { describe, expect, it } from 'vitest';
import type { ToolCallRequest } from '../shared/approval';
import {
  APPROVAL_CHOICES,
  REMEMBER_CHOICES,
  askAboutCalls,
  checkArguments,
  foldedArguments,
  remaining,
  stopAskingHint,
} from './approval-prompt';
import type { CallWait } from './exchange';
import { ABANDONED, type LineReader } from './line-reader';
import type { Colors } from './terminal';

const request: ToolCallRequest = {
  toolCallId: 'c1',
  serverName: 'Files',
  toolName: 'write_file',
  args: { path: 'a.txt', content: 'A' },
  definitionHash: 'h1',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  decision: {
    outcome: 'ask',
    source: { kind: 'default' },
    reason: 'Asked: nothing allows it',
    definitionChanged: false,
  },
};

describe('the approval prompt', () => {
  it('pretty-prints the arguments and folds long values, saying how much is left out', () => {
    const text = foldedArguments({
      path: 'notes.txt',
      content: 'x'.repeat(500),
      lines: Array.from({ length: 25 }, (_, index) => index),
    });
    expect(text).toContain('"path": "notes.txt"');
    expect(text).toContain(`"content": "${'x'.repeat(160)}… (340 more characters)"`);
    expect(text).toContain('"… 5 more items"');
    expect(text.split('\n')[0]).toBe('{');
  });

  it('accepts edited arguments only when they are a JSON object that fits the schema, and says why not', () => {
    expect(checkArguments('{"path": "b.txt", "content": "B"}', request)).toEqual({ path: 'b.txt', content: 'B' });
    expect(checkArguments('{path:', request)).toMatch(/^That is not valid JSON: .*The arguments were not changed\.$/);
    expect(checkArguments('[1, 2]', request)).toBe(
      'The arguments must be a JSON object ({ … }). The arguments were not changed.',
    );
    expect(checkArguments('{"path": 5, "extra": true}', request)).toMatch(
      /^The arguments do not fit the input schema of Files\.write_file: .*\/content.*required.*\/path.*string/,
    );
    expect(
      checkArguments('{"path": "x"}', {
        ...request,
        inputSchema: { type: 'object', properties: { path: { type: 'nonsense' } } },
      }),
    ).toMatch(/input schema is invalid/);
  });

  it("says on the card that a tool set to 'Always ask' keeps asking after 's', records the grant anyway, and points to the setting", async () => {
    const keepsAsking =
      "This tool will keep asking, even after 'Allow for this chat': the tool setting 'Files.write_file' is 'Always ask'.";
    const explicit: ToolCallRequest = {
      ...request,
      decision: {
        outcome: 'ask',
        source: { kind: 'tool-setting', serverName: 'Files', toolName: 'write_file', setting: 'always-ask' },
        reason: 'Asked',
        definitionChanged: false,
        keepsAsking,
      },
    };
    const answers = ['?', 's'];
    const ask = (): Promise<string | null> => Promise.resolve(answers.shift() ?? null);
    const reader: LineReader = { ask, askUnless: ask, suspend: (work) => work(), close: () => {} };
    const plain = (text: string | number | null | undefined): string => String(text ?? '');
    const colors: Colors = {
      bold: plain,
      dim: plain,
      red: plain,
      green: plain,
      yellow: plain,
      cyan: plain,
      magenta: plain,
    };
    let written = '';
    const outcome = await askAboutCalls([explicit], {
      reader,
      colors,
      write: (text) => (written += text),
      explain: () => Promise.resolve(undefined),
    });
    expect(outcome).toEqual({
      kind: 'answers',
      approvals: [{ toolCallId: 'c1', decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' }],
    });
    expect(written).toContain(`  ${keepsAsking}\n`);
    expect(written).toContain(
      '→ Allowed for this chat (recorded, but this tool keeps asking while that setting stands)',
    );
    expect(written).toContain(
      'To stop being asked: workbench policy set tool Files write_file inherit (or auto-approve); allowing it for this chat (s) does not.',
    );
    expect(written).not.toContain('To stop being asked: allow it for this chat (s)');
    // Without an explicit ask, 's' is what stops the questions.
    expect(stopAskingHint(request)).toBe(
      'To stop being asked: allow it for this chat (s), or set a rule: workbench policy set tool Files write_file auto-approve',
    );
    expect(
      stopAskingHint({
        ...explicit,
        decision: { ...explicit.decision, source: { kind: 'ask-rule', ruleId: 'look', ruleNumber: 1 } },
      }),
    ).toBe(
      'To stop being asked: change or remove the ask rule (workbench policy set rule remove look); allowing it for this chat (s) does not.',
    );
  });

  it("shows every choice again after `?`: [a] and [l] too, not only seed 000's", async () => {
    const answers = ['?', 'o'];
    const ask = (): Promise<string | null> => Promise.resolve(answers.shift() ?? null);
    const reader: LineReader = { ask, askUnless: ask, suspend: (work) => work(), close: () => {} };
    const plain = (text: string | number | null | undefined): string => String(text ?? '');
    const colors: Colors = {
      bold: plain,
      dim: plain,
      red: plain,
      green: plain,
      yellow: plain,
      cyan: plain,
      magenta: plain,
    };
    let written = '';
    const rememberOptions = (): never => {
      throw new Error('not asked in this test');
    };
    await askAboutCalls([request], {
      reader,
      colors,
      write: (text) => (written += text),
      explain: () => Promise.resolve(undefined),
      rememberOptions,
    });
    const afterWhy = written.slice(written.indexOf(APPROVAL_CHOICES) + APPROVAL_CHOICES.length);
    expect(afterWhy).toContain(`${APPROVAL_CHOICES}\n${REMEMBER_CHOICES}\n`);
  });

  it('shows how long each call still waits, and when one stops waiting while asked (timed out, cancelled) says so and asks about the next', async () => {
    const plain = (text: string | number | null | undefined): string => String(text ?? '');
    const colors: Colors = {
      bold: plain,
      dim: plain,
      red: plain,
      green: plain,
      yellow: plain,
      cyan: plain,
      magenta: plain,
    };
    const waits = new Map<string, CallWait & { controller: AbortController }>();
    for (const id of ['c1', 'c2', 'c3']) {
      const controller = new AbortController();
      waits.set(id, { expiresAt: 1_000_000 + 299_500, gone: controller.signal, controller });
    }
    // c1: the person starts a reason, then the call times out; c2 was cancelled before it is reached; c3 is answered.
    const script: (string | ((signal: AbortSignal) => void))[] = [
      'r',
      () =>
        waits
          .get('c1')
          ?.controller.abort({ outcome: 'timeout', reason: 'No one decided within 5 minutes (approval timeout)' }),
      'o',
    ];
    const asked: string[] = [];
    const reader: LineReader = {
      ask: () => Promise.reject(new Error('every question of a call that can time out goes through askUnless')),
      askUnless: (prompt, signal) => {
        asked.push(prompt);
        const next = script.shift();
        if (typeof next === 'function') {
          next(signal);
          waits.get('c2')?.controller.abort({ outcome: 'cancelled', reason: 'You stopped this reply.' });
        }
        return Promise.resolve(signal.aborted ? ABANDONED : typeof next === 'string' ? next : null);
      },
      suspend: (work) => work(),
      close: () => {},
    };
    let written = '';
    const requests = ['c1', 'c2', 'c3'].map((toolCallId) => ({ ...request, toolCallId }));
    const outcome = await askAboutCalls(requests, {
      reader,
      colors,
      write: (text) => (written += text),
      explain: () => Promise.resolve(undefined),
      waits,
      now: () => 1_000_000,
    });
    expect(outcome).toEqual({
      kind: 'answers',
      approvals: [{ toolCallId: 'c3', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' }],
    });
    expect(asked).toEqual(['> ', 'Reason (told to the model; empty goes back): ', '> ']);
    expect(written).toContain('  Waits 4 min 59 s more for your answer; then it is not run.\n');
    expect(written).toContain(
      '→ Timed out: no one answered in time (the approval timeout), so Files write_file was not run. On to the next call.\n',
    );
    expect(written).toContain('→ Files write_file was cancelled meanwhile; it was not run. On to the next call.\n');
    // Nothing of the abandoned reason question was taken as an answer, and c2's card was never shown.
    expect(written.match(/Allow tool call from Files\?/g)).toHaveLength(2);
    expect(written).not.toContain('Denied');
  });

  it('says the time left as a person reads it', () => {
    expect([0, 12_400, 60_000, 299_500, 3_600_000, 7_500_000, -5].map(remaining)).toEqual([
      '0 s',
      '12 s',
      '1 min',
      '4 min 59 s',
      '1 h',
      '2 h 5 min',
      '0 s',
    ]);
  });
});
