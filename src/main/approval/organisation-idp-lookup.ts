import type { ManagedCrossAppAccess, ManagedCrossAppAccessView } from '../../shared/approval';
import type { OrganisationIdpLookup } from '../mcp/oauth/organisation-idp';
import { identityMatcher, serverAliases } from './policy/compiled-policy';
import { nameMatcher } from './policy/rule-compiler';

/**
 * Which of the organisation's identity providers (its policy's `oauth.crossAppAccess`,
 * docs/user/organisation-policy.md#oauth) an HTTP server signs in through: the first entry that names it. An entry
 * names a server as the organisation's rules do: by a name it has, had or shares with the same server (so a rename
 * does not escape it), and/or by what it is reached at; every one given must match.
 */
export function organisationIdpLookup(entries: readonly ManagedCrossAppAccess[]): OrganisationIdpLookup {
  const compiled = entries.map((entry) => ({
    entry,
    byName: entry.server === undefined ? undefined : nameMatcher(entry.server),
    byIdentity: entry.serverIdentity === undefined ? undefined : identityMatcher(entry.serverIdentity),
  }));
  return (serverName, facts) => {
    const identity = facts.get(serverName)?.identity;
    if (identity?.kind !== 'http') return undefined;
    const found = compiled.find(
      ({ byName, byIdentity }) =>
        (!byIdentity || byIdentity(identity)) &&
        (!byName || serverAliases(serverName, facts).some((name) => byName(name))),
    )?.entry;
    if (!found) return undefined;
    return {
      crossAppAccess: {
        idpIssuer: found.idpIssuer,
        idpClientId: found.idpClientId,
        ...(found.idpTokenEndpoint !== undefined ? { idpTokenEndpoint: found.idpTokenEndpoint } : {}),
      },
      ...(found.idpClientSecret !== undefined ? { idpClientSecret: found.idpClientSecret } : {}),
      locked: found.locked,
    };
  };
}

/** The organisation's identity providers as the person sees them (`policy.get`): never a client's secret. */
export function organisationIdpsView(entries: readonly ManagedCrossAppAccess[]): ManagedCrossAppAccessView[] {
  return entries.map(({ idpClientSecret, ...entry }) => ({ ...entry, clientSecret: idpClientSecret !== undefined }));
}
