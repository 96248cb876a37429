import { describe, expect, it } from 'vitest';
import { ManagedPolicySchema, StoredApprovalPolicySchema } from '../../../shared/approval';
import { effectivePolicy, lockedParts } from './effective-policy';

const stored = StoredApprovalPolicySchema.parse({
  servers: { Shell: { autoApprove: false, sampling: 'allow', samplingTokenBudget: 500 } },
});
const managed = (locked: unknown): ReturnType<typeof ManagedPolicySchema.parse> =>
  ManagedPolicySchema.parse({ locked });

describe('an organisation lock on a server (docs/user/organisation-policy.md)', () => {
  it("replaces only the parts it names: a locked switch keeps the person's own sampling settings", () => {
    expect(effectivePolicy(stored, managed({ servers: { Shell: { autoApprove: false } } })).servers['Shell']).toEqual({
      autoApprove: false,
      sampling: 'allow',
      samplingTokenBudget: 500,
    });
  });

  it('can lock sampling: the lock is in force, and a change of it is refused in words', () => {
    const lock = managed({ servers: { Shell: { sampling: 'deny', samplingTokenBudget: 100 } } });
    expect(effectivePolicy(stored, lock).servers['Shell']).toEqual({
      autoApprove: false,
      sampling: 'deny',
      samplingTokenBudget: 100,
    });
    expect(lockedParts({ servers: { Shell: { sampling: 'allow' } } }, lock.locked)).toEqual([
      "the sampling of 'Shell' (locked to deny)",
    ]);
    expect(lockedParts({ servers: { Shell: { samplingTokenBudget: 9000 } } }, lock.locked)).toEqual([
      "the sampling budget of 'Shell' (locked to 100 tokens)",
    ]);
    // What it leaves free stays the person's to change.
    expect(lockedParts({ servers: { Shell: { autoApprove: true } } }, lock.locked)).toEqual([]);
    expect(lockedParts({ servers: { Shell: null } }, lock.locked)).toHaveLength(2);
  });

  it('a lock of a server for which the person set nothing', () => {
    expect(
      effectivePolicy(StoredApprovalPolicySchema.parse({}), managed({ servers: { Web: { sampling: 'deny' } } }))
        .servers['Web'],
    ).toEqual({ autoApprove: false, sampling: 'deny' });
    expect(() => managed({ servers: { Web: {} } })).toThrow(/name at least one/);
  });
});
