import { describe, expect, it } from 'vitest';
import type { ApprovalPolicy, ApprovalRule, ManagedPolicy } from '../../../shared/approval';
import { compilePolicy } from './compiled-policy';
import { decide } from './decision-pipeline';
import { ruleFindings } from './rule-findings';

const policyOf = (rules: ApprovalRule[]): ApprovalPolicy => ({
  mode: 'ask',
  timeoutSeconds: 300,
  servers: {},
  tools: {},
  rules,
});

const findingsOf = (rules: ApprovalRule[], managed: ManagedPolicy | null = null) =>
  ruleFindings(compilePolicy(policyOf(rules), managed, []).rules);

describe('rule findings', () => {
  it('finds nothing wrong with rules that each decide some call', () => {
    expect(
      findingsOf([
        {
          id: 'no-etc',
          effect: 'deny',
          server: 'Files',
          tool: 'write_*',
          args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }],
        },
        {
          id: 'notes',
          effect: 'allow',
          server: 'Files',
          tool: 'write_file',
          args: [{ pointer: '/path', match: 'glob', value: '/notes/**' }],
        },
        { id: 'reads', effect: 'allow', server: 'Files', tool: 'read_*' },
      ]),
    ).toEqual([]);
  });

  it('flags an allow rule that a deny rule without conditions always beats, naming both', () => {
    const findings = findingsOf([
      {
        id: 'notes',
        effect: 'allow',
        server: 'Files',
        tool: 'write_file',
        args: [{ pointer: '/path', match: 'glob', value: '/notes/**' }],
      },
      { id: 'no-writes', effect: 'deny', server: '*', tool: 'write_*' },
    ]);
    expect(findings).toEqual([
      {
        kind: 'shadowed',
        ruleId: 'notes',
        ruleNumber: 1,
        byRuleId: 'no-writes',
        message:
          "Rule #1 ('notes') never decides: Rule #2 ('no-writes') is checked first and matches every call it matches (deny rules come before allow rules).",
      },
    ]);
  });

  it('flags a later rule of the same effect that an earlier, wider one hides, and not the reverse order', () => {
    const wide: ApprovalRule = { id: 'all-files', effect: 'allow', server: 'Files', tool: '*' };
    const narrow: ApprovalRule = {
      id: 'notes',
      effect: 'allow',
      server: 'Files',
      tool: 'read_file',
      args: [{ pointer: '/path', match: 'glob', value: '/notes/**' }],
    };
    expect(findingsOf([wide, narrow]).map((finding) => [finding.ruleId, finding.byRuleId])).toEqual([
      ['notes', 'all-files'],
    ]);
    expect(findingsOf([narrow, wide])).toEqual([]);
  });

  it('does not call a rule shadowed when the earlier one has a condition it lacks, or globs that only overlap', () => {
    expect(
      findingsOf([
        {
          id: 'etc',
          effect: 'deny',
          server: 'Files',
          tool: '*',
          args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }],
        },
        { id: 'writes', effect: 'ask', server: 'Files', tool: 'write_file' },
        { id: 'w', effect: 'allow', server: 'F*', tool: 'write_*' },
        { id: 'x', effect: 'allow', server: 'Fi*', tool: 'write_*' },
      ]),
    ).toEqual([]);
  });

  it("flags a rule the organisation's deny rule always beats", () => {
    const managed: ManagedPolicy = {
      rules: [{ id: 'org-no-shell', effect: 'deny', server: '*', tool: 'run_*' }],
      disallowNeverAsk: false,
      defaults: {},
      locked: {},
    } as unknown as ManagedPolicy;
    const findings = findingsOf([{ id: 'shell', effect: 'allow', server: 'Shell', tool: 'run_command' }], managed);
    expect(findings).toMatchObject([{ kind: 'shadowed', ruleId: 'shell', byRuleId: 'org-no-shell' }]);
    expect(findings[0]?.message).toContain("your organisation's rule 'org-no-shell'");
  });

  it('flags conditions that contradict each other as never matching', () => {
    const findings = findingsOf([
      {
        id: 'both',
        effect: 'deny',
        server: 'Files',
        tool: '*',
        args: [
          { pointer: '/path', match: 'equals', value: '/a' },
          { pointer: '/path', match: 'equals', value: '/b' },
        ],
      },
      {
        id: 'outside',
        effect: 'allow',
        server: 'Files',
        tool: '*',
        args: [
          { pointer: '/path', match: 'equals', value: '/etc/passwd' },
          { pointer: '/path', match: 'glob', value: '/notes/**' },
        ],
      },
      {
        id: 'fine',
        effect: 'ask',
        server: 'Files',
        tool: '*',
        args: [
          { pointer: '/path', match: 'equals', value: '/notes/a.md' },
          { pointer: '/path', match: 'glob', value: '/notes/**' },
        ],
      },
    ]);
    expect(findings.map((finding) => [finding.kind, finding.ruleId, finding.message])).toEqual([
      ['never-matches', 'both', `Rule #1 ('both') can never match: /path cannot be both "/a" and "/b".`],
      [
        'never-matches',
        'outside',
        `Rule #2 ('outside') can never match: /path must be "/etc/passwd", which does not match the glob /notes/**.`,
      ],
    ]);
  });

  it('agrees with the pipeline: a call the shadowed rule matches is decided by the rule named', () => {
    const rules: ApprovalRule[] = [
      { id: 'no-writes', effect: 'deny', server: '*', tool: 'write_*' },
      {
        id: 'notes',
        effect: 'allow',
        server: 'Files',
        tool: 'write_file',
        args: [{ pointer: '/path', match: 'glob', value: '/notes/**' }],
      },
    ];
    const compiled = compilePolicy(policyOf(rules), null, []);
    const [finding] = ruleFindings(compiled.rules);
    const decision = decide(
      { call: { serverName: 'Files', toolName: 'write_file', args: { path: '/notes/a.md' } } },
      compiled,
    );
    expect(decision.source).toMatchObject({ kind: 'deny-rule', ruleId: finding?.byRuleId });
  });
});
