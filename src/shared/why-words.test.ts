import { describe, expect, it } from 'vitest';
import { asksBecause, ranWithoutAsking } from './why-words';

describe('why it asks, why it did not', () => {
  it('says the one step that made a card ask, in the present tense', () => {
    expect(asksBecause("Asked because of the tool setting 'Files.write_file' (always ask)")).toBe(
      "Asks because of the tool setting 'Files.write_file' (always ask)",
    );
    expect(asksBecause('Asked: no rule or setting allows this tool without asking')).toBe(
      'Asks: no rule or setting allows this tool without asking',
    );
  });

  it('says the rule or setting that let a call run without asking', () => {
    expect(
      ranWithoutAsking('Auto-approved by your rule #2: Files write_file when /path matches notes/** (notes)'),
    ).toBe('Ran without asking: your rule #2: Files write_file when /path matches notes/** (notes)');
    expect(ranWithoutAsking("Auto-approved: tool setting 'Files.read_file'")).toBe(
      "Ran without asking: tool setting 'Files.read_file'",
    );
    expect(ranWithoutAsking("Allowed for this chat (you chose 'Allow for this chat' at 14:02)")).toBe(
      "Ran without asking: allowed for this chat (you chose 'Allow for this chat' at 14:02)",
    );
  });
});
