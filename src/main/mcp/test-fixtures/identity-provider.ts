/**
 * An organisation's identity provider on 127.0.0.1 for tests of cross-app access (docs/user/mcp-oauth.md#cross-app-access):
 * it issues ID tokens (OpenID Connect, signed ES256) for a person, and at its token endpoint exchanges one for an
 * ID-JAG (RFC 8693 token exchange, `requested_token_type` id-jag) for an audience (the MCP server's authorization
 * server) and a resource (the MCP server). The authorization server checks an ID-JAG with `verifyIdJag`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { SignJWT, exportJWK, generateKeyPair, jwtVerify, type JWTPayload } from 'jose';

export interface TokenExchange {
  subjectToken: string | undefined;
  subjectTokenType: string | undefined;
  requestedTokenType: string | undefined;
  audience: string | undefined;
  resource: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  scope: string | undefined;
}

export interface IdentityProviderFixture {
  issuer: string;
  /** The client AI Workbench is registered as at the identity provider. */
  clientId: string;
  clientSecret: string;
  /** An ID token for the person, for this identity provider's client; `expiresIn` in seconds (negative: expired). */
  idToken(subject?: string, expiresIn?: number): Promise<string>;
  /** Every token exchange the identity provider received, as sent. */
  readonly exchanges: TokenExchange[];
  /** Checks an ID-JAG this identity provider issued; throws when it is not one, or for another audience. */
  verifyIdJag(assertion: string, audience: string): Promise<JWTPayload>;
  close(): Promise<void>;
}

const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';

export async function startIdentityProvider({
  clientId = 'workbench-at-idp',
  clientSecret = 'idp-client-secret',
  mcpClientId,
}: {
  clientId?: string;
  clientSecret?: string;
  /** The client id at the MCP server's authorization server that an ID-JAG names (`client_id`). */
  mcpClientId: string;
}): Promise<IdentityProviderFixture> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const exchanges: TokenExchange[] = [];
  const app = express();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  app.get(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'], (_request, response) => {
    response.json({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      grant_types_supported: ['urn:ietf:params:oauth:grant-type:token-exchange'],
    });
  });
  app.get('/jwks', async (_request, response) => void response.json({ keys: [await exportJWK(publicKey)] }));
  app.post('/token', express.urlencoded({ extended: false }), async (request, response) => {
    const body = request.body as Record<string, string | undefined>;
    const exchange: TokenExchange = {
      subjectToken: body.subject_token,
      subjectTokenType: body.subject_token_type,
      requestedTokenType: body.requested_token_type,
      audience: body.audience,
      resource: body.resource,
      clientId: body.client_id,
      clientSecret: body.client_secret,
      scope: body.scope,
    };
    exchanges.push(exchange);
    const fail = (error: string, description: string, status = 400): void =>
      void response.status(status).json({ error, error_description: description });
    if (body.grant_type !== 'urn:ietf:params:oauth:grant-type:token-exchange')
      return fail('unsupported_grant_type', 'only token exchange');
    if (exchange.clientId !== clientId || exchange.clientSecret !== clientSecret)
      return fail('invalid_client', 'unknown client or wrong secret', 401);
    if (exchange.subjectTokenType !== ID_TOKEN || exchange.requestedTokenType !== ID_JAG)
      return fail('invalid_request', 'an ID token for an ID-JAG only');
    if (!exchange.audience || !exchange.resource || !exchange.subjectToken)
      return fail('invalid_request', 'audience, resource and subject_token are required');
    let subject: string;
    try {
      const { payload } = await jwtVerify(exchange.subjectToken, publicKey, { issuer, audience: clientId });
      subject = payload.sub as string;
    } catch (error) {
      return fail('invalid_grant', `the ID token is not valid: ${(error as Error).message}`);
    }
    const jag = await new SignJWT({
      resource: exchange.resource,
      client_id: mcpClientId,
      ...(exchange.scope ? { scope: exchange.scope } : {}),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt' })
      .setIssuer(issuer)
      .setSubject(subject)
      .setAudience(exchange.audience)
      .setIssuedAt()
      .setExpirationTime('5m')
      .setJti(crypto.randomUUID())
      .sign(privateKey);
    response.json({ access_token: jag, issued_token_type: ID_JAG, token_type: 'N_A', expires_in: 300 });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    exchanges,
    idToken: (subject = 'person@example.com', expiresIn = 3600) =>
      new SignJWT({ email: subject })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(issuer)
        .setSubject(subject)
        .setAudience(clientId)
        .setIssuedAt()
        .setExpirationTime(Math.floor(Date.now() / 1000) + expiresIn)
        .sign(privateKey),
    async verifyIdJag(assertion, audience) {
      const { payload, protectedHeader } = await jwtVerify(assertion, publicKey, {
        issuer,
        audience: [audience, audience.replace(/\/$/, ''), `${audience.replace(/\/$/, '')}/`],
      });
      if (protectedHeader.typ !== 'oauth-id-jag+jwt') throw new Error(`not an ID-JAG (typ ${protectedHeader.typ})`);
      return payload;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
