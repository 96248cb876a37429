import { describe, expect, it } from 'vitest';
import type { PolicyView } from '../../../../shared/approval';
import { fieldProblems } from '../field-problems';
import {
  containmentReason,
  defaultSinksReason,
  sandboxGrantReason,
  sandboxLockReason,
  sinkIdReason,
  sinkOverriddenReason,
  trustReason,
} from './organisation-reasons';

const LIMITS = {
  requireContainment: false,
  allowUnconfined: false,
  allowNetwork: true,
  allowHomeFolder: true,
  lockProfiles: false,
};

const view = (locked: Partial<NonNullable<PolicyView['managed']>['locked']>): PolicyView => ({
  policy: { mode: 'ask', timeoutSeconds: 300, servers: {}, tools: {}, rules: [] },
  managed: {
    file: '/etc/ai-workbench/managed-policy.json',
    source: 'system',
    rules: [],
    disallowNeverAsk: false,
    defaults: {},
    locked,
    defaulted: [],
  },
  warnings: [],
});

describe("the organisation's reasons beside a control", () => {
  it("says why trusting a server's annotations does not let its read-only tools run under a locked mode", () => {
    expect(trustReason(view({ mode: 'ask' }))).toBe(
      'the global mode is locked to "Ask before every tool call", so this server\'s read-only tools ask like any other; trust changes only their risk badge.',
    );
    expect(trustReason(view({ mode: 'never-ask' }))).toMatch(
      /locked to "Never ask \(approvals off\)", so every tool runs/,
    );
  });

  it('says nothing where the trust switch does what it says: no policy, no locked mode, or the mode that uses it', () => {
    expect(trustReason(null)).toBeNull();
    expect(trustReason({ ...view({}), managed: null })).toBeNull();
    expect(trustReason(view({ tools: { Files: { write_file: 'always-ask' } } }))).toBeNull();
    expect(trustReason(view({ mode: 'auto-approve-read-only-trusted' }))).toBeNull();
  });

  it("names a locked sink's id as it is typed, and only that id", () => {
    expect(sinkIdReason(' siem ', ['siem'])).toBe('its sink "siem" has this id; give this one another.');
    expect(sinkIdReason('siem-2', ['siem'])).toBeNull();
    expect(sinkIdReason('', ['siem'])).toBeNull();
    expect(sinkIdReason('siem', [])).toBeNull();
  });

  it("says a person's sink with a locked sink's id gives way to it", () => {
    expect(sinkOverriddenReason('siem', ['siem'])).toBe(
      'its sink "siem" ships in this one\'s place; this one sends nothing.',
    );
    expect(sinkOverriddenReason('mine', ['siem'])).toBeNull();
  });

  it("puts main's refusal of a locked sink id under the Id field", () => {
    const message = 'The audit sink "siem" is set by your organisation: it cannot be changed or removed here.';
    expect(
      fieldProblems({ code: 'locked', message, details: { issues: [{ path: 'sink.id', message }] } }, 'sink.'),
    ).toEqual({
      id: message,
    });
  });

  it("says what a server's sandbox limits refuse, beside the form that would ask for it", () => {
    expect(sandboxLockReason({ ...LIMITS, lockProfiles: true })).toBe(
      "it locks the servers' sandbox profiles, so nothing can be widened or revoked here.",
    );
    expect(sandboxLockReason(LIMITS)).toBeNull();
    const noNetwork = { ...LIMITS, allowNetwork: false };
    expect(sandboxGrantReason(noNetwork, 'connect')).toBe('it allows no network, so no host:port can be granted.');
    expect(sandboxGrantReason(noNetwork, 'read')).toBeNull();
    const noHome = { ...LIMITS, allowHomeFolder: false };
    expect(sandboxGrantReason(noHome, 'write')).toMatch(/^it allows nothing in your home folder/);
    expect(sandboxGrantReason(noHome, 'env')).toBeNull();
    expect(sandboxGrantReason(LIMITS, 'connect')).toBeNull();
  });

  it("says beside a local server's Enabled switch that it starts only contained, where containment is required", () => {
    expect(containmentReason({ ...LIMITS, requireContainment: true })).toBe(
      'it requires every server to be contained, so this one starts only in its sandbox, and not at all where no sandbox can run.',
    );
    expect(containmentReason({ ...LIMITS, requireContainment: true, allowUnconfined: true })).toMatch(/^it requires/);
    expect(containmentReason(LIMITS)).toBeNull();
    expect(containmentReason({ ...LIMITS, lockProfiles: true })).toBeNull();
    expect(containmentReason(null)).toBeNull();
  });

  it("says the sinks listed are the organisation's defaults while they are", () => {
    expect(defaultSinksReason({ sinks: [{}], defaulted: true })).toBe(
      'this sink is one of its defaults, which ship while you have set no sinks of your own; adding, editing or removing one makes them yours.',
    );
    expect(defaultSinksReason({ sinks: [{}] })).toBeNull();
    expect(defaultSinksReason({ sinks: [], defaulted: true })).toBeNull();
  });
});
