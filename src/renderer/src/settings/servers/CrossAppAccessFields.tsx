import { useState } from 'react';
import type { McpServerView } from '../../../../shared/mcp';
import { Field } from '../common';

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
export function useCrossAppAccess(server: McpServerView | null): {
  fields: (problems: Record<string, string>) => React.JSX.Element;
  /** For a new server. */
  added(): CrossAppAccessChange;
  /** For an edit: clearing the identity provider turns cross-app access off. */
  edited(): Omit<CrossAppAccessChange, 'crossAppAccess'> & { crossAppAccess?: Settings | null };
} {
  const current = server?.crossAppAccess;
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
  ): React.JSX.Element => (
    <Field label={label} problem={problem} {...(hint ? { hint } : {})}>
      {(props) => (
        <input
          {...props}
          className="mono"
          type={secret ? 'password' : 'text'}
          autoComplete="off"
          value={value}
          onChange={(event) => set(event.target.value)}
        />
      )}
    </Field>
  );
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
        {text(
          'Identity provider (issuer URL)',
          issuer,
          setIssuer,
          problems['crossAppAccess.idpIssuer'] ?? problems.crossAppAccess,
        )}
        {text('Client ID at the identity provider', clientId, setClientId, problems['crossAppAccess.idpClientId'])}
        {text(
          'Token endpoint (optional)',
          tokenEndpoint,
          setTokenEndpoint,
          problems['crossAppAccess.idpTokenEndpoint'],
          'Only when the identity provider publishes no metadata at its issuer.',
        )}
        {text('Client secret at the identity provider', idpSecret, setIdpSecret, problems.idpClientSecret, keep, true)}
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
      return change.crossAppAccess === undefined && current ? { crossAppAccess: null } : change;
    },
  };
}
