/** A real MCP host over throw-away settings, for the MCP benchmarks. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { McpServerInput } from '../../src/shared/mcp';
import { createEventHub, type EventHub } from '../../src/main/event-hub';
import { createMcpHost, type McpHost } from '../../src/main/mcp/mcp-host';
import type { CallDoor } from '../../src/main/mcp/call-door';
import { compilePolicy } from '../../src/main/approval/policy/compiled-policy';
import { denyCheck } from '../../src/main/approval/policy/decision-pipeline';
import { ApprovalPolicySchema } from '../../src/shared/approval';
import { createMcpServerConfigService } from '../../src/main/mcp/server-config-service';
import { openFileSecretStore } from '../../src/main/settings/secret-store';
import { openSettingsStore } from '../../src/main/settings/settings-store';
import { ROOT } from '../lib/project.ts';

export const FIXTURE_SERVER = path.join(ROOT, 'src/main/mcp/test-fixtures/misbehaving-server.ts');

export interface BenchHost {
  host: McpHost;
  events: EventHub;
  dataDir: string;
  /** Starts the host and resolves once every server is ready with its tools listed. */
  startAndWait(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * A host with these servers (no default "Files"), contained like the app's unless `contained` is false. `dataDir` may be shared between hosts so that
 * Node's compile cache, like a real install's, is warm after the first start.
 */
export function benchHost(
  servers: Record<string, McpServerInput>,
  sharedDataDir?: string,
  { contained = true }: { contained?: boolean } = {},
): BenchHost {
  const dataDir = sharedDataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-bench-mcp-'));
  const home = fs.mkdtempSync(path.join(dataDir, 'host-'));
  const settings = openSettingsStore(path.join(home, 'settings.json'));
  const secrets = openFileSecretStore(path.join(home, 'secrets.json'));
  const config = createMcpServerConfigService({ settings, secrets, dataDir: home });
  config.remove('Files');
  for (const [name, server] of Object.entries(servers)) config.add(name, server);
  const events = createEventHub((error) => console.error(error));
  // The app's door checks the deny rules before every call (src/main/approval/call-door-check.ts): the same work here.
  const policy = compilePolicy(ApprovalPolicySchema.parse({}), null, []);
  const door: CallDoor = (call) => {
    if (denyCheck(call, policy)) throw new Error('denied');
  };
  // Contained as the app runs them (docs/user/sandbox.md), unless a benchmark measures the unconfined start.
  const host = createMcpHost({
    config,
    events,
    dataDir,
    options: { clientVersion: 'bench', ...(contained ? {} : { sandbox: false as const }) },
    door,
  });
  const names = Object.keys(servers);
  const allReady = (): boolean =>
    names.every((name) => {
      const status = host.server(name).status;
      if (status.state === 'error') throw new Error(`${name} failed: ${status.message}`);
      return status.state === 'ready' && status.toolCount > 0;
    });
  return {
    host,
    events,
    dataDir,
    startAndWait: () =>
      new Promise((resolve, reject) => {
        const unsubscribe = events.subscribe(() => {
          try {
            if (!allReady()) return;
          } catch (error) {
            unsubscribe();
            reject(error as Error);
            return;
          }
          unsubscribe();
          resolve();
        });
        host.start();
      }),
    dispose: async () => {
      await host.stop();
      fs.rmSync(sharedDataDir ? home : dataDir, { recursive: true, force: true });
    },
  };
}

export { median } from './harness.ts';
