import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/**
 * A live MCP session as the host uses it, whichever protocol revision the server speaks (docs/dev/protocol-2026.md):
 * a 2025-11-25 server through the 1.x SDK's `Client`, which has this shape itself, a 2026-07-28 server through the SDK
 * v2 client behind `modernSession` (modern-client.ts), which answers in the same types and errors. The rest of the
 * host does not know which.
 */
export type McpSession = Pick<
  Client,
  | 'getServerVersion'
  | 'getServerCapabilities'
  | 'setLoggingLevel'
  | 'sendRootsListChanged'
  | 'request'
  | 'listResources'
  | 'listResourceTemplates'
  | 'readResource'
  | 'subscribeResource'
  | 'unsubscribeResource'
  | 'listPrompts'
  | 'getPrompt'
  | 'complete'
  | 'close'
>;

/**
 * The request option of a `tools/call` that the door is asked again before each further leg: on 2026-07-28 a call
 * that needs input (`input_required`) is sent again with the answers, and that send is a new arrival at the server, so
 * it passes the door (call-door.ts) like the first one. A 2025-11-25 session never sends a call twice by itself.
 */
export interface CallLegOptions {
  /** Throws to keep the further leg from the server; the call then fails with that error. */
  admitLeg?: (() => void) | undefined;
}
