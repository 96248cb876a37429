import type * as ModernClient from './modern-client';

/**
 * The v2 client's module (modern-client.ts: the SDK v2 and its schemas), imported when a server is first asked
 * `server/discover` and kept for the process: a later start takes it from here instead of asking the module loader
 * again (docs/dev/protocol-2026.md). A host whose servers never reach the probe never loads it.
 */
let loading: Promise<typeof ModernClient> | undefined;

export function modernClientModule(): Promise<typeof ModernClient> {
  return (loading ??= import('./modern-client'));
}
