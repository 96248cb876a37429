import { randomBytes } from 'node:crypto';
import type * as SdkAuth from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { SecretStore } from '../../settings/secret-store';
import { startLoopbackReceiver } from './loopback-receiver';
import { openOAuthCredentials, type OAuthCredentials } from './oauth-credentials';
import {
  createOAuthProvider,
  MoreAccessRequiredError,
  requireSafeEndpoint,
  SignInRequiredError,
  type CrossAppSignIn,
  type PreRegisteredClient,
} from './oauth-provider';

/** The SDK's OAuth client, loaded when a token is refreshed or a sign-in starts, not with the services (cli-start). */
const sdkAuth = (): Promise<typeof SdkAuth> => import('@modelcontextprotocol/sdk/client/auth.js');

/** A token this close to its expiry is refreshed before a request rather than after the server refuses it. */
export const REFRESH_MARGIN_MS = 30_000;
export const DEFAULT_SIGN_IN_TIMEOUT_MS = 5 * 60_000;
/**
 * AI Workbench's own client metadata document (a URL-based client id, MCP authorization "Client ID Metadata
 * Documents"; published from docs/oauth/client-metadata.json): used with authorization servers that support
 * it, unless the organisation names its own (docs/user/mcp-oauth.md#client-registration).
 */
export const DEFAULT_CLIENT_METADATA_URL = 'https://ai-workbench.github.io/ai-workbench/oauth/client-metadata.json';

export interface SignInStart {
  /** The authorization server's page the person signs in on. */
  authorizationUrl: string;
  /** Whether a browser was opened on it; when not, the front end shows the address. */
  openedBrowser: boolean;
  /** Settles when the sign-in ends: resolved with tokens saved, rejected with why it did not. */
  done: Promise<void>;
  /** Stops waiting for the browser (`done` rejects). */
  cancel(): void;
}

/**
 * OAuth for one HTTP server at one URL (docs/dev/oauth.md). The transport gets `provider` and `fetch`: the SDK
 * answers a 401 by refreshing (quietly) or, when that is not possible, by a SignInRequiredError; `fetch` refuses
 * OAuth endpoints that are not https or loopback, and refreshes a token about to expire before the request goes out.
 * `signIn` is the only way a browser sign-in starts, always at the person's request.
 */
export interface OAuthSession {
  readonly provider: OAuthClientProvider;
  readonly fetch: FetchLike;
  /** Starts a sign-in and returns once its page is known; `open` shows it to the person (false: cannot). */
  signIn(options: { open(url: string): boolean; timeoutMs?: number }): Promise<SignInStart>;
  /**
   * Gets tokens without a browser: for the pre-registered client itself (the client-credentials grant), or for a
   * cross-app server through the identity provider (the person's ID token exchanged, then the JWT-bearer grant).
   */
  signInAsClient(): Promise<void>;
  /** Forgets the tokens and the client registration. */
  signOut(): void;
  hasTokens(): boolean;
  /** Whether it signs in through the organisation's identity provider (cross-app access). */
  readonly crossApp: boolean;
  /**
   * Whether a 401 now would only read the server's metadata and ask for a sign-in: no tokens to refresh, no grant
   * that runs without a person. Then two first requests may go out at once (docs/dev/protocol-2026.md).
   */
  onlyAsksForSignIn(): boolean;
}

export interface OAuthSessionOptions {
  secrets: SecretStore;
  serverName: string;
  serverUrl: string;
  /** The pre-registered client the person gave (an id, and a secret or key), for a server without dynamic registration. */
  client?: PreRegisteredClient | undefined;
  /** The organisation's pre-registered clients, by authorization server (issuer URL). */
  organisationClient?: ((issuer: string) => PreRegisteredClient | undefined) | undefined;
  /** The client metadata document's URL (a URL-based client id), used where the authorization server supports it. */
  clientMetadataUrl?: string | undefined;
  /** Cross-app access through the organisation's identity provider (docs/user/mcp-oauth.md#cross-app-access). */
  crossApp?: Omit<CrossAppSignIn, 'serverName' | 'fetch'> | undefined;
  now?: () => number;
  /** The network; tests and the benchmark may count requests. */
  baseFetch?: FetchLike;
}

/** Space-separated scopes, each once, in the order first seen. */
export function scopeUnion(...scopes: Array<string | undefined>): string | undefined {
  const all = [...new Set(scopes.flatMap((scope) => scope?.split(/\s+/).filter(Boolean) ?? []))];
  return all.length > 0 ? all.join(' ') : undefined;
}

export function createOAuthSession({
  secrets,
  serverName,
  serverUrl,
  client,
  organisationClient,
  clientMetadataUrl,
  crossApp,
  now = Date.now,
  baseFetch = fetch,
}: OAuthSessionOptions): OAuthSession {
  const credentials: OAuthCredentials = openOAuthCredentials(secrets, serverName, serverUrl, now);
  const mcpOrigin = new URL(serverUrl).origin;

  // Every request the SDK makes for this server: the MCP endpoint itself (the person chose its URL), and the
  // OAuth requests (the identity provider's too), which must be https or stay on this machine.
  const guardedFetch: FetchLike = (url, init) => {
    const target = new URL(url);
    if (target.origin !== mcpOrigin) requireSafeEndpoint('a sign-in request', target);
    return baseFetch(url, init);
  };
  const common = {
    client,
    organisationClient,
    clientMetadataUrl,
    scope: () => credentials.wantedScope(),
    crossApp: crossApp ? { ...crossApp, serverName, fetch: guardedFetch } : undefined,
  };
  const provider = createOAuthProvider({ credentials, ...common, mode: { kind: 'background' } });

  let refreshing: Promise<void> | undefined;
  const refresh = (): Promise<void> => {
    refreshing ??= sdkAuth()
      .then(({ auth }) => auth(provider, { serverUrl, fetchFn: guardedFetch }))
      .then((result) => {
        if (result !== 'AUTHORIZED') throw new SignInRequiredError();
      })
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  };
  const expiring = (): boolean => {
    const expiresAt = credentials.expiresAt();
    return (
      expiresAt !== undefined &&
      expiresAt - now() < REFRESH_MARGIN_MS &&
      credentials.tokens()?.refresh_token !== undefined
    );
  };

  const transportFetch: FetchLike = async (url, init) => {
    if (String(url) === new URL(serverUrl).href && expiring()) {
      try {
        await refresh();
      } catch (error) {
        if (error instanceof SignInRequiredError || error instanceof (await sdkAuth()).UnauthorizedError) throw error;
        // The authorization server could not be reached: the old token may still work; the server decides.
      }
      const token = credentials.tokens()?.access_token;
      if (token) {
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${token}`);
        init = { ...init, headers };
      }
    }
    const response = await guardedFetch(url, init);
    if ((response.status === 401 || response.status === 403) && String(url) === new URL(serverUrl).href)
      await challenged(response);
    return response;
  };

  /**
   * What the server said it wants (MCP authorization, scope selection): a 401's `scope` is asked for at the next
   * sign-in; a 403 `insufficient_scope` asks for more than the token has, so the person signs in again for the union
   * of what was granted and what it asks — never quietly, and never in a loop (docs/user/mcp-oauth.md#more-access).
   */
  const challenged = async (response: Response): Promise<void> => {
    const { extractWWWAuthenticateParams } = await sdkAuth();
    const { scope, error } = extractWWWAuthenticateParams(response);
    if (response.status === 401) {
      const wanted = scopeUnion(credentials.wantedScope(), scope);
      if (wanted && scope) credentials.saveWantedScope(wanted);
      return;
    }
    if (error !== 'insufficient_scope') return;
    const wanted = scopeUnion(credentials.wantedScope(), credentials.tokens()?.scope, scope) ?? '';
    if (wanted) credentials.saveWantedScope(wanted);
    await response.body?.cancel().catch(() => undefined);
    throw new MoreAccessRequiredError(serverName, scope ?? wanted);
  };

  /**
   * RFC 9207: the authorization server names itself in the redirect (`iss`); a redirect from another one (a mix-up
   * attack) is refused, and so is one without it from a server that promised to send it.
   */
  const checkIssuer = (iss: string | null): void => {
    const metadata = credentials.discovery()?.authorizationServerMetadata as
      { issuer?: string; authorization_response_iss_parameter_supported?: boolean } | undefined;
    if (iss === null) {
      if (metadata?.authorization_response_iss_parameter_supported === true)
        throw new Error(
          'The sign-in came back without naming its authorization server (iss), which that server promised to send; it was refused.',
        );
      return;
    }
    if (metadata?.issuer !== undefined && iss !== metadata.issuer) {
      throw new Error(
        `The sign-in came back from ${iss}, not from ${metadata.issuer}, the authorization server it was sent to; it was refused.`,
      );
    }
  };

  return {
    provider,
    fetch: transportFetch,
    async signIn({ open, timeoutMs = DEFAULT_SIGN_IN_TIMEOUT_MS }) {
      if (crossApp)
        throw new Error(
          `${serverName} signs in through your identity provider, without a browser: workbench servers login ${serverName} (with a new ID token if the old one expired).`,
        );
      const { auth } = await sdkAuth();
      const state = randomBytes(24).toString('base64url');
      const receiver = await startLoopbackReceiver({ state, timeoutMs });
      let authorizationUrl: URL | undefined;
      // A sign-in asks for new tokens (the person may want another account): the stored ones are not refreshed
      // here, and stay until new ones arrive.
      const signInCredentials: OAuthCredentials = { ...credentials, tokens: () => undefined };
      const flow = createOAuthProvider({
        credentials: signInCredentials,
        ...common,
        mode: {
          kind: 'sign-in',
          redirectUrl: receiver.redirectUrl,
          state,
          onAuthorizationUrl: (url) => (authorizationUrl = url),
        },
      });
      const scope = credentials.wantedScope();
      try {
        await auth(flow, { serverUrl, fetchFn: guardedFetch, ...(scope ? { scope } : {}) });
      } catch (error) {
        receiver.close();
        throw error;
      }
      if (!authorizationUrl) {
        receiver.close();
        throw new Error('The server did not ask for a sign-in.');
      }
      const done = receiver.code.then(async (code) => {
        try {
          checkIssuer(receiver.issuer());
          const result = await auth(flow, {
            serverUrl,
            authorizationCode: code,
            fetchFn: guardedFetch,
            ...(scope ? { scope } : {}),
          });
          if (result !== 'AUTHORIZED') throw new Error('The server did not accept the sign-in.');
          credentials.saveGrant(undefined);
          receiver.report({ ok: true });
        } catch (error) {
          receiver.report({ ok: false, message: error instanceof Error ? error.message : String(error) });
          throw error;
        }
      });
      done.catch(() => undefined);
      return {
        authorizationUrl: authorizationUrl.href,
        openedBrowser: open(authorizationUrl.href),
        done,
        cancel: () => receiver.close(),
      };
    },
    async signInAsClient() {
      const { auth } = await sdkAuth();
      const flow = createOAuthProvider({
        credentials: { ...credentials, tokens: () => undefined },
        ...common,
        mode: { kind: 'client-credentials' },
      });
      const result = await auth(flow, { serverUrl, fetchFn: guardedFetch });
      if (result !== 'AUTHORIZED') throw new Error('The server did not accept the client credentials.');
      // A cross-app server gets its tokens without a person every time; nothing to remember.
      if (!crossApp) credentials.saveGrant('client_credentials');
    },
    signOut: () => credentials.forget('all'),
    hasTokens: () => credentials.tokens() !== undefined,
    crossApp: crossApp !== undefined,
    onlyAsksForSignIn: () =>
      !crossApp && credentials.tokens() === undefined && credentials.grant() !== 'client_credentials',
  };
}
