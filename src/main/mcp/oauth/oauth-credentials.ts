import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';
import { parseJsonOrUndefined } from '../../../shared/json';
import type { SecretStore } from '../../settings/secret-store';
import { httpIdentity } from '../server-identity';
import { oauthSecretKey } from '../server-settings';

/**
 * One server's OAuth state (tokens, client registration, discovery) as ONE secret-store entry,
 * `mcp.<server>.oauth` (docs/dev/oauth.md). It is bound to the server's identity (its URL's origin and path, the
 * OAuth resource): after that changes, nothing stored for the old one is read, so a token never travels to a server
 * it was not issued for.
 * Removing or renaming the server removes or moves it with the server's other secrets.
 */
export interface OAuthCredentials {
  tokens(): OAuthTokens | undefined;
  /** When the access token stops working (ms since the epoch), if the server said (`expires_in`). */
  expiresAt(): number | undefined;
  saveTokens(tokens: OAuthTokens): void;
  /**
   * Like saveTokens, but the secret store's write (an fsync, ~10 ms on a slow disk) happens FLUSH_DELAY_MS later (or
   * at exit), once the request that waited for the quiet refresh has its answer. Read back at once from memory;
   * the MCP host keeps one credentials object per server, so a reconnect reads it too.
   */
  saveTokensSoon(tokens: OAuthTokens): void;
  client(): OAuthClientInformationMixed | undefined;
  saveClient(client: OAuthClientInformationMixed): void;
  discovery(): OAuthDiscoveryState | undefined;
  saveDiscovery(state: OAuthDiscoveryState): void;
  /** How the tokens were got: `client_credentials` when the client signed in as itself (no person, no browser). */
  grant(): 'client_credentials' | undefined;
  saveGrant(grant: 'client_credentials' | undefined): void;
  /**
   * The scope the next sign-in asks for, when the server said which: the `scope` of its 401's WWW-Authenticate, or
   * after a 403 `insufficient_scope` the union of what was granted and what it asked (docs/user/mcp-oauth.md#scopes).
   */
  wantedScope(): string | undefined;
  saveWantedScope(scope: string): void;
  /** Forgets part of the state (the SDK's invalidateCredentials scopes). */
  forget(scope: 'all' | 'client' | 'tokens' | 'discovery'): void;
}

const RecordSchema = z.object({
  url: z.string(),
  tokens: z.looseObject({ access_token: z.string(), token_type: z.string() }).optional(),
  expiresAt: z.number().optional(),
  client: z.looseObject({ client_id: z.string() }).optional(),
  discovery: z.looseObject({ authorizationServerUrl: z.string() }).optional(),
  grant: z.literal('client_credentials').optional(),
  scope: z.string().optional(),
});
type StoredRecord = z.infer<typeof RecordSchema>;

export const FLUSH_DELAY_MS = 100;
const unflushed = new Set<() => void>();
let flushAtExit = false;
function flushLater(flush: () => void): void {
  unflushed.add(flush);
  if (!flushAtExit) {
    flushAtExit = true;
    process.once('exit', () => {
      for (const pending of unflushed) pending();
    });
  }
  setTimeout(() => {
    unflushed.delete(flush);
    flush();
  }, FLUSH_DELAY_MS).unref();
}

export function openOAuthCredentials(
  secrets: SecretStore,
  serverName: string,
  serverUrl: string,
  now: () => number = Date.now,
): OAuthCredentials {
  const key = oauthSecretKey(serverName);
  const identity = httpIdentity(serverUrl).key;
  /** A record written by saveTokensSoon that the secret store does not have yet. */
  let unwritten: StoredRecord | undefined;
  const flush = (): void => {
    if (unwritten === undefined) return;
    const record = unwritten;
    unwritten = undefined;
    secrets.set(key, JSON.stringify(record));
  };
  const read = (): StoredRecord => {
    if (unwritten) return unwritten;
    const text = secrets.get(key);
    const parsed = text === undefined ? undefined : RecordSchema.safeParse(parseJsonOrUndefined(text));
    // A record for another server (another OAuth resource: origin and path), or one that does not parse, counts as
    // nothing stored; the URL's query is not part of what the server is (docs/user/approvals.md).
    return parsed?.success && httpIdentity(parsed.data.url).key === identity
      ? { ...parsed.data, url: serverUrl }
      : { url: serverUrl };
  };
  const write = (change: (record: StoredRecord) => StoredRecord): void => {
    const next = change(read());
    unwritten = undefined;
    secrets.set(key, JSON.stringify(next));
  };
  const withTokens = (record: StoredRecord, tokens: OAuthTokens): StoredRecord => {
    // A refresh answer may leave the refresh token out: the old one stays valid (RFC 6749 §6).
    const refresh = tokens.refresh_token ?? record.tokens?.refresh_token;
    const { expiresAt: _old, ...rest } = record;
    return {
      ...rest,
      tokens: { ...tokens, ...(refresh ? { refresh_token: refresh } : {}) },
      ...(tokens.expires_in !== undefined ? { expiresAt: now() + tokens.expires_in * 1000 } : {}),
    };
  };
  return {
    tokens: () => read().tokens as OAuthTokens | undefined,
    expiresAt: () => read().expiresAt,
    saveTokens: (tokens) => write((record) => withTokens(record, tokens)),
    saveTokensSoon(tokens) {
      const pending = unwritten === undefined;
      unwritten = withTokens(read(), tokens);
      if (pending) flushLater(flush);
    },
    client: () => read().client as OAuthClientInformationMixed | undefined,
    saveClient: (client) => write((record) => ({ ...record, client })),
    discovery: () => read().discovery as OAuthDiscoveryState | undefined,
    saveDiscovery: (discovery) => write((record) => ({ ...record, discovery: discovery as StoredRecord['discovery'] })),
    grant: () => read().grant,
    saveGrant: (grant) =>
      write((record) => {
        const { grant: _old, ...rest } = record;
        return grant ? { ...rest, grant } : rest;
      }),
    wantedScope: () => read().scope,
    saveWantedScope(scope) {
      if (read().scope !== scope) write((record) => ({ ...record, scope }));
    },
    forget(scope) {
      if (scope === 'all') {
        secrets.delete(key);
        return;
      }
      write((record) => {
        const next = { ...record };
        if (scope === 'tokens') {
          delete next.tokens;
          delete next.expiresAt;
        }
        if (scope === 'client') delete next.client;
        if (scope === 'discovery') delete next.discovery;
        return next;
      });
    },
  };
}
