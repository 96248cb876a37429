// `workbench policy test`: the rule tester at the terminal, run as the built CLI on a temporary data folder against the
// real services and the bundled Files server.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyExplanation, PolicyWarning } from '../shared/approval';
import { cliJson, makeHome, runCli } from './testing/cli-process';

let home: string;
beforeAll(() => {
  home = makeHome();
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe('workbench policy test', { timeout: 300_000 }, () => {
  it('says what decides a call, step by step, and names the rules that never decide', async () => {
    const clean = await runCli(['policy', 'test'], { home });
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('Every rule of yours can decide some call.');

    await cliJson(
      [
        'policy',
        'set',
        'rule',
        'add',
        'allow',
        'Files',
        'write_file',
        '--arg',
        '/path:glob:/notes/**',
        '--id',
        'notes',
      ],
      { home },
    );
    await cliJson(['policy', 'set', 'rule', 'add', 'deny', '*', 'write_*', '--id', 'no-writes'], { home });
    await cliJson(
      [
        'policy',
        'set',
        'rule',
        'add',
        'ask',
        'Files',
        'read_file',
        '--arg',
        '/path:equals:/a',
        '--arg',
        '/path:equals:/b',
        '--id',
        'both',
      ],
      { home },
    );

    const tested = await cliJson<{ explanation: PolicyExplanation; findings: PolicyWarning[] }>(
      ['policy', 'test', 'Files', 'write_file', '{"path": "/notes/a.md", "content": "x"}'],
      { home },
    );
    expect(tested.explanation).toMatchObject({ outcome: 'deny', source: { kind: 'deny-rule', ruleId: 'no-writes' } });
    expect(tested.findings).toEqual([
      expect.objectContaining({ kind: 'rule-shadowed', ruleId: 'notes', byRuleId: 'no-writes' }),
      expect.objectContaining({ kind: 'rule-never-matches', ruleId: 'both' }),
    ]);

    const words = await runCli(['policy', 'test', 'Files', 'write_file', '{"path": "/notes/a.md"}'], { home });
    expect(words.code).toBe(0);
    expect(words.stdout).toMatch(/^DENY: Denied by your rule #2/);
    expect(words.stdout).toContain('Rules that never decide:');
    expect(words.stdout).toContain(
      "Rule #1 ('notes') never decides: Rule #2 ('no-writes') is checked first and matches every call it matches (deny rules come before allow rules).",
    );
    expect(words.stdout).toContain(`Rule #3 ('both') can never match: /path cannot be both "/a" and "/b".`);

    const half = await runCli(['policy', 'test', 'Files'], { home });
    expect(half.code).toBe(1);
    expect(half.stderr).toContain('policy test takes SERVER TOOL [ARGS_JSON], or nothing to check the rules alone.');
  });
});
