import { describe, expect, it } from 'vitest';
import type { ElicitationFormView, ServerRequestView } from '../../../../shared/server-request-views';
import { RequestCardStates } from './request-card-state';
import { applyRequestChange, applyRequestList } from './use-server-request-cards';

const CHAT = '6f1c2d6e-3b7a-4d4e-9a55-0d3c5b2f9a10';

const form = (id: string): ElicitationFormView => ({
  id,
  kind: 'elicitation',
  mode: 'form',
  serverName: 'Everything',
  chatId: CHAT,
  createdAt: 1,
  message: 'Who are you?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
});

describe("a server request card's kept state", () => {
  it('keeps each part of each request as set, apart, until the request is forgotten', () => {
    const kept = new RequestCardStates();
    const problems = [{ field: 'email', message: 'Email must be an email address.' }];
    kept.set('r1', 'form', { values: { name: 'Ada', email: 'ada@' }, corrected: { of: problems, names: new Set() } });
    kept.set('r1', 'outcome', {
      problem: 'Not sent: one field does not fit the form (marked above).',
      fieldProblems: problems,
    });
    kept.set('r2', 'prompt', { systemPrompt: 'Be brief.', messages: ['Write a haiku about reviews.'] });
    kept.set('r2', 'answer', { text: 'An edited haiku.' });

    expect(kept.get('r1', 'form')?.values).toEqual({ name: 'Ada', email: 'ada@' });
    // The refusal and the marks it set are the same objects: a field corrected before the unmount stays unmarked.
    expect(kept.get('r1', 'form')?.corrected.of).toBe(kept.get('r1', 'outcome')?.fieldProblems);
    expect(kept.get('r2', 'prompt')).toEqual({ systemPrompt: 'Be brief.', messages: ['Write a haiku about reviews.'] });
    expect(kept.get('r2', 'answer')?.text).toBe('An edited haiku.');
    expect(kept.get('r2', 'form')).toBeUndefined();
    expect(kept.size).toBe(2);

    kept.forget('r1');
    expect(kept.get('r1', 'form')).toBeUndefined();
    expect(kept.get('r1', 'outcome')).toBeUndefined();
    expect(kept.get('r2', 'answer')?.text).toBe('An edited haiku.');
    kept.retain(new Set());
    expect(kept.size).toBe(0);
  });

  it('is forgotten when its request stops waiting, and kept while it waits', () => {
    const kept = new RequestCardStates();
    kept.set('r1', 'form', { values: { name: 'Ada' }, corrected: { of: [], names: new Set() } });
    kept.set('r2', 'form', { values: { name: 'Grace' }, corrected: { of: [], names: new Set() } });
    let shown: readonly ServerRequestView[] = [];
    shown = applyRequestChange(shown, { kind: 'waiting', request: form('r1') }, kept);
    shown = applyRequestChange(shown, { kind: 'waiting', request: form('r2') }, kept);
    // Shown again (the same request, sent again): its typing stays.
    shown = applyRequestChange(shown, { kind: 'waiting', request: form('r1') }, kept);
    expect(shown.map((item) => item.id)).toEqual(['r2', 'r1']);
    expect(kept.get('r1', 'form')?.values).toEqual({ name: 'Ada' });

    shown = applyRequestChange(shown, { kind: 'resolved', request: form('r2') }, kept);
    expect(shown.map((item) => item.id)).toEqual(['r1']);
    expect(kept.get('r2', 'form')).toBeUndefined();
    expect(kept.get('r1', 'form')?.values).toEqual({ name: 'Ada' });
  });

  it('keeps, when the list arrives, what the list or the events hold and forgets the rest', () => {
    const kept = new RequestCardStates();
    for (const id of ['r1', 'r2', 'r3']) kept.set(id, 'answer', { text: id });
    // r3 arrived by event before the list; r2 stopped waiting while the tab was away.
    const shown = applyRequestList([form('r3')], [form('r1'), form('r3')], kept);
    expect(shown.map((item) => item.id)).toEqual(['r1', 'r3']);
    expect(kept.get('r1', 'answer')?.text).toBe('r1');
    expect(kept.get('r3', 'answer')?.text).toBe('r3');
    expect(kept.get('r2', 'answer')).toBeUndefined();
  });
});
