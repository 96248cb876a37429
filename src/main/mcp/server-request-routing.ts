import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';

/** Where a server's request came from: the server, and the chat whose tool call it was running (null when none, or several). */
export interface ServerRequestOrigin {
  readonly serverName: string;
  readonly chatId: string | null;
  /** Aborts when the server cancels its request or the session ends. */
  readonly signal: AbortSignal;
}

/**
 * What answers a server's requests of the model and the person (docs/user/server-requests.md). The MCP host only
 * carries them; the exchange coordinator decides them like tool calls. Each method resolves with the answer to send
 * back, or rejects with an `McpError` that goes back to the server as the JSON-RPC error.
 */
export interface ServerRequestHandler {
  sample(origin: ServerRequestOrigin, params: CreateMessageRequestParams): Promise<CreateMessageResult>;
  elicit(origin: ServerRequestOrigin, params: ElicitRequestFormParams | ElicitRequestURLParams): Promise<ElicitResult>;
}

/** A server's requests bound to its name; the origin's chat is found per request. */
export interface BoundServerRequests {
  handler: ServerRequestHandler;
  serverName: string;
  /** The chat whose tool call the server runs now, or null. */
  chatOf(): string | null;
}

/**
 * Advertises `sampling` and `elicitation` (form and URL modes) and routes the two requests to `requests`. Must run
 * before `connect`, since the capabilities are sent in initialize. Without `requests` nothing is advertised, so a
 * server cannot ask.
 */
export function registerServerRequests(client: Client, requests: BoundServerRequests | undefined): void {
  if (!requests) return;
  // applyDefaults (MCP elicitation, form defaults): the SDK fills a field an accepted form left out with its default.
  client.registerCapabilities({ sampling: {}, elicitation: { form: { applyDefaults: true }, url: {} } });
  const origin = (signal: AbortSignal): ServerRequestOrigin => ({
    serverName: requests.serverName,
    chatId: requests.chatOf(),
    signal,
  });
  client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
    requests.handler.sample(origin(extra.signal), request.params),
  );
  client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
    requests.handler.elicit(origin(extra.signal), request.params as ElicitRequestFormParams | ElicitRequestURLParams),
  );
}
