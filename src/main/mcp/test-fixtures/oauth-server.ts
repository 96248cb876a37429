/**
 * An OAuth-protected MCP server on 127.0.0.1 for tests, e2e and the benchmark, built with the SDK's server-side
 * auth: `mcpAuthRouter` (authorization-server metadata, dynamic registration, /authorize, /token, /revoke, and the
 * protected-resource metadata) and `requireBearerAuth` in front of a Streamable HTTP MCP endpoint at /mcp, with
 * a small in-memory authorization server provider (after the SDK's demoInMemoryOAuthProvider, plus refresh
 * tokens, expiry and revocation a test can trigger). /authorize approves at once: the "person" always agrees.
 *
 * What the SDK's server auth leaves out, added in front of its router: `client_secret_basic` (its client
 * authentication reads the body only), the client-credentials grant (its token handler refuses it), and the
 * redirect's `iss` (RFC 9207). A `publish` tool needs a scope the token may lack: the SDK's `requireBearerAuth` with
 * that scope answers 403 `insufficient_scope` (a step-up).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createOAuthMetadata,
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer as ModernMcpServer } from '@modelcontextprotocol/server';
import express from 'express';
import type { IdentityProviderFixture } from './identity-provider';
import { z } from 'zod';

export interface OAuthFixtureOptions {
  /** Serve this as the protected-resource metadata instead of the real one (attacker tests). */
  protectedResourceMetadata?: (mcpUrl: string) => Record<string, unknown>;
  /** Seconds an access token lives (default one hour). */
  accessTokenSeconds?: number;
  /** Offer dynamic client registration (default true); without it only `preRegisteredClientId` works. */
  registration?: boolean;
  preRegisteredClientId?: string;
  /** A client registered beforehand with a secret, authenticated at /token the way `authMethod` says. */
  preRegisteredClient?: {
    clientId: string;
    clientSecret: string;
    authMethod: 'client_secret_basic' | 'client_secret_post';
    /** Also allow the client-credentials grant (the client signs in as itself). */
    clientCredentials?: boolean;
  };
  /** Offer a `publish` tool that needs this scope; a token without it gets 403 insufficient_scope naming it alone. */
  stepUpScope?: string;
  /**
   * RFC 9207: the authorization server's metadata promises `iss` in the redirect, and the redirect carries `send`:
   * the server's own issuer, another one (a mix-up attack), or none.
   */
  issuerInRedirect?: { send: 'own' | 'none' | string };
  /**
   * URL-based client ids (Client ID Metadata Documents) the authorization server accepts, each with the document
   * found at its URL (the fixture does not fetch: the SDK's client insists on https URLs).
   */
  clientMetadataDocuments?: Record<string, Record<string, unknown>>;
  /**
   * `2026-07-28`: /mcp is a 2026-07-28 server built from the SDK v2's server packages (`createMcpHandler`, refusing
   * 2025-era traffic, so only a client that speaks 2026-07-28 reaches it) behind the same authorization.
   */
  protocol?: '2026-07-28';
  /**
   * Cross-app access: the authorization server takes the JWT-bearer grant (RFC 7523) from `preRegisteredClient`
   * (its secret, `client_secret_basic`), with an ID-JAG this identity provider issued for it and for /mcp.
   */
  jwtBearer?: { idp: IdentityProviderFixture };
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
    clientCredentials: number;
    jwtBearer: number;
  };
  /** How the client authenticated at /token, per request: `client_secret_basic`, `client_secret_post` or `none`. */
  readonly tokenAuthMethods: string[];
  /** The `scope` of every authorization request. */
  readonly authorizeScopes: (string | undefined)[];
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

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

interface IssuedToken {
  clientId: string;
  expiresAt: number;
  resource: string | undefined;
  scopes: string[];
}

/** The same `whoami` tool, the 2026-07-28 way. */
function newModernServer(counts: OAuthFixture['counts']): ModernMcpServer {
  const server = new ModernMcpServer({ name: 'oauth-fixture-2026', version: '2.0.0' });
  server.registerTool(
    'whoami',
    { description: 'Says that a signed-in client called it.', inputSchema: z.object({ note: z.string().optional() }) },
    async () => {
      counts.toolCalls++;
      return { content: [{ type: 'text', text: 'client (2026-07-28)' }] };
    },
  );
  return server;
}

function newMcpServer(counts: OAuthFixture['counts'], stepUpScope: string | undefined): McpServer {
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
  if (stepUpScope) {
    server.registerTool(
      'publish',
      { description: `Publishes; needs the ${stepUpScope} scope.`, inputSchema: { text: z.string().optional() } },
      async (_args, extra) => {
        counts.toolCalls++;
        return { content: [{ type: 'text', text: `published with ${extra.authInfo?.scopes.join(' ')}` }] };
      },
    );
  }
  return server;
}

export async function startOAuthServer(options: OAuthFixtureOptions = {}): Promise<OAuthFixture> {
  const counts = {
    authorize: 0,
    codeExchanges: 0,
    refreshes: 0,
    registrations: 0,
    toolCalls: 0,
    unauthorized: 0,
    clientCredentials: 0,
    jwtBearer: 0,
  };
  const resources: (string | undefined)[] = [];
  const tokenAuthMethods: string[] = [];
  const authorizeScopes: (string | undefined)[] = [];
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
  const secretClient = options.preRegisteredClient;
  if (secretClient) {
    clients.set(secretClient.clientId, {
      client_id: secretClient.clientId,
      client_secret: secretClient.clientSecret,
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: secretClient.authMethod,
      grant_types: [
        'authorization_code',
        'refresh_token',
        ...(secretClient.clientCredentials ? ['client_credentials'] : []),
      ],
    });
  }

  const issue = (
    clientId: string,
    resource: URL | undefined,
    scopes: string[],
    { refreshable = true } = {},
  ): OAuthTokens => {
    const access = randomUUID();
    const refresh = randomUUID();
    const data = { clientId, resource: resource?.href, scopes, expiresAt: Date.now() + accessSeconds * 1000 };
    accessTokens.set(access, data);
    if (refreshable) refreshTokens.set(refresh, { ...data, expiresAt: Number.POSITIVE_INFINITY });
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: accessSeconds,
      ...(refreshable ? { refresh_token: refresh } : {}),
      scope: scopes.join(' '),
    };
  };

  const documents = options.clientMetadataDocuments;
  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: async (id) => {
      const document = documents?.[id];
      // A metadata document names its own URL as its client id, or it is not that client's.
      if (document) return document.client_id === id ? (document as OAuthClientInformationFull) : undefined;
      return clients.get(id);
    },
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
      authorizeScopes.push(params.scopes?.join(' '));
      const code = randomUUID();
      codes.set(code, { client, params });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      const iss = options.issuerInRedirect?.send;
      if (iss !== undefined && iss !== 'none') target.searchParams.set('iss', iss === 'own' ? issuer.href : iss);
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
  const issuer = new URL(origin);
  const scopesSupported = ['mcp:tools'];

  if (options.protectedResourceMetadata) {
    const metadata = options.protectedResourceMetadata(mcpUrl.href);
    app.get('/.well-known/oauth-protected-resource/mcp', (_request, response) => void response.json(metadata));
  }
  if (secretClient || options.issuerInRedirect || documents) {
    // The SDK's metadata lists `client_secret_post` and `none` only, no `iss` promise and no URL-based client ids.
    const metadata = {
      ...createOAuthMetadata({ provider, issuerUrl: issuer, scopesSupported }),
      ...(secretClient
        ? {
            token_endpoint_auth_methods_supported: [secretClient.authMethod],
            grant_types_supported: [
              'authorization_code',
              'refresh_token',
              'client_credentials',
              ...(options.jwtBearer ? [JWT_BEARER] : []),
            ],
          }
        : {}),
      ...(options.issuerInRedirect ? { authorization_response_iss_parameter_supported: true } : {}),
      ...(documents ? { client_id_metadata_document_supported: true } : {}),
    };
    app.get('/.well-known/oauth-authorization-server', (_request, response) => void response.json(metadata));
  }
  // Client authentication the SDK's token handler lacks: `client_secret_basic` is turned into the body fields it
  // reads, after checking the client uses the method it registered; the client-credentials grant is answered here.
  app.post('/token', express.urlencoded({ extended: false }), (request, response, next) => {
    const body = request.body as Record<string, string | undefined>;
    const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    let method = 'none';
    if (basic) {
      const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent);
      body.client_id = id;
      body.client_secret = secret;
      method = 'client_secret_basic';
    } else if (body.client_secret !== undefined) method = 'client_secret_post';
    tokenAuthMethods.push(method);
    const client = body.client_id === undefined ? undefined : clients.get(body.client_id);
    const fail = (error: string, description: string, status = 400): void =>
      void response.status(status).json({ error, error_description: description });
    const expected = client?.token_endpoint_auth_method;
    if (client?.client_secret !== undefined && expected !== method)
      return fail('invalid_client', `this client authenticates with ${expected}, not ${method}`, 401);
    if (body.grant_type === JWT_BEARER && options.jwtBearer) {
      if (!client || client.client_secret === undefined || client.client_secret !== body.client_secret)
        return fail('invalid_client', 'unknown client or wrong secret', 401);
      void options.jwtBearer.idp.verifyIdJag(body.assertion ?? '', issuer.href).then(
        (jag) => {
          if (jag.client_id !== client.client_id) return fail('invalid_grant', 'the ID-JAG names another client');
          if (jag.resource !== mcpUrl.href) return fail('invalid_grant', `the ID-JAG is for ${String(jag.resource)}`);
          counts.jwtBearer++;
          const scopes = body.scope?.split(' ').filter(Boolean) ?? [];
          response.setHeader('Cache-Control', 'no-store');
          response.json(issue(client.client_id, mcpUrl, scopes, { refreshable: false }));
        },
        (error: unknown) => fail('invalid_grant', `not a valid ID-JAG: ${(error as Error).message}`),
      );
      return;
    }
    if (body.grant_type !== 'client_credentials') return next();
    if (!client || client.client_secret === undefined || client.client_secret !== body.client_secret)
      return fail('invalid_client', 'unknown client or wrong secret', 401);
    if (!client.grant_types?.includes('client_credentials'))
      return fail('unauthorized_client', 'this client may not use the client-credentials grant');
    counts.clientCredentials++;
    const resource = body.resource ? new URL(body.resource) : undefined;
    const scopes = body.scope?.split(' ').filter(Boolean) ?? [];
    response.setHeader('Cache-Control', 'no-store');
    response.json(issue(client.client_id, resource, scopes, { refreshable: false }));
  });
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: issuer,
      resourceServerUrl: mcpUrl,
      scopesSupported,
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
  // A step-up: `publish` needs one more scope, checked by the SDK's own bearer middleware (403 insufficient_scope).
  const stepUp = options.stepUpScope
    ? requireBearerAuth({
        verifier: provider,
        requiredScopes: [options.stepUpScope],
        resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
        expectedResource: mcpUrl,
      })
    : undefined;
  app.all('/mcp', express.json(), (request, response, next) => {
    const body = request.body as { method?: string; params?: { name?: string } } | undefined;
    if (stepUp && body?.method === 'tools/call' && body.params?.name === 'publish') stepUp(request, response, next);
    else next();
  });
  const modern = options.protocol
    ? toNodeHandler(createMcpHandler(() => newModernServer(counts), { legacy: 'reject' }))
    : undefined;
  app.all('/mcp', async (request, response) => {
    if (modern) {
      await modern(request, response, request.body);
      return;
    }
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      await newMcpServer(counts, options.stepUpScope).connect(created);
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
    tokenAuthMethods,
    authorizeScopes,
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
