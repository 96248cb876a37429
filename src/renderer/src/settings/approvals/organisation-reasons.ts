/**
 * Why a control outside Settings → Approvals is overridden by the organisation's policy, in words shown beside it
 * after "Set by your organisation" (docs/user/organisation-policy.md, "What the person sees"). Plain functions of
 * what `policy.get` and `audit.shippingSinks` answer; null where the person's setting is theirs and in force.
 */
import type { GlobalApprovalMode, PolicyView } from '../../../../shared/approval';
import type { SandboxGrant, SandboxView } from '../../../../shared/sandbox';

/** The global modes as Settings → Approvals names them. */
export const MODE_LABELS: Record<GlobalApprovalMode, string> = {
  ask: 'Ask before every tool call',
  'auto-approve-read-only-trusted': 'Auto-approve read-only tools of trusted servers',
  'never-ask': 'Never ask (approvals off)',
};

/**
 * A server's "Trust this server's annotations": it lets read-only tools run without asking only in the global mode
 * that auto-approves them, so a mode the organisation locked to another one overrides that part of it.
 */
export function trustReason(view: PolicyView | null): string | null {
  const mode = view?.managed?.locked.mode;
  if (mode === undefined || mode === 'auto-approve-read-only-trusted') return null;
  return mode === 'ask'
    ? `the global mode is locked to "${MODE_LABELS.ask}", so this server's read-only tools ask like any other; trust changes only their risk badge.`
    : `the global mode is locked to "${MODE_LABELS['never-ask']}", so every tool runs without asking, trusted or not.`;
}

/** A sink id the organisation's locked sinks hold: saving a sink under it is refused (`locked`). */
export function sinkIdReason(id: string, lockedIds: readonly string[]): string | null {
  const wanted = id.trim();
  return wanted !== '' && lockedIds.includes(wanted)
    ? `its sink "${wanted}" has this id; give this one another.`
    : null;
}

/** One of the person's sinks whose id a locked sink also has (settings.json edited by hand): it gives way. */
export function sinkOverriddenReason(id: string, lockedIds: readonly string[]): string | null {
  return lockedIds.includes(id) ? `its sink "${id}" ships in this one's place; this one sends nothing.` : null;
}

/** A server's Sandbox page under `lockProfiles`: its Widen form is gone and its Revoke buttons are disabled. */
export function sandboxLockReason(limits: SandboxView['limits']): string | null {
  return limits.lockProfiles
    ? "it locks the servers' sandbox profiles, so nothing can be widened or revoked here."
    : null;
}

/** What the organisation's limits refuse of a kind of grant before it is asked for (docs/user/sandbox.md). */
export function sandboxGrantReason(limits: SandboxView['limits'], kind: SandboxGrant['kind']): string | null {
  if (kind === 'connect' && !limits.allowNetwork) return 'it allows no network, so no host:port can be granted.';
  if ((kind === 'read' || kind === 'write') && !limits.allowHomeFolder)
    return 'it allows nothing in your home folder, so no folder there, or one that holds it, can be granted.';
  return null;
}

/**
 * A local server's Enabled switch (and its "Run unconfined" choice) under `requireContainment`: enabled, it starts
 * only in its sandbox, and not at all where no sandbox can run, whatever the person allowed.
 */
export function containmentReason(limits: SandboxView['limits'] | null | undefined): string | null {
  return limits?.requireContainment
    ? 'it requires every server to be contained, so this one starts only in its sandbox, and not at all where no sandbox can run.'
    : null;
}

/** Settings → Audit shipping while the sinks listed are the organisation's defaults (`audit.shippingSinks`). */
export function defaultSinksReason(shipping: {
  sinks: readonly unknown[];
  defaulted?: boolean | undefined;
}): string | null {
  return shipping.defaulted && shipping.sinks.length > 0
    ? 'this sink is one of its defaults, which ship while you have set no sinks of your own; adding, editing or removing one makes them yours.'
    : null;
}

/**
 * Why a server's identity provider (cross-app access) is the organisation's (docs/user/organisation-policy.md#oauth):
 * locked, or its default while the server has none of its own; naming it when it is known (`idp`).
 */
export function organisationIdpReason(
  by: { locked: boolean; clientSecret: boolean },
  idp?: { idpIssuer: string; idpClientId: string } | undefined,
): string {
  const which = idp ? `, ${idp.idpIssuer} (client ${idp.idpClientId})` : '';
  const secret = by.clientSecret ? ', and the secret of its client there' : '';
  return by.locked
    ? `its policy names this server's identity provider${which}${secret}, so they cannot be changed here. Your ID token stays yours to give.`
    : `its policy names this server's identity provider${which}${secret}, while you set none of your own; an identity provider you enter here takes its place.`;
}
