import type { ServerIdentity } from '../../../shared/server-identity';
import { serverIdentity } from '../server-identity';
import type { ServerSettings } from '../server-settings';
import type { ContainedServer } from './profile';

/**
 * Whether the person's allowance to run a server unconfined applies to it as it is now (docs/user/sandbox.md#unconfined):
 * only under the name and for the identity (what it runs) it was given for. `stale` says why an allowance that is
 * there does not apply.
 */
export type UnconfinedState = { kind: 'none' } | { kind: 'allowed'; since: string } | { kind: 'stale'; why: string };

/** The identity of a stdio server as it starts (the same key as its settings' identity). */
export function launchIdentity(server: Pick<ContainedServer, 'command' | 'package' | 'args' | 'cwd'>): ServerIdentity {
  return serverIdentity({
    ...(server.command !== undefined ? { command: server.command } : {}),
    ...(server.package !== undefined ? { package: server.package } : {}),
    args: [...server.args],
    ...(server.cwd ? { cwd: server.cwd } : {}),
  } as ServerSettings);
}

export function unconfinedState(server: ContainedServer): UnconfinedState {
  const allowance = server.sandbox.unconfined;
  if (!allowance) {
    return server.sandbox.allowUnconfined
      ? {
          kind: 'stale',
          why: 'settings.json says "allowUnconfined", which names no server: allow it in Settings › MCP servers › Sandbox or with `workbench servers sandbox NAME --allow-unconfined`, which bind it to what the server runs.',
        }
      : { kind: 'none' };
  }
  if (allowance.name !== server.name)
    return {
      kind: 'stale',
      why: `it was given to the server named "${allowance.name}"; renamed, the server is contained until you allow it again.`,
    };
  if (allowance.identity !== launchIdentity(server).key)
    return {
      kind: 'stale',
      why: `it was given when the server ran ${allowance.description}; it now runs something else, so it is contained until you allow it again.`,
    };
  return { kind: 'allowed', since: allowance.since };
}
