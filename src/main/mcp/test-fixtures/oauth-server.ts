/**
 * An OAuth-protected MCP server on 127.0.0.1 for tests, e2e and the benchmark, built with the SDK's server-side
 * auth: `mcpAuthRouter` (authorization-server metadata, dynamic registration, /authorize, /token, /revoke, and the
 * protected-resource metadata) and `requireBearerAuth` in front of a Streamable HTTP MCP endpoint at /mcp, with
 * a small in-memory authorization server provider (after the SDK's demoInMemoryOAuthProvider, plus refresh
 * tokens, expiry and revocation a test can trigger). /authorize approves at once: the "person" always agrees.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import express from 'express';
import { z } from 'zod';

export interface OAuthFixtureOptions {
  /** Serve this as the protected-resource metadata instead of the real one (attacker tests). */
  protectedResourceMetadata?: (mcpUrl: string) => Record<string, unknown>;
  /** Seconds an access token lives (default one hour). */
  accessTokenSeconds?: number;
  /** Offer dynamic client registration (default true); without it only `preRegisteredClientId` works. */
  registration?: boolean;
  preRegisteredClientId?: string;
}

export interface OAuthFixture {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  origin: string;
  /** What the server saw, for assertions. */
  readonly counts: {
    authorize: number;
    codeExchanges: number;
    refreshes: number;
    registrations: number;
    toolCalls: number;
    unauthorized: number;
  };
  /** The `resource` parameter of every authorization request. */
  readonly resources: (string | undefined)[];
  /** The `authorization` header of every request to /mcp. */
  readonly authorizations: (string | undefined)[];
  /** Every access token stops working now (refresh tokens still work). */
  expireAccessTokens(): void;
  /** Every token, access and refresh, stops working now. */
  revokeAll(): void;
  close(): Promise<void>;
}

interface IssuedToken {
  clientId: string;
  expiresAt: number;
  resource: string | undefined;
  scopes: string[];
}

function newMcpServer(counts: OAuthFixture['counts']): McpServer {
  const server = new McpServer({ name: 'oauth-fixture', version: '1.0.0' });
  server.registerTool(
    'whoami',
    {
      description: 'Says which signed-in client called it.',
      inputSchema: { note: z.string().optional() },
      annotations: { readOnlyHint: true },
    },
    async (_args, extra) => {
      counts.toolCalls++;
      return { content: [{ type: 'text', text: `client ${extra.authInfo?.clientId ?? 'unknown'}` }] };
    },
  );
  return server;
}

export async function startOAuthServer(options: OAuthFixtureOptions = {}): Promise<OAuthFixture> {
  const counts = { authorize: 0, codeExchanges: 0, refreshes: 0, registrations: 0, toolCalls: 0, unauthorized: 0 };
  const resources: (string | undefined)[] = [];
  const authorizations: (string | undefined)[] = [];
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();
  const accessTokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, IssuedToken>();
  const accessSeconds = options.accessTokenSeconds ?? 3600;
  if (options.preRegisteredClientId) {
    clients.set(options.preRegisteredClientId, {
      client_id: options.preRegisteredClientId,
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'none',
    });
  }

  const issue = (clientId: string, resource: URL | undefined, scopes: string[]): OAuthTokens => {
    const access = randomUUID();
    const refresh = randomUUID();
    const data = { clientId, resource: resource?.href, scopes, expiresAt: Date.now() + accessSeconds * 1000 };
    accessTokens.set(access, data);
    refreshTokens.set(refresh, { ...data, expiresAt: Number.POSITIVE_INFINITY });
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: accessSeconds,
      refresh_token: refresh,
      scope: scopes.join(' '),
    };
  };

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: async (id) => clients.get(id),
    ...(options.registration === false
      ? {}
      : {
          registerClient: async (client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>) => {
            counts.registrations++;
            const full = {
              ...client,
              client_id: randomUUID(),
              client_id_issued_at: Math.floor(Date.now() / 1000),
            } as OAuthClientInformationFull;
            clients.set(full.client_id, full);
            return full;
          },
        }),
  };

  const provider: OAuthServerProvider = {
    clientsStore,
    async authorize(client, params, response) {
      counts.authorize++;
      resources.push(params.resource?.href);
      const code = randomUUID();
      codes.set(code, { client, params });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      response.redirect(target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const data = codes.get(code);
      if (!data) throw new InvalidGrantError('unknown authorization code');
      return data.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code, _verifier, redirectUri) {
      const data = codes.get(code);
      if (!data || data.client.client_id !== client.client_id)
        throw new InvalidGrantError('unknown authorization code');
      if (redirectUri !== undefined && redirectUri !== data.params.redirectUri)
        throw new InvalidGrantError('redirect_uri differs from the authorization request');
      codes.delete(code);
      counts.codeExchanges++;
      return issue(client.client_id, data.params.resource, data.params.scopes ?? []);
    },
    async exchangeRefreshToken(client, refreshToken, _scopes, resource) {
      const data = refreshTokens.get(refreshToken);
      if (!data || data.clientId !== client.client_id) throw new InvalidGrantError('refresh token revoked or unknown');
      refreshTokens.delete(refreshToken);
      counts.refreshes++;
      return issue(client.client_id, resource ?? (data.resource ? new URL(data.resource) : undefined), data.scopes);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const data = accessTokens.get(token);
      if (!data || data.expiresAt < Date.now()) throw new InvalidTokenError('token expired or unknown');
      return {
        token,
        clientId: data.clientId,
        scopes: data.scopes,
        expiresAt: Math.floor(data.expiresAt / 1000),
        ...(data.resource ? { resource: new URL(data.resource) } : {}),
      };
    },
    async revokeToken(_client, request) {
      accessTokens.delete(request.token);
      refreshTokens.delete(request.token);
    },
  };

  const app = express();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${origin}/mcp`);

  if (options.protectedResourceMetadata) {
    const metadata = options.protectedResourceMetadata(mcpUrl.href);
    app.get('/.well-known/oauth-protected-resource/mcp', (_request, response) => void response.json(metadata));
  }
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(origin),
      resourceServerUrl: mcpUrl,
      scopesSupported: ['mcp:tools'],
      authorizationOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  app.use('/mcp', (request, _response, next) => {
    authorizations.push(request.headers.authorization);
    next();
  });
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
    expectedResource: mcpUrl,
  });
  app.all('/mcp', (request, response, next) => {
    response.on('finish', () => {
      if (response.statusCode === 401) counts.unauthorized++;
    });
    bearer(request, response, next);
  });
  app.all('/mcp', express.json(), async (request, response) => {
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      await newMcpServer(counts).connect(created);
      transport = created;
    }
    await transport.handleRequest(request, response, request.body);
  });

  return {
    url: mcpUrl.href,
    origin,
    counts,
    resources,
    authorizations,
    expireAccessTokens() {
      for (const data of accessTokens.values()) data.expiresAt = 0;
    },
    revokeAll() {
      accessTokens.clear();
      refreshTokens.clear();
    },
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
