/**
 * The words for an organisation's lock on servers named by what they run (`locked.serversByIdentity`;
 * docs/user/organisation-policy.md, "Naming a server by what it runs"): what it matches and what it locks. One
 * wording for Settings → Approvals and `workbench policy show`; and the same for its identity providers.
 */
import type { ManagedCrossAppAccessView, ManagedIdentityLock, ServerIdentityMatcher } from './approval';

/** "command 'npx' and package '@acme/*'": the parts a matcher names, all of which must match. */
export function identityMatcherWords(matcher: ServerIdentityMatcher): string {
  const parts: string[] = [];
  if (matcher.command !== undefined) parts.push(`command '${matcher.command}'`);
  if (matcher.package !== undefined) parts.push(`package '${matcher.package}'`);
  if (matcher.url !== undefined) parts.push(`URL '${matcher.url}'`);
  return parts.join(' and ');
}

/** Each setting the lock holds, as "auto-approve: off", "sampling: deny", "tool write_file: always-ask". */
export function identityLockSettings(lock: ManagedIdentityLock): string[] {
  const settings: string[] = [];
  if (lock.autoApprove !== undefined) settings.push(`auto-approve: ${lock.autoApprove ? 'on' : 'off'}`);
  if (lock.sampling !== undefined) settings.push(`sampling: ${lock.sampling}`);
  if (lock.samplingTokenBudget !== undefined)
    settings.push(`sampling budget: ${lock.samplingTokenBudget.toLocaleString('en')} tokens per chat`);
  for (const [tool, setting] of Object.entries(lock.tools ?? {})) settings.push(`tool ${tool}: ${setting}`);
  return settings;
}

/** One line: "servers running command 'npx' and package '@acme/*': auto-approve: off; tool write_file: always-ask". */
export function identityLockWords(lock: ManagedIdentityLock): string {
  return `servers running ${identityMatcherWords(lock.serverIdentity)}: ${identityLockSettings(lock).join('; ')}`;
}

/**
 * One of the organisation's identity providers for cross-app access (docs/user/organisation-policy.md#oauth), in
 * words: which servers, and what they sign in through. Never a secret: only whether the organisation gives one.
 */
export function organisationIdpWords(entry: ManagedCrossAppAccessView): { servers: string; signIn: string } {
  const named = entry.server !== undefined ? ` named '${entry.server}'` : '';
  const at = entry.serverIdentity !== undefined ? ` reached at ${identityMatcherWords(entry.serverIdentity)}` : '';
  const endpoint = entry.idpTokenEndpoint !== undefined ? ` (token endpoint ${entry.idpTokenEndpoint})` : '';
  const secret = entry.clientSecret ? ', with the client secret your organisation gives (not shown)' : '';
  return {
    servers: `servers${named}${at}`,
    signIn: `sign in through ${entry.idpIssuer}${endpoint} as client '${entry.idpClientId}'${secret}`,
  };
}
