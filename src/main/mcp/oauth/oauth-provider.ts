import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { APP_NAME } from '../../../shared/app-name';
import type { OAuthCredentials } from './oauth-credentials';

/**
 * The server needs the person to sign in: there is no token, or its refresh token no longer works.
 * Never retried by itself; the server waits in `needs-sign-in` until the person signs in (docs/user/mcp-oauth.md).
 */
export class SignInRequiredError extends Error {
  constructor(message = 'Sign in to use this server.') {
    super(message);
    this.name = 'SignInRequiredError';
  }
}

/** An OAuth endpoint we refuse to talk to (not https, and not on this machine). */
export class UnsafeEndpointError extends Error {
  constructor(what: string, url: string) {
    super(`The server's sign-in points ${what} at ${url}, which is neither https nor on this machine; AI Workbench will not send credentials there.`);
    this.name = 'UnsafeEndpointError';
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** https anywhere, or http on this machine only (OAuth 2.1 §1.5; loopback for local servers and tests). */
export function isSafeEndpoint(url: string | URL): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return parsed.protocol === 'https:' || (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname));
}

export function requireSafeEndpoint(what: string, url: string | URL | undefined): void {
  if (url !== undefined && !isSafeEndpoint(url)) throw new UnsafeEndpointError(what, String(url));
}

/** How a provider behaves: in the background it never starts a sign-in; during one it has a redirect and a state. */
export type ProviderMode =
  | { kind: 'background' }
  | { kind: 'sign-in'; redirectUrl: string; state: string; onAuthorizationUrl(url: URL): void };

export interface ProviderOptions {
  credentials: OAuthCredentials;
  /** A client id the person entered for a server without dynamic registration. */
  clientId?: string | undefined;
  mode: ProviderMode;
}

/**
 * The SDK's OAuthClientProvider (`@modelcontextprotocol/sdk/client/auth`) over our secret store. The SDK does the
 * protocol (discovery, registration, PKCE, the `resource` parameter, refresh); this decides where state lives and
 * refuses what an attacker could steer: an authorization server that is not https, and a sign-in nobody asked for.
 */
export function createOAuthProvider({ credentials, clientId, mode }: ProviderOptions): OAuthClientProvider {
  let verifier: string | undefined;
  const redirectUrl = (): string => {
    if (mode.kind === 'sign-in') return mode.redirectUrl;
    // For a refresh only: the SDK needs some redirect URL to know this is the authorization-code flow.
    const client = credentials.client();
    return client && 'redirect_uris' in client && typeof client.redirect_uris[0] === 'string' ? client.redirect_uris[0] : 'http://127.0.0.1/callback';
  };
  return {
    get redirectUrl() {
      return redirectUrl();
    },
    get clientMetadata(): OAuthClientMetadata {
      return {
        client_name: APP_NAME,
        redirect_uris: [redirectUrl()],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },
    state: () => (mode.kind === 'sign-in' ? mode.state : ''),
    clientInformation(): OAuthClientInformationMixed | undefined {
      const stored = credentials.client();
      if (clientId !== undefined) return stored?.client_id === clientId ? stored : { client_id: clientId };
      if (mode.kind === 'background') {
        if (!stored) throw new SignInRequiredError();
        return stored;
      }
      // A dynamic registration names its redirect URIs exactly; a sign-in on another loopback port registers again,
      // so servers that do not relax loopback ports (RFC 8252 §7.3) accept the redirect too.
      if (stored && 'redirect_uris' in stored && !stored.redirect_uris.includes(mode.redirectUrl)) return undefined;
      return stored;
    },
    saveClientInformation: (client) => credentials.saveClient(client),
    tokens: () => credentials.tokens(),
    // In the background, tokens come from a quiet refresh that a request waits for: written right after it goes out.
    saveTokens: (tokens) => (mode.kind === 'background' ? credentials.saveTokensSoon(tokens) : credentials.saveTokens(tokens)),
    redirectToAuthorization(url) {
      if (mode.kind === 'background') throw new SignInRequiredError();
      requireSafeEndpoint('its authorization page', url);
      mode.onAuthorizationUrl(url);
    },
    saveCodeVerifier(codeVerifier) {
      verifier = codeVerifier;
    },
    codeVerifier() {
      if (verifier === undefined) throw new Error('No sign-in is in progress.');
      return verifier;
    },
    invalidateCredentials(scope) {
      if (scope === 'verifier') verifier = undefined;
      else credentials.forget(scope);
    },
    discoveryState: () => credentials.discovery(),
    saveDiscoveryState(state: OAuthDiscoveryState) {
      // Checked before a client registers or a token is asked for: nothing goes to a plain-http issuer elsewhere.
      requireSafeEndpoint('its authorization server', state.authorizationServerUrl);
      const metadata = state.authorizationServerMetadata;
      requireSafeEndpoint('its authorization endpoint', metadata?.authorization_endpoint);
      requireSafeEndpoint('its token endpoint', metadata?.token_endpoint);
      requireSafeEndpoint('its registration endpoint', metadata?.registration_endpoint);
      credentials.saveDiscovery(state);
    },
  };
}
