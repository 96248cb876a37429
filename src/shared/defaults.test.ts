import { describe, expect, it } from 'vitest';
import { ApprovalPolicySchema, DEFAULT_APPROVAL_POLICY } from './approval';
import { DEFAULT_DESKTOP_SETTINGS, DesktopSettingsSchema } from './desktop';

// The defaults are written out rather than parsed when their module loads (see DEFAULT_APPROVAL_POLICY): each must
// stay exactly what its schema fills in.
describe('the written-out defaults', () => {
  it('DEFAULT_APPROVAL_POLICY is what the approval policy schema fills in', () => {
    expect(DEFAULT_APPROVAL_POLICY).toEqual(ApprovalPolicySchema.parse({}));
  });

  it('DEFAULT_DESKTOP_SETTINGS is what the desktop settings schema fills in', () => {
    expect(DEFAULT_DESKTOP_SETTINGS).toEqual(DesktopSettingsSchema.parse({}));
  });
});
