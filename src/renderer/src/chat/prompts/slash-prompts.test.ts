import { describe, expect, it } from 'vitest';
import type { McpPrompt } from '../../../../shared/mcp';
import { matchingPrompts, missingArguments, promptText, slashQuery } from './slash-prompts';

const prompt = (server: string, name: string, extra: Partial<McpPrompt> = {}): McpPrompt => ({
  server,
  name,
  arguments: [],
  ...extra,
});

describe('slash commands from prompts (docs/user/mcp-servers.md#prompts)', () => {
  it('reads the query only while the input is "/" and one word', () => {
    expect(slashQuery('/')).toBe('');
    expect(slashQuery('/args')).toBe('args');
    expect(slashQuery('/args ')).toBeNull();
    expect(slashQuery('hello /args')).toBeNull();
    expect(slashQuery('')).toBeNull();
  });

  it('matches name, title or server, names that start with the query first', () => {
    const prompts = [
      prompt('everything', 'simple-prompt'),
      prompt('everything', 'args-prompt', { title: 'Arguments Prompt' }),
      prompt('github', 'pr-review'),
    ];
    expect(matchingPrompts(prompts, 'ar').map((item) => item.name)).toEqual(['args-prompt']);
    expect(matchingPrompts(prompts, 'pr').map((item) => item.name)).toEqual([
      'pr-review',
      'simple-prompt',
      'args-prompt',
    ]);
    expect(matchingPrompts(prompts, 'GITHUB').map((item) => item.name)).toEqual(['pr-review']);
    expect(matchingPrompts(prompts, '')).toHaveLength(3);
  });

  it('puts one message as its text, several with whose each is', () => {
    expect(promptText({ messages: [{ role: 'user', text: 'Hi' }] })).toBe('Hi');
    expect(
      promptText({
        messages: [
          { role: 'user', text: 'Q' },
          { role: 'assistant', text: 'A' },
        ],
      }),
    ).toBe('User: Q\n\nAssistant: A');
  });

  it('names the required arguments still empty', () => {
    const args = prompt('everything', 'args-prompt', {
      arguments: [{ name: 'city', required: true }, { name: 'state' }],
    });
    expect(missingArguments(args, {})).toEqual(['city']);
    expect(missingArguments(args, { city: '  ' })).toEqual(['city']);
    expect(missingArguments(args, { city: 'Lyon' })).toEqual([]);
  });
});
