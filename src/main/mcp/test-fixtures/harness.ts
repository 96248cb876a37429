/** Shared set-up for the MCP host's tests: a host over real settings and secret files in a temporary folder. */
import type { OrganisationIdpLookup } from '../oauth/organisation-idp';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServerInput, McpServerState, McpServerView } from '../../../shared/mcp';
import { createEventHub, type EventHub } from '../../event-hub';
import { openFileSecretStore, SECRETS_FILE_NAME, type SecretStore } from '../../settings/secret-store';
import { openSettingsStore, SETTINGS_FILE_NAME } from '../../settings/settings-store';
import { createMcpHost, type McpHost, type McpHostDependencies, type McpHostOptions } from '../mcp-host';
import { OPEN_DOOR } from '../call-door';
import { createMcpServerConfigService, type McpServerConfigService } from '../server-config-service';
import { unconfinedWhereNoSandbox } from '../../testing/skip-reason';

export const FIXTURE_SERVER = fileURLToPath(new URL('./misbehaving-server.ts', import.meta.url));
export const HOSTILE_SERVER = fileURLToPath(new URL('./hostile-server.ts', import.meta.url));

/** A stdio server running the misbehaving fixture with these environment variables. */
export function fixtureServer(env: Record<string, string> = {}, extra: Partial<McpServerInput> = {}): McpServerInput {
  return { command: process.execPath, args: [FIXTURE_SERVER], env, ...extra } as McpServerInput;
}

/** Restarts come quickly in tests; the policy itself (5 crashes in a minute) stays. */
export const FAST_RESTART = { initialDelayMs: 20, maxDelayMs: 200 };

export interface TestHost {
  dir: string;
  host: McpHost;
  config: McpServerConfigService;
  secrets: SecretStore;
  events: EventHub;
  /** Resolves when the server reaches a state that satisfies `until`; rejects after `timeoutMs` with what it saw. */
  waitFor(
    name: string,
    until: McpServerState | ((server: McpServerView) => boolean),
    timeoutMs?: number,
  ): Promise<McpServerView>;
  dispose(): Promise<void>;
}

const hosts = new Set<TestHost>();

/**
 * A host with its own temporary data folder (or `dir`, another host's, for a second launch: then `servers` is not
 * applied and the folder is left for its first host to remove). `servers` replaces the default "Files" server
 * (pass `null` to keep the fresh-install default). The host is started unless `start` is false.
 */
export function createTestHost(
  servers: Record<string, McpServerInput> | null,
  {
    start = true,
    options = {},
    openSignInPage,
    dir: existing,
    onBlock,
    oauthPolicy,
    organisationIdp,
    door,
    serverRequests,
  }: {
    start?: boolean;
    options?: Partial<McpHostOptions>;
    openSignInPage?: (url: string) => boolean;
    dir?: string;
    onBlock?: McpHostDependencies['onBlock'];
    /** The organisation's OAuth settings (docs/user/organisation-policy.md#oauth). */
    oauthPolicy?: McpHostDependencies['oauthPolicy'];
    /** The organisation's identity providers for cross-app access (docs/user/organisation-policy.md#oauth). */
    organisationIdp?: OrganisationIdpLookup;
    /** The door every call passes (call-door.ts); the open one unless given. */
    door?: McpHostDependencies['door'];
    /** Who answers the servers' sampling and elicitation requests; none unless given. */
    serverRequests?: McpHostDependencies['serverRequests'];
  } = {},
): TestHost {
  const dir = existing ?? fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-mcp-'));
  const settings = openSettingsStore(path.join(dir, SETTINGS_FILE_NAME));
  const secrets = openFileSecretStore(path.join(dir, SECRETS_FILE_NAME));
  const config = createMcpServerConfigService({
    settings,
    secrets,
    dataDir: dir,
    locations: { env: {}, platform: 'linux', homedir: dir },
    ...(organisationIdp ? { organisationIdp } : {}),
  });
  if (servers && !existing) {
    config.remove('Files');
    for (const [name, server] of Object.entries(servers)) config.add(name, server);
  }
  const events = createEventHub((error) => console.error('listener failed', error));
  const host = createMcpHost({
    config,
    events,
    dataDir: dir,
    options: {
      clientVersion: '0.0.0-test',
      restart: FAST_RESTART,
      initializeTimeoutMs: 10_000,
      stopGraceMs: 1000,
      // Lifecycle is tested on every machine: where no sandbox can run, servers start unconfined as an organisation
      // allowing it would let them (docs/user/sandbox.md#organisation). Tests of the sandbox itself use needsSandbox.
      ...unconfinedWhereNoSandbox(),
      ...options,
    },
    // As in the app: HTTP servers without their own Authorization header may sign in with OAuth.
    secrets,
    // The host alone, without a policy: every call goes in (the door's own tests: src/main/chat/call-door.test.ts).
    door: door ?? OPEN_DOOR,
    ...(serverRequests ? { serverRequests } : {}),
    ...(openSignInPage ? { openSignInPage } : {}),
    ...(onBlock ? { onBlock } : {}),
    ...(oauthPolicy ? { oauthPolicy } : {}),
  });
  const test: TestHost = {
    dir,
    host,
    config,
    secrets,
    events,
    waitFor(name, until, timeoutMs = 15_000) {
      const matches = typeof until === 'string' ? (server: McpServerView) => server.status.state === until : until;
      return new Promise((resolve, reject) => {
        const seen: string[] = [];
        const check = (): boolean => {
          const server = host.list().find((item) => item.name === name);
          if (server && matches(server)) {
            resolve(server);
            return true;
          }
          return false;
        };
        if (check()) return;
        const timer = setTimeout(() => {
          unsubscribe();
          reject(
            new Error(
              `"${name}" did not reach the expected state within ${timeoutMs} ms; it went through ${seen.join(' → ')}. Log:\n${host
                .logs(name)
                .lines.map((line) => line.text)
                .join('\n')}`,
            ),
          );
        }, timeoutMs);
        const unsubscribe = events.subscribe((event, payload) => {
          if (event !== 'mcp.onDidChangeServer' && event !== 'mcp.onDidChangeTools') return;
          const server = (payload as { server?: McpServerView }).server;
          if (server?.name === name)
            seen.push(server.status.state + (server.status.message ? ` (${server.status.message})` : ''));
          if (check()) {
            clearTimeout(timer);
            unsubscribe();
          }
        });
      });
    },
    async dispose() {
      hosts.delete(test);
      await host.stop();
      if (!existing) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  hosts.add(test);
  if (start) host.start();
  return test;
}

/** Stops every host a test left running (call from afterEach). */
export async function disposeTestHosts(): Promise<void> {
  await Promise.all([...hosts].map((test) => test.dispose()));
}

/** Waits until `condition` holds, polling; for things no event announces (a process that is gone). */
export async function eventually(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
