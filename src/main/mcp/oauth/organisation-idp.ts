import type { CrossAppAccess } from '../../../shared/mcp';
import type { ServerFactsByName } from '../../../shared/server-identity';

/**
 * The identity provider the organisation's policy gives a server for cross-app access
 * (docs/user/organisation-policy.md#oauth): the settings, the secret of its client there (never shown), and whether
 * the person may set their own instead.
 */
export interface OrganisationIdp {
  readonly crossAppAccess: CrossAppAccess;
  readonly idpClientSecret?: string | undefined;
  readonly locked: boolean;
}

/** The organisation's identity provider for one configured HTTP server, if its policy names that server. */
export type OrganisationIdpLookup = (serverName: string, facts: ServerFactsByName) => OrganisationIdp | undefined;

/**
 * The identity provider a server signs in through: the organisation's when it is locked or the server has none of
 * its own, else the person's. `organisation` is set when it is the organisation's.
 */
export function effectiveCrossAppAccess(
  own: CrossAppAccess | undefined,
  organisation: OrganisationIdp | undefined,
): { crossAppAccess?: CrossAppAccess; organisation?: OrganisationIdp } {
  if (organisation && (organisation.locked || own === undefined))
    return { crossAppAccess: organisation.crossAppAccess, organisation };
  return own ? { crossAppAccess: own } : {};
}
