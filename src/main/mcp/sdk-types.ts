import type * as SdkTypes from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP SDK's runtime values (its zod schemas of the protocol, `McpError`, `ErrorCode`). They load with the first
 * server start (the supervisor awaits `loadSdkTypes` before it connects), not with the services: evaluating them
 * costs every command and launch ~16 ms (cli-start-run in docs/dev/benchmarks.md), and nothing needs them before a
 * server runs — a tool list, a call's error, a server's request all come from a running server.
 */
let loaded: typeof SdkTypes | undefined;

export async function loadSdkTypes(): Promise<typeof SdkTypes> {
  return (loaded ??= await import('@modelcontextprotocol/sdk/types.js'));
}

/** The SDK's runtime values; only code that a running server reached may ask (it throws before the first start). */
export function sdkTypes(): typeof SdkTypes {
  if (!loaded) throw new Error('The MCP SDK was used before any MCP server started.');
  return loaded;
}
