import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type {
  CreateMessageRequestParams,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
} from '@modelcontextprotocol/sdk/types.js';
import { APP_NAME } from '../../shared/app-name';
import type { BoundServerRequests, ServerRequestOrigin } from './server-request-routing';

/**
 * The SDK v2 client (`@modelcontextprotocol/client`) as AI Workbench sets it up for an HTTP server that may speak the
 * 2026-07-28 revision (docs/dev/protocol-2026.md): it probes with `server/discover` and falls back to the 2025-11-25
 * handshake by itself. On 2026-07-28 a server asks for input with an `input_required` result; the SDK answers it
 * through the handlers below and retries the request, so sampling, elicitation and roots go to the same
 * `BoundServerRequests` (the exchange coordinator, under approval) as a 2025-11-25 server's requests
 * (docs/user/server-requests.md). Not yet used by the MCP host's connect.
 */
export interface ModernConnectOptions {
  clientVersion: string;
  timeoutMs: number;
  requestInit?: RequestInit | undefined;
  /** Who answers the server's sampling and elicitation requests; without it, neither is advertised. */
  serverRequests?: BoundServerRequests | undefined;
  /** The folders the server may work in, as `file://` URIs (MCP roots). */
  roots?: (() => { uri: string; name?: string }[]) | undefined;
}

export interface ModernConnection {
  client: Client;
  /** `modern`: 2026-07-28 (server/discover); `legacy`: the server answered only the 2025-11-25 handshake. */
  era: 'modern' | 'legacy';
  close(): Promise<void>;
}

export function newModernClient({ clientVersion, serverRequests, roots }: ModernConnectOptions): Client {
  const client = new Client(
    { name: APP_NAME, version: clientVersion },
    {
      versionNegotiation: { mode: 'auto' },
      capabilities: {
        ...(roots ? { roots: { listChanged: true } } : {}),
        // As registerServerRequests advertises them for a 2025-11-25 server.
        ...(serverRequests ? { sampling: {}, elicitation: { form: { applyDefaults: true }, url: {} } } : {}),
      },
    },
  );
  if (serverRequests) {
    const origin = (signal: AbortSignal): ServerRequestOrigin => ({
      serverName: serverRequests.serverName,
      chatId: serverRequests.chatOf(),
      signal,
    });
    client.setRequestHandler('sampling/createMessage', (request, ctx) =>
      serverRequests.handler.sample(origin(ctx.mcpReq.signal), request.params as CreateMessageRequestParams),
    );
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      serverRequests.handler.elicit(
        origin(ctx.mcpReq.signal),
        request.params as ElicitRequestFormParams | ElicitRequestURLParams,
      ),
    );
  }
  if (roots) client.setRequestHandler('roots/list', () => ({ roots: roots() }));
  return client;
}

/** Connects to an HTTP server, speaking 2026-07-28 where it does and 2025-11-25 where it does not. */
export async function connectModernHttp(url: string, options: ModernConnectOptions): Promise<ModernConnection> {
  const client = newModernClient(options);
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    options.requestInit ? { requestInit: options.requestInit } : {},
  );
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  return {
    client,
    era: client.getProtocolEra() === 'modern' ? 'modern' : 'legacy',
    close: () => client.close(),
  };
}
