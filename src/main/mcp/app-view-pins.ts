import type { McpAppCsp, McpAppView } from '../../shared/mcp-apps';
import { formatByteSize } from '../../shared/byte-size';
import type { AuditRecorder, PolicyChangeActor } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import type { Database } from '../storage/database';
import type { AppViewCache } from './app-view-cache';
import type { McpHost } from './mcp-host';

/**
 * Views pinned by their hash per server identity (docs/user/mcp-apps.md#pinned-views): the first view a server's tool
 * shows is pinned as it is shown; a view whose hash differs from its pin is not shown until the person accepts it,
 * with what changed (its size, its declared domains and permissions). A pin belongs to what the server runs, not to
 * its name: another server under the same name has no pin, and never inherits one.
 */
export interface AppViewPins {
  /** The view with its pin; pins it when it is the first of that identity and URI. */
  check(identity: string, view: McpAppView): McpAppView;
  /** Pins this view for the identity (the person accepted it); returns what it replaced, if anything. */
  accept(identity: string, view: McpAppView): { hash: string } | undefined;
}

interface PinRow {
  hash: string;
  bytes: number;
  csp: string;
}

const CSP_NAMES: readonly (keyof McpAppCsp)[] = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'];

/** What differs between the pinned view and this one, in words. */
export function viewChanges(pinned: { bytes: number; csp: McpAppCsp }, view: McpAppView): string[] {
  const changes: string[] = [];
  const bytes = Buffer.byteLength(view.html);
  changes.push(
    bytes === pinned.bytes
      ? `its HTML changed (${formatByteSize(bytes)}, the same size)`
      : `its HTML changed: ${formatByteSize(pinned.bytes)} → ${formatByteSize(bytes)}`,
  );
  for (const name of CSP_NAMES) {
    const before = pinned.csp[name] ?? [];
    const after = view.csp[name];
    const added = after.filter((origin) => !before.includes(origin));
    const removed = before.filter((origin) => !after.includes(origin));
    if (added.length > 0) changes.push(`${name} added: ${added.join(', ')}`);
    if (removed.length > 0) changes.push(`${name} removed: ${removed.join(', ')}`);
  }
  return changes;
}

export function createAppViewPins(db: Database, now: () => number = Date.now): AppViewPins {
  const get = db.prepare<[string, string], PinRow>(
    'SELECT hash, bytes, csp FROM app_view_pins WHERE identity = ? AND uri = ?',
  );
  const put = db.prepare<[string, string, string, number, string, number]>(
    `INSERT INTO app_view_pins (identity, uri, hash, bytes, csp, pinned_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (identity, uri) DO UPDATE SET hash = excluded.hash, bytes = excluded.bytes, csp = excluded.csp,
       pinned_at = excluded.pinned_at`,
  );
  const pin = (identity: string, view: McpAppView): void =>
    void put.run(identity, view.uri, view.hash, Buffer.byteLength(view.html), JSON.stringify(view.csp), now());
  return {
    check(identity, view) {
      const pinned = get.get(identity, view.uri);
      if (!pinned) {
        pin(identity, view);
        return { ...view, pin: { status: 'first' } };
      }
      if (pinned.hash === view.hash) return { ...view, pin: { status: 'same' } };
      const csp = JSON.parse(pinned.csp) as McpAppCsp;
      // Without its HTML: nothing of a changed view can be shown before the person accepts it.
      return {
        ...view,
        html: '',
        pin: { status: 'changed', changes: viewChanges({ bytes: pinned.bytes, csp }, view) },
      };
    },
    accept(identity, view) {
      const pinned = get.get(identity, view.uri);
      pin(identity, view);
      return pinned ? { hash: pinned.hash } : undefined;
    },
  };
}

/** A tool's view as the page asks for it: read from its server, checked against its pin. */
export interface AppViews {
  show(serverName: string, toolName: string): Promise<McpAppView>;
  /** The person accepts the changed view they were shown (by its hash): pinned, recorded as a policy row, returned. */
  accept(serverName: string, toolName: string, hash: string): Promise<McpAppView>;
}

export function createAppViews(dependencies: {
  mcp: Pick<McpHost, 'appView' | 'tools'>;
  /** The views read, per server identity and URI (app-view-cache.ts); without it every showing reads its server. */
  cache?: AppViewCache;
  pins: AppViewPins;
  /** What the server runs now (its identity key). */
  identityOf(serverName: string): string;
  audit: AuditRecorder;
  actor: PolicyChangeActor;
}): AppViews {
  const { mcp, pins, identityOf, audit, cache } = dependencies;
  const read = (serverName: string, toolName: string, identity: string): Promise<McpAppView> =>
    cache
      ? cache.read(
          {
            serverName,
            identity,
            uri: mcp.tools(serverName).find((tool) => tool.name === toolName)?.ui?.resourceUri,
          },
          () => mcp.appView(serverName, toolName),
        )
      : mcp.appView(serverName, toolName);
  return {
    async show(serverName, toolName) {
      const identity = identityOf(serverName);
      // The pin is checked on every showing, cached or not: a changed view is held back all the same.
      return { ...pins.check(identity, await read(serverName, toolName, identity)), identity };
    },
    async accept(serverName, toolName, hash) {
      const view = await mcp.appView(serverName, toolName);
      if (view.hash !== hash)
        throw new WorkbenchError(
          'conflict',
          'The view changed again since it was shown to you; look at it again before you accept it.',
          { server: serverName },
        );
      const identity = identityOf(serverName);
      cache?.drop(serverName, view.uri);
      const before = pins.check(identity, view);
      if (before.pin?.status === 'changed') {
        audit.recordPolicyChange({
          actor: dependencies.actor,
          summary: `Accepted the changed view ${view.uri} of ${serverName}: ${(before.pin.changes ?? []).join('; ')}`,
          serverName,
          before: { view: { uri: view.uri } },
          after: { view: { uri: view.uri, hash: view.hash } },
        });
        pins.accept(identity, view);
      }
      return { ...view, pin: { status: 'same' }, identity };
    },
  };
}
