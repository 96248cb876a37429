import { describe, expect, it } from 'vitest';
import { describeRule, formToDraft, ruleFieldProblems, ruleToForm } from './rule-draft';

describe('rule drafts', () => {
  it('round-trips a rule through the form, reading equals values as JSON and glob values as text', () => {
    const rule = {
      id: 'no-etc',
      effect: 'deny' as const,
      server: 'Files',
      tool: 'write_*',
      args: [
        { pointer: '/path', match: 'glob' as const, value: '/etc/**' },
        { pointer: '/force', match: 'equals' as const, value: true },
      ],
      note: 'system files',
    };
    const form = ruleToForm(rule);
    expect(form.args.map((matcher) => matcher.value)).toEqual(['/etc/**', 'true']);
    expect(formToDraft(form)).toEqual(rule);
  });

  it('leaves out an empty note and conditions, keeps text that is not JSON for equals', () => {
    expect(formToDraft({ effect: 'allow', server: ' Files ', tool: 'read_*', args: [], note: ' ' })).toEqual({
      effect: 'allow',
      server: 'Files',
      tool: 'read_*',
    });
    expect(
      formToDraft({
        effect: 'ask',
        server: '*',
        tool: '*',
        args: [{ pointer: '/mode', match: 'equals', value: 'fast' }],
        note: '',
      }).args,
    ).toEqual([{ pointer: '/mode', match: 'equals', value: 'fast' }]);
  });

  it('keys refused fields the way the form names them', () => {
    expect(
      ruleFieldProblems({ 'args[0].value': 'bad regex', 'rules.add.0.server': 'must not be empty', tool: 'bad glob' }),
    ).toEqual({
      'args.0.value': 'bad regex',
      server: 'must not be empty',
      tool: 'bad glob',
    });
  });

  it('describes a rule in one line', () => {
    expect(
      describeRule({ server: 'Files', tool: 'write_*', args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }] }),
    ).toBe('Files · write_* when /path glob /etc/**');
  });
});
