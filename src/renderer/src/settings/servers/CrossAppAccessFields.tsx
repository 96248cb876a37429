import { useState } from 'react';
import type { McpServerView, OrganisationIdpView } from '../../../../shared/mcp';
import { Field } from '../common';
import { DefaultNote, LockNote } from '../approvals/organisation';
import { organisationIdpReason } from '../approvals/organisation-reasons';

const LOCK_ID = 'lock-cross-app-access';

type Settings = { idpIssuer: string; idpClientId: string; idpTokenEndpoint?: string };
/** What the server form sends for cross-app access; secrets only when typed (they are write-only). */
export interface CrossAppAccessChange {
  crossAppAccess?: Settings;
  oauthClientSecret?: string;
  idpClientSecret?: string;
  idpIdToken?: string;
}

/**
 * Cross-app access on the server form (docs/user/mcp-oauth.md#cross-app-access): the organisation's identity
 * provider, the client AI Workbench is there, and the person's ID token. Secrets are write-only, like headers.
 */
export function useCrossAppAccess(
  server: McpServerView | null,
  /** For a new server: the organisation's identity provider for the URL typed (useOrganisationIdp). */
  organisationForNew: OrganisationIdpView | null = null,
): {
  fields: (problems: Record<string, string>) => React.JSX.Element;
  /** For a new server. */
  added(): CrossAppAccessChange;
  /** For an edit: clearing the identity provider turns cross-app access off. */
  edited(): Omit<CrossAppAccessChange, 'crossAppAccess'> & { crossAppAccess?: Settings | null };
} {
  const current = server?.crossAppAccess;
  // The organisation's identity provider (docs/user/organisation-policy.md#oauth): locked, or a default in force.
  const forNew = server ? null : organisationForNew;
  const byOrganisation = server?.crossAppAccessByOrganisation ?? forNew ?? undefined;
  const locked = byOrganisation?.locked === true;
  const organisationIdp = forNew ?? (byOrganisation ? current : undefined);
  const [issuer, setIssuer] = useState(current?.idpIssuer ?? '');
  const [clientId, setClientId] = useState(current?.idpClientId ?? '');
  const [tokenEndpoint, setTokenEndpoint] = useState(current?.idpTokenEndpoint ?? '');
  const [idpSecret, setIdpSecret] = useState('');
  const [idToken, setIdToken] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const text = (
    label: string,
    value: string,
    set: (value: string) => void,
    problem: string | undefined,
    hint?: string,
    secret = false,
    byTheOrganisation = false,
  ): React.JSX.Element => (
    <Field label={label} problem={problem} {...(hint ? { hint } : {})}>
      {(props) => (
        <input
          {...props}
          {...(byTheOrganisation
            ? { disabled: true, 'aria-describedby': [props['aria-describedby'], LOCK_ID].filter(Boolean).join(' ') }
            : {})}
          className="mono"
          type={secret ? 'password' : 'text'}
          autoComplete="off"
          value={value}
          onChange={(event) => set(event.target.value)}
        />
      )}
    </Field>
  );
  // A default of the organisation's, left as it is, stays the organisation's: it is not saved as the person's own.
  const same = (a: Settings | undefined, b: Settings | undefined): boolean =>
    a?.idpIssuer === b?.idpIssuer &&
    a?.idpClientId === b?.idpClientId &&
    (a?.idpTokenEndpoint ?? '') === (b?.idpTokenEndpoint ?? '');
  // A new server under the organisation's locked identity provider shows it in the fields it disables.
  const shown = forNew?.locked ? forNew : null;
  const keep = server?.crossAppAccess
    ? 'Stored as a secret; leave empty to keep the stored one.'
    : 'Stored as a secret.';
  return {
    fields: (problems) => (
      <fieldset className="span-2 field-set" data-testid="cross-app-access">
        <legend>Cross-app access (optional)</legend>
        <p className="field-hint">
          Sign in through your organisation&apos;s identity provider, without a browser. Give the OAuth client ID above
          and its secret here, unless your organisation gives them.
        </p>
        {byOrganisation && (
          <p className="field-hint" data-testid="organisation-idp">
            {locked ? (
              <LockNote id={LOCK_ID} detail={organisationIdpReason(byOrganisation, organisationIdp)} />
            ) : (
              <>
                <DefaultNote /> {organisationIdpReason(byOrganisation, organisationIdp)}
              </>
            )}
          </p>
        )}
        {text(
          'Identity provider (issuer URL)',
          shown ? shown.idpIssuer : issuer,
          setIssuer,
          problems['crossAppAccess.idpIssuer'] ?? problems.crossAppAccess,
          undefined,
          false,
          locked,
        )}
        {text(
          'Client ID at the identity provider',
          shown ? shown.idpClientId : clientId,
          setClientId,
          problems['crossAppAccess.idpClientId'],
          undefined,
          false,
          locked,
        )}
        {text(
          'Token endpoint (optional)',
          shown ? (shown.idpTokenEndpoint ?? '') : tokenEndpoint,
          setTokenEndpoint,
          problems['crossAppAccess.idpTokenEndpoint'],
          'Only when the identity provider publishes no metadata at its issuer.',
          false,
          locked,
        )}
        {!locked &&
          !byOrganisation?.clientSecret &&
          text('Client secret at the identity provider', idpSecret, setIdpSecret, problems.idpClientSecret, keep, true)}
        {text('Your ID token', idToken, setIdToken, problems.idpIdToken, keep, true)}
        {text(
          "Client secret at the server's authorization server",
          clientSecret,
          setClientSecret,
          problems.oauthClientSecret,
          keep,
          true,
        )}
      </fieldset>
    ),
    added() {
      const configured = issuer.trim() !== '' || clientId.trim() !== '';
      if (forNew && (forNew.locked || !configured)) {
        // The organisation's identity provider is not the person's to save; their ID token and client secret are.
        return {
          ...(clientSecret ? { oauthClientSecret: clientSecret } : {}),
          ...(idToken.trim() ? { idpIdToken: idToken.trim() } : {}),
        };
      }
      if (!configured) return {};
      return {
        crossAppAccess: {
          idpIssuer: issuer.trim(),
          idpClientId: clientId.trim(),
          ...(tokenEndpoint.trim() ? { idpTokenEndpoint: tokenEndpoint.trim() } : {}),
        },
        ...(clientSecret ? { oauthClientSecret: clientSecret } : {}),
        ...(idpSecret ? { idpClientSecret: idpSecret } : {}),
        ...(idToken.trim() ? { idpIdToken: idToken.trim() } : {}),
      };
    },
    edited() {
      const change = this.added();
      if (byOrganisation && (locked || same(change.crossAppAccess, current))) {
        // The organisation's identity provider is not the person's to save; their ID token and client secret are.
        const { crossAppAccess: _idp, idpClientSecret: _secret, ...rest } = change;
        return rest;
      }
      return change.crossAppAccess === undefined && current ? { crossAppAccess: null } : change;
    },
  };
}
