/**
 * The words for an organisation's lock on servers named by what they run (`locked.serversByIdentity`;
 * docs/user/organisation-policy.md, "Naming a server by what it runs"): what it matches and what it locks. One
 * wording for Settings → Approvals and `workbench policy show`.
 */
import type { ManagedIdentityLock, ServerIdentityMatcher } from './approval';

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
