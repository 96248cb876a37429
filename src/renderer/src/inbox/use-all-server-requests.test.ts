import { describe, expect, it } from 'vitest';
import type { ElicitationFormView, SamplingRequestView } from '../../../shared/server-request-views';
import { RequestCardStates } from '../chat/server-request-cards/request-card-state';
import { applyElsewhereList } from './use-all-server-requests';

const HELD = { heldElsewhere: { pid: 4242, process: 'workbench chat' } };

const form = (id: string, elsewhere = false): ElicitationFormView => ({
  id,
  kind: 'elicitation',
  mode: 'form',
  serverName: 'Everything',
  chatId: null,
  createdAt: 1,
  message: 'Who are you?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
  ...(elsewhere ? HELD : {}),
});

const sampling = (id: string, stage: 'request' | 'answer'): SamplingRequestView => ({
  id,
  kind: 'sampling',
  stage,
  serverName: 'Everything',
  chatId: null,
  createdAt: 1,
  messages: [{ role: 'user', text: 'a haiku' }],
  systemPrompt: null,
  maxTokens: 50,
  temperature: null,
  modelPreferences: null,
  model: null,
  budget: { used: 0, limit: 1000 },
  answer: stage === 'answer' ? { text: 'A haiku.', model: 'fake', stopReason: 'endTurn', outputTokens: 3 } : null,
  ...HELD,
});

describe("the open inbox's later listings", () => {
  it('are the truth for what other processes hold: gone leaves (and is forgotten), new and next stages arrive', () => {
    const kept = new RequestCardStates();
    kept.set('gone', 'form', { values: { name: 'Ada' }, corrected: { of: [], names: new Set() } });
    kept.set('s1', 'prompt', { systemPrompt: '', messages: ['a haiku'] });
    const current = [form('here'), form('gone', true), sampling('s1', 'request')];
    const next = applyElsewhereList(current, [sampling('s1', 'answer'), form('new', true)], kept);
    expect(next.map((item) => [item.id, item.kind === 'sampling' ? item.stage : item.heldElsewhere?.pid])).toEqual([
      ['here', undefined],
      ['s1', 'answer'],
      ['new', 4242],
    ]);
    expect(kept.get('gone', 'form')).toBeUndefined();
    expect(kept.get('s1', 'prompt')).toBeDefined();
  });

  it('leave alone what this process holds (its events decide) and change nothing when nothing changed', () => {
    const kept = new RequestCardStates();
    const current = [form('here'), sampling('s1', 'request')];
    // A listing that crossed the event that brought `here` does not drop it.
    expect(applyElsewhereList(current, [sampling('s1', 'request')], kept)).toBe(current);
    expect(applyElsewhereList(current, [], kept).map((item) => item.id)).toEqual(['here']);
  });
});
