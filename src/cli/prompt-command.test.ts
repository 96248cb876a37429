import { describe, expect, it } from 'vitest';
import type { McpPrompt } from '../shared/mcp';
import { findPrompt, parsePromptArguments } from './prompt-command';

describe('prompt slash commands in workbench chat (docs/user/mcp-servers.md#prompts)', () => {
  it('reads key=value and key="a value" pairs', () => {
    expect(parsePromptArguments('city=Lyon state="Auvergne-Rhône Alpes" note="say \\"hi\\""')).toEqual({
      city: 'Lyon',
      state: 'Auvergne-Rhône Alpes',
      note: 'say "hi"',
    });
    expect(parsePromptArguments('')).toEqual({});
    expect(parsePromptArguments('empty=')).toEqual({ empty: '' });
  });

  it('finds a prompt by name, or by server:name when two servers share it, and says why not otherwise', () => {
    const prompts: McpPrompt[] = [
      { server: 'a', name: 'review', arguments: [] },
      { server: 'b', name: 'review', arguments: [] },
      { server: 'b', name: 'summarise', arguments: [] },
    ];
    expect(findPrompt(prompts, 'summarise')).toMatchObject({ server: 'b', name: 'summarise' });
    expect(findPrompt(prompts, 'a:review')).toMatchObject({ server: 'a', name: 'review' });
    expect(findPrompt(prompts, 'review')).toBe(
      'Several servers have a prompt "review": say which, as /a:review or /b:review.',
    );
    expect(findPrompt(prompts, 'nope')).toBe('No prompt is named "nope". /prompts lists them.');
  });
});
