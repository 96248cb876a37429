import { randomBytes } from 'node:crypto';
import type * as SdkAuth from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { SecretStore } from '../../settings/secret-store';
import { startLoopbackReceiver } from './loopback-receiver';
import { openOAuthCredentials, type OAuthCredentials } from './oauth-credentials';
import { createOAuthProvider, requireSafeEndpoint, SignInRequiredError } from './oauth-provider';

/** The SDK's OAuth client, loaded when a token is refreshed or a sign-in starts, not with the services (cli-start). */
const sdkAuth = (): Promise<typeof SdkAuth> => import('@modelcontextprotocol/sdk/client/auth.js');

/** A token this close to its expiry is refreshed before a request rather than after the server refuses it. */
export const REFRESH_MARGIN_MS = 30_000;
export const DEFAULT_SIGN_IN_TIMEOUT_MS = 5 * 60_000;

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
  /** Forgets the tokens and the client registration. */
  signOut(): void;
  hasTokens(): boolean;
}

export interface OAuthSessionOptions {
  secrets: SecretStore;
  serverName: string;
  serverUrl: string;
  clientId?: string | undefined;
  now?: () => number;
  /** The network; tests and the benchmark may count requests. */
  baseFetch?: FetchLike;
}

export function createOAuthSession({ secrets, serverName, serverUrl, clientId, now = Date.now, baseFetch = fetch }: OAuthSessionOptions): OAuthSession {
  const credentials: OAuthCredentials = openOAuthCredentials(secrets, serverName, serverUrl, now);
  const provider = createOAuthProvider({ credentials, clientId, mode: { kind: 'background' } });
  const mcpOrigin = new URL(serverUrl).origin;

  // Every request the SDK makes for this server: the MCP endpoint itself (the person chose its URL), and the
  // OAuth requests, which must be https or stay on this machine.
  const guardedFetch: FetchLike = (url, init) => {
    const target = new URL(url);
    if (target.origin !== mcpOrigin) requireSafeEndpoint('a sign-in request', target);
    return baseFetch(url, init);
  };

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
    return expiresAt !== undefined && expiresAt - now() < REFRESH_MARGIN_MS && credentials.tokens()?.refresh_token !== undefined;
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
    return guardedFetch(url, init);
  };

  return {
    provider,
    fetch: transportFetch,
    async signIn({ open, timeoutMs = DEFAULT_SIGN_IN_TIMEOUT_MS }) {
      const { auth } = await sdkAuth();
      const state = randomBytes(24).toString('base64url');
      const receiver = await startLoopbackReceiver({ state, timeoutMs });
      let authorizationUrl: URL | undefined;
      // A sign-in asks for new tokens (the person may want another account): the stored ones are not refreshed
      // here, and stay until new ones arrive.
      const signInCredentials: OAuthCredentials = { ...credentials, tokens: () => undefined };
      const flow = createOAuthProvider({
        credentials: signInCredentials,
        clientId,
        mode: { kind: 'sign-in', redirectUrl: receiver.redirectUrl, state, onAuthorizationUrl: (url) => (authorizationUrl = url) },
      });
      try {
        await auth(flow, { serverUrl, fetchFn: guardedFetch });
      } catch (error) {
        receiver.close();
        throw error;
      }
      if (!authorizationUrl) {
        receiver.close();
        throw new Error('The server did not ask for a sign-in.');
      }
      const done = receiver.code.then(async (code) => {
        const result = await auth(flow, { serverUrl, authorizationCode: code, fetchFn: guardedFetch });
        if (result !== 'AUTHORIZED') throw new Error('The server did not accept the sign-in.');
      });
      done.catch(() => undefined);
      return { authorizationUrl: authorizationUrl.href, openedBrowser: open(authorizationUrl.href), done, cancel: () => receiver.close() };
    },
    signOut: () => credentials.forget('all'),
    hasTokens: () => credentials.tokens() !== undefined,
  };
}
