import { describe, expect, it } from 'vitest';
import { ApprovalPolicySchema, ManagedPolicySchema, type RememberAction } from '../../../shared/approval';
import { compilePolicy } from './compiled-policy';
import { decide } from './decision-pipeline';
import { applyUpdate } from './policy-change';
import { checkRemember, mayOverlap, rememberOffers, suggestRule, type RememberContext } from './remember';
import { compileRule } from './rule-compiler';

const context = (policy: unknown = {}, managed?: unknown): RememberContext => ({
  policy: ApprovalPolicySchema.parse(policy),
  managed: managed === undefined ? null : ManagedPolicySchema.parse(managed),
  trustedServers: [],
});
const write = { serverName: 'Files', toolName: 'write_file', args: { path: 'notes/today.md', content: 'hello' } };
const rule = (args = suggestRule(write.args)): RememberAction => ({ kind: 'rule', id: 'remembered-1', args });

describe('remember from the card: the suggested rule', () => {
  it('takes a path argument to its folder as a glob and keeps the content exactly', () => {
    expect(suggestRule(write.args)).toEqual([
      { pointer: '/path', match: 'glob', value: 'notes/**' },
      { pointer: '/content', match: 'equals', value: 'hello' },
    ]);
    expect(suggestRule({ path: '/home/me/a/../b/c.txt' })).toEqual([
      { pointer: '/path', match: 'glob', value: '/home/me/b/**' },
    ]);
  });

  it('is no broader than the card: a folder argument is globbed itself, every other argument is kept exactly', () => {
    const call = {
      serverName: 'Shell',
      toolName: 'run',
      args: { cwd: '/home/me/project', command: 'ls', env: { A: '1' }, flags: ['-l', 2] },
    };
    const suggested = suggestRule(call.args);
    expect(suggested).toEqual([
      { pointer: '/cwd', match: 'glob', value: '/home/me/project/**' },
      { pointer: '/command', match: 'equals', value: 'ls' },
      { pointer: '/env/A', match: 'equals', value: '1' },
      { pointer: '/flags/0', match: 'equals', value: '-l' },
      { pointer: '/flags/1', match: 'equals', value: 2 },
    ]);
    const verdict = checkRemember(call, { kind: 'rule', id: 'like-this', args: suggested }, context());
    if (!verdict.ok) throw new Error(verdict.refusal);
    const after = compilePolicy(applyUpdate(context().policy, verdict.update), null, []);
    const outcome = (args: Record<string, unknown>): string => decide({ call: { ...call, args } }, after).outcome;
    expect(outcome(call.args)).toBe('allow');
    expect(outcome({ ...call.args, cwd: '/home/me/project/sub' })).toBe('allow');
    expect(outcome({ ...call.args, command: 'rm -rf ~' })).toBe('ask');
    expect(outcome({ ...call.args, cwd: '/home/me/other' })).toBe('ask');
    expect(outcome({ ...call.args, env: { A: '2' } })).toBe('ask');
    expect(outcome({ ...call.args, flags: ['-r', 2] })).toBe('ask');
  });

  it('suggests nothing when every argument cannot be kept: an empty list or object, or more values than a rule holds', () => {
    expect(suggestRule({ path: 'notes/a.md', tags: [] })).toEqual([]);
    expect(suggestRule({ path: 'notes/a.md', options: {} })).toEqual([]);
    expect(suggestRule({ path: 'notes/a.md', many: Array.from({ length: 20 }, (_, index) => index) })).toEqual([]);
    const verdict = checkRemember(write, { kind: 'rule', id: 'x', args: [] }, context());
    expect(verdict).toMatchObject({ ok: false, refusal: expect.stringMatching(/no condition on the arguments/) });
  });

  it('keeps a path it cannot turn into a plain folder glob as an equality', () => {
    expect(suggestRule({ path: 'a.md' })).toEqual([{ pointer: '/path', match: 'equals', value: 'a.md' }]);
    expect(suggestRule({ path: '../secret/a.md' })).toEqual([
      { pointer: '/path', match: 'equals', value: '../secret/a.md' },
    ]);
    expect(suggestRule({ path: 'notes[1]/a.md' })).toEqual([
      { pointer: '/path', match: 'equals', value: 'notes[1]/a.md' },
    ]);
  });

  it('takes a URL to its host, which a user-info trick or another host does not match', () => {
    const [matcher] = suggestRule({ url: 'https://example.com/docs?q=1' });
    expect(matcher).toEqual({ pointer: '/url', match: 'regex', value: '^https://example\\.com(?:[/?#]|$)' });
    const regex = new RegExp(String(matcher?.value), 'u');
    expect(
      ['https://example.com', 'https://example.com/x', 'https://example.com?x'].every((url) => regex.test(url)),
    ).toBe(true);
    expect(
      [
        'https://example.com@evil.test/',
        'https://example.com.evil.test/',
        'http://example.com/',
        'https://evil.test/?https://example.com/',
      ].some((url) => regex.test(url)),
    ).toBe(false);
  });

  it('compares every argument when there is no path or URL, nested values by their own pointers', () => {
    expect(suggestRule({ a: 1, b: 'x', c: { nested: true } })).toEqual([
      { pointer: '/a', match: 'equals', value: 1 },
      { pointer: '/b', match: 'equals', value: 'x' },
      { pointer: '/c/nested', match: 'equals', value: true },
    ]);
  });
});

describe('remember from the card: what is offered', () => {
  it('offers all three on a fresh policy, and each change makes the pipeline allow the call', () => {
    const offers = rememberOffers(write, context());
    expect([offers.tool.offered, offers.rule.offered, offers.server.offered]).toEqual([true, true, true]);
    for (const action of [{ kind: 'tool' }, { kind: 'server' }, rule()] as RememberAction[]) {
      const verdict = checkRemember(write, action, context());
      if (!verdict.ok) throw new Error(verdict.refusal);
      const after = compilePolicy(applyUpdate(context().policy, verdict.update), null, []);
      expect(decide({ call: write }, after).outcome).toBe('allow');
    }
  });

  it("offers nothing for a call a deny rule catches, the organisation's or the person's", () => {
    const denied = context({
      rules: [
        {
          id: 'no-notes',
          effect: 'deny',
          server: 'Files',
          tool: '*',
          args: [{ pointer: '/path', match: 'glob', value: 'notes/**' }],
        },
      ],
    });
    const managed = context({}, { rules: [{ id: 'org', server: '*', tool: 'write_*' }] });
    for (const ctx of [denied, managed]) {
      const offers = rememberOffers(write, ctx);
      expect([offers.tool.offered, offers.rule.offered, offers.server.offered]).toEqual([false, false, false]);
      expect(offers.tool.refusal).toMatch(/A deny rule catches this call/);
    }
  });

  it('does not offer trusting the server when the organisation requires approvals (the lock seam)', () => {
    const offers = rememberOffers(write, context({}, { disallowNeverAsk: true }));
    expect(offers.server).toMatchObject({
      offered: false,
      refusal: expect.stringMatching(/organisation's policy requires approvals/),
    });
    expect(offers.tool.offered).toBe(true);
  });

  it('says which setting would keep asking when the change could not stop the question', () => {
    const askRule = context({ rules: [{ id: 'ask-notes', effect: 'ask', server: 'Files', tool: 'write_file' }] });
    expect(rememberOffers(write, askRule).tool.refusal).toMatch(/would not stop the question.*rule #1/);
  });

  it('refuses a rule that could also allow calls an ask rule means to catch, and says which', () => {
    const askSecret = context({
      rules: [
        {
          id: 'ask-secret',
          effect: 'ask',
          server: 'Files',
          tool: 'write_*',
          args: [{ pointer: '/path', match: 'glob', value: 'notes/secret/**' }],
        },
      ],
    });
    const offers = rememberOffers(write, askSecret);
    expect(offers.rule.offered).toBe(false);
    expect(offers.rule.refusal).toMatch(/could also allow calls that your rule #1 means to ask about/);
    // Narrowed to a folder the ask rule cannot reach, it is offered.
    const narrow = rememberOffers(write, askSecret, [{ pointer: '/path', match: 'equals', value: 'notes/today.md' }]);
    expect(narrow.rule.offered).toBe(true);
    // An ask rule on an argument the allow rule leaves free can always be met.
    const askContent = context({
      rules: [
        {
          id: 'ask-content',
          effect: 'ask',
          server: 'Files',
          tool: 'write_file',
          args: [{ pointer: '/content', match: 'regex', value: 'password' }],
        },
      ],
    });
    expect(
      rememberOffers(write, askContent, [{ pointer: '/path', match: 'glob', value: 'notes/**' }]).rule.offered,
    ).toBe(false);
    // The suggestion keeps the content exactly ('hello'), which the ask rule's regex cannot match.
    expect(rememberOffers(write, askContent).rule.offered).toBe(true);
  });

  it('refuses a rule that does not match the call, has no condition, or is not valid', () => {
    expect(
      checkRemember(write, rule([{ pointer: '/path', match: 'glob', value: 'other/**' }]), context()),
    ).toMatchObject({ ok: false, refusal: expect.stringMatching(/does not match this call/) });
    expect(checkRemember(write, rule([]), context())).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/no condition/),
    });
    expect(
      checkRemember(write, rule([{ pointer: 'path', match: 'glob', value: 'notes/**' }]), context()),
    ).toMatchObject({ ok: false, refusal: expect.stringMatching(/not valid/) });
  });

  it('an allow rule never lets a path climb out of its folder', () => {
    const verdict = checkRemember(write, rule(), context());
    if (!verdict.ok) throw new Error(verdict.refusal);
    const after = compilePolicy(applyUpdate(context().policy, verdict.update), null, []);
    expect(decide({ call: { ...write, args: { path: 'notes/../.ssh/id_rsa' } } }, after).outcome).toBe('ask');
  });
});

it('an allow rule that lists its calls overlaps an ask rule only when one of those calls meets it', () => {
  const ask = compileRule(
    { id: 'ask', effect: 'ask', server: '*', tool: '*', args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }] },
    { managed: false },
  );
  const listing = (calls: unknown[]) => [{ pointer: '', match: 'one-of' as const, value: JSON.stringify(calls) }];
  expect(mayOverlap(listing([{ path: '/home/a' }, { query: 'x' }]), ask)).toBe(false);
  expect(mayOverlap(listing([{ path: '/home/a' }, { path: '/etc/passwd' }]), ask)).toBe(true);
});
