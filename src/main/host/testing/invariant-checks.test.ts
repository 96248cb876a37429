// The trust invariant's "made for this server" check over remembered allow rules (docs/dev/testing.md, "The trust
// invariant"): an allow by a rule the person remembered from a card counts as made for one server identity.
import { describe, expect, it } from 'vitest';
import type { ApprovalRule } from '../../../shared/approval';
import { USER_RULES } from './invariant-catalogue';
import { byRememberedRule } from './invariant-checks';
import type { Harness } from './invariant-harness';

const harnessWith = (rules: ApprovalRule[]): Harness => ({ userRules: () => rules }) as unknown as Harness;
const catalogueRule = (): ApprovalRule => ({
  id: `${USER_RULES[0]?.key ?? 'missing'}--1`,
  effect: 'allow',
  server: '*',
  tool: '*',
});
const remembered: ApprovalRule = { id: 'remembered-files-read', effect: 'allow', server: 'Files', tool: 'read' };

describe('byRememberedRule', () => {
  it('says a call allowed by a remembered rule was allowed by something made for one server', () => {
    const harness = harnessWith([catalogueRule(), remembered]);
    expect(byRememberedRule(harness, "Auto-approved by your rule #2 'remembered-files-read'")).toBe(true);
  });
  it("leaves the catalogue's own rules, other deciders and numbers past the list to the other checks", () => {
    const harness = harnessWith([catalogueRule(), remembered]);
    expect(byRememberedRule(harness, 'Auto-approved by your rule #1')).toBe(false);
    expect(byRememberedRule(harness, 'Auto-approved by your rule #3')).toBe(false);
    expect(byRememberedRule(harness, "Auto-approved: server setting 'Files'")).toBe(false);
  });
});
