import type {
  AddClientAuthentication,
  OAuthClientProvider,
  OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
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

/**
 * The server refused a request for want of scopes the token lacks (403 `insufficient_scope`): the person signs in
 * again for the union of what was granted and what the server asks (docs/user/mcp-oauth.md#more-access).
 */
export class MoreAccessRequiredError extends SignInRequiredError {
  constructor(
    readonly serverName: string,
    readonly scopes: string,
  ) {
    super(`${serverName} needs more access: ${scopes}. Sign in again to grant it.`);
    this.name = 'MoreAccessRequiredError';
  }
}

/**
 * Cross-app access could not get a token: no ID token, or the identity provider refused the one given (expired, most
 * often). The message says what to do (docs/user/mcp-oauth.md#cross-app-access).
 */
export class IdentityProviderSignInError extends SignInRequiredError {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityProviderSignInError';
  }
}

/** An OAuth endpoint we refuse to talk to (not https, and not on this machine). */
export class UnsafeEndpointError extends Error {
  constructor(what: string, url: string) {
    super(
      `The server's sign-in points ${what} at ${url}, which is neither https nor on this machine; AI Workbench will not send credentials there.`,
    );
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

/**
 * How a provider behaves: in the background it never starts a sign-in; during one it has a redirect and a state;
 * with `client-credentials` it gets tokens for the client itself (no person, no browser: the client-credentials
 * grant, OAuth 2.1 §4.2), and so does the background for a server signed in that way.
 */
export type ProviderMode =
  | { kind: 'background' }
  | { kind: 'sign-in'; redirectUrl: string; state: string; onAuthorizationUrl(url: URL): void }
  | { kind: 'client-credentials' };

/** A client registered beforehand with the authorization server (by the person or the organisation). */
export interface PreRegisteredClient {
  clientId: string;
  /** For `client_secret_basic` or `client_secret_post`, whichever the server's metadata lists. */
  clientSecret?: string | undefined;
  /** For `private_key_jwt` (RFC 7523): a PKCS#8 PEM key and its JWS algorithm. */
  privateKey?: { pem: string; algorithm: string } | undefined;
}

/**
 * Cross-app access (enterprise-managed authorization, docs/user/mcp-oauth.md#cross-app-access): the person's ID token
 * from the organisation's identity provider is exchanged there for an ID-JAG (RFC 8693), which the server's
 * authorization server takes in a JWT-bearer grant (RFC 7523) from the pre-registered client. No browser, no person.
 */
export interface CrossAppSignIn {
  serverName: string;
  idpIssuer: string;
  idpClientId: string;
  /** The identity provider's token endpoint; else discovered from its issuer. */
  idpTokenEndpoint?: string | undefined;
  idpClientSecret?: string | undefined;
  /** The person's ID token (a secret): sent to the identity provider's token endpoint and nowhere else. */
  idToken?: string | undefined;
  /** The guarded network: https or this machine only. */
  fetch: FetchLike;
}

const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface ProviderOptions {
  credentials: OAuthCredentials;
  /** The pre-registered client the person gave for this server. */
  client?: PreRegisteredClient | undefined;
  /** The organisation's pre-registered client for an authorization server (by its issuer URL), if it set one. */
  organisationClient?: ((issuer: string) => PreRegisteredClient | undefined) | undefined;
  /** The URL of the client's metadata document (a URL-based client id), used where the server supports it. */
  clientMetadataUrl?: string | undefined;
  /** The scope to ask for, when the server said which (WWW-Authenticate or a step-up); else the SDK's choice. */
  scope?: (() => string | undefined) | undefined;
  /** Signs in through the organisation's identity provider, always without a browser. */
  crossApp?: CrossAppSignIn | undefined;
  mode: ProviderMode;
}

/**
 * The SDK's OAuthClientProvider (`@modelcontextprotocol/sdk/client/auth`) over our secret store. The SDK does the
 * protocol (discovery, registration, PKCE, the `resource` parameter, refresh); this decides where state lives and
 * refuses what an attacker could steer: an authorization server that is not https, and a sign-in nobody asked for.
 */
export function createOAuthProvider({
  credentials,
  client,
  organisationClient,
  clientMetadataUrl,
  scope,
  crossApp,
  mode,
}: ProviderOptions): OAuthClientProvider {
  let verifier: string | undefined;
  const machine =
    crossApp !== undefined ||
    mode.kind === 'client-credentials' ||
    (mode.kind === 'background' && credentials.grant() === 'client_credentials');
  const preRegisteredClient = (): PreRegisteredClient | undefined => {
    if (client) return client;
    const issuer = credentials.discovery()?.authorizationServerUrl;
    return issuer === undefined ? undefined : organisationClient?.(issuer);
  };
  const redirectUrl = (): string | undefined => {
    if (machine) return undefined;
    if (mode.kind === 'sign-in') return mode.redirectUrl;
    // For a refresh only: the SDK needs some redirect URL to know this is the authorization-code flow.
    const registered = credentials.client();
    return registered && 'redirect_uris' in registered && typeof registered.redirect_uris[0] === 'string'
      ? registered.redirect_uris[0]
      : 'http://127.0.0.1/callback';
  };
  // private_key_jwt (RFC 7523 §2.2) through the SDK's helper; a client secret goes the SDK's own way (basic or post).
  const key = client?.privateKey;
  const clientAuthentication: AddClientAuthentication | undefined = key
    ? async (headers, params, url, metadata) => {
        const { createPrivateKeyJwtAuth } = await import('@modelcontextprotocol/sdk/client/auth-extensions.js');
        await createPrivateKeyJwtAuth({
          issuer: client.clientId,
          subject: client.clientId,
          privateKey: key.pem,
          alg: key.algorithm,
        })(headers, params, url, metadata);
      }
    : undefined;
  const provider: OAuthClientProvider = {
    get redirectUrl() {
      return redirectUrl();
    },
    get clientMetadataUrl() {
      return machine ? undefined : clientMetadataUrl;
    },
    get clientMetadata(): OAuthClientMetadata {
      const wanted = scope?.();
      if (machine) {
        return {
          client_name: APP_NAME,
          redirect_uris: [],
          grant_types: [crossApp ? JWT_BEARER_GRANT : 'client_credentials'],
          ...(wanted ? { scope: wanted } : {}),
        };
      }
      return {
        client_name: APP_NAME,
        redirect_uris: [redirectUrl() as string],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },
    state: () => (mode.kind === 'sign-in' ? mode.state : ''),
    clientInformation(): OAuthClientInformationMixed | undefined {
      const stored = credentials.client();
      const fixed = preRegisteredClient();
      if (fixed !== undefined) {
        // The pre-registered client as given now (a changed secret counts at once), with the issuer it was bound to.
        const base = stored?.client_id === fixed.clientId ? stored : undefined;
        return {
          ...base,
          client_id: fixed.clientId,
          ...(fixed.clientSecret !== undefined ? { client_secret: fixed.clientSecret } : {}),
        };
      }
      if (crossApp)
        throw new IdentityProviderSignInError(
          `Cross-app access to ${crossApp.serverName} needs the client id and secret registered at its authorization server.`,
        );
      if (mode.kind === 'client-credentials')
        throw new SignInRequiredError(
          'Signing in with client credentials needs a pre-registered client id and its secret or key.',
        );
      if (mode.kind === 'background') {
        if (!stored) throw new SignInRequiredError();
        return stored;
      }
      // A dynamic registration names its redirect URIs exactly; a sign-in on another loopback port registers again,
      // so servers that do not relax loopback ports (RFC 8252 §7.3) accept the redirect too.
      if (stored && 'redirect_uris' in stored && !stored.redirect_uris.includes(mode.redirectUrl)) return undefined;
      return stored;
    },
    saveClientInformation(client) {
      // A pre-registered client's secret stays where the person or organisation keeps it, not in the token record.
      const { client_secret: _secret, ...rest } = client as OAuthClientInformationMixed & { client_secret?: string };
      credentials.saveClient(preRegisteredClient() ? rest : client);
    },
    tokens: () => credentials.tokens(),
    // In the background, tokens come from a quiet refresh that a request waits for: written right after it goes out.
    saveTokens: (tokens) =>
      mode.kind === 'background' ? credentials.saveTokensSoon(tokens) : credentials.saveTokens(tokens),
    redirectToAuthorization(url) {
      if (mode.kind !== 'sign-in') throw new SignInRequiredError();
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
  if (crossApp) {
    provider.prepareTokenRequest = (requested) =>
      crossAppTokenRequest(crossApp, credentials, preRegisteredClient(), requested);
  } else if (machine) {
    provider.prepareTokenRequest = (requested) => {
      const params = new URLSearchParams({ grant_type: 'client_credentials' });
      if (requested) params.set('scope', requested);
      return params;
    };
  }
  if (clientAuthentication) provider.addClientAuthentication = clientAuthentication;
  return provider;
}

/**
 * The JWT-bearer grant's parameters, through the SDK v2's CrossAppAccessProvider: its assertion is the ID-JAG the
 * identity provider gives for this server's authorization server (the audience, by its issuer) and resource (both
 * from the discovery the SDK's auth() just did and saved).
 */
async function crossAppTokenRequest(
  crossApp: CrossAppSignIn,
  credentials: OAuthCredentials,
  client: PreRegisteredClient | undefined,
  scope: string | undefined,
): Promise<URLSearchParams> {
  const { serverName, idToken } = crossApp;
  const again = `Give a new one: workbench servers login ${serverName} --id-token-stdin (or in the server's settings).`;
  if (!idToken)
    throw new IdentityProviderSignInError(
      `Cross-app access to ${serverName} needs an ID token from your identity provider. ${again}`,
    );
  if (client?.clientSecret === undefined)
    throw new IdentityProviderSignInError(
      `Cross-app access to ${serverName} needs the client id and secret registered at its authorization server.`,
    );
  const discovery = credentials.discovery();
  const issuer =
    (discovery?.authorizationServerMetadata as { issuer?: string } | undefined)?.issuer ??
    discovery?.authorizationServerUrl;
  const resource = (discovery?.resourceMetadata as { resource?: string } | undefined)?.resource;
  if (issuer === undefined || resource === undefined)
    throw new Error(
      `${serverName} does not publish its protected-resource metadata (RFC 9728), which cross-app access needs to name the server and its authorization server.`,
    );
  const { CrossAppAccessProvider, discoverAndRequestJwtAuthGrant, requestJwtAuthorizationGrant } =
    await import('@modelcontextprotocol/client');
  const provider = new CrossAppAccessProvider({
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    expectedIssuer: issuer,
    fetchFn: crossApp.fetch,
    assertion: async (context) => {
      const exchange = {
        audience: context.authorizationServerUrl,
        resource: context.resourceUrl,
        idToken,
        clientId: crossApp.idpClientId,
        ...(crossApp.idpClientSecret !== undefined ? { clientSecret: crossApp.idpClientSecret } : {}),
        ...(context.scope ? { scope: context.scope } : {}),
        fetchFn: context.fetchFn,
      };
      const result = crossApp.idpTokenEndpoint
        ? await requestJwtAuthorizationGrant({ ...exchange, tokenEndpoint: crossApp.idpTokenEndpoint })
        : await discoverAndRequestJwtAuthGrant({ ...exchange, idpUrl: crossApp.idpIssuer });
      return result.jwtAuthGrant;
    },
  });
  provider.saveAuthorizationServerUrl(issuer);
  provider.saveResourceUrl?.(resource);
  try {
    return await provider.prepareTokenRequest(scope);
  } catch (error) {
    // The identity provider refused the exchange (most often: the ID token expired). Its answer names no secret.
    const message = error instanceof Error ? error.message : String(error);
    if (/^Token exchange failed/.test(message))
      throw new IdentityProviderSignInError(
        `Your identity provider did not give access to ${serverName} (${message}). The ID token may have expired. ${again}`,
      );
    throw error;
  }
}
