// Calls made under a server's name before the server that has it now (docs/user/insights.md#tools-asked-about-most):
// a real SQLite log and settings file, written by the real services at three times, then opened again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import type { AuditStats } from '../../../shared/audit-stats';
import { serverLabel } from '../../../shared/server-label';
import { decisionRecord } from '../../audit/audit-test-support';
import { SETTINGS_FILE_NAME } from '../../settings/settings-store';
import { createServices, type Services } from '../../services';

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const T1 = Date.parse('2026-11-22T12:00:00.000Z');
const T2 = Date.parse('2026-11-24T15:00:00.000Z');
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'workbench-eras-'));
let services: Services | undefined;

afterEach(() => {
  services?.close();
  services = undefined;
  vi.useRealTimers();
  fs.rmSync(home, { recursive: true, force: true });
});

const open = (): Services =>
  (services = createServices({ dataDir: home, host: 'cli', version: '0.0.0-test', managedPolicyFile: null }));
let calls = 0;
const allowOnce = (serverName: string, toolName: string): void => {
  calls += 1;
  open().audit.recordDecision(
    decisionRecord(0, { serverName, toolName, toolCallId: `call-${calls}`, decision: 'allow_once', actor: 'user' }),
  );
};
const period = { from: '2026-11-17T00:00:00.000Z', to: '2026-11-25T00:00:00.000Z' };
const byTool = (stats: AuditStats): Record<string, number> =>
  Object.fromEntries(stats.tools.map((tool) => [`${serverLabel(tool)}.${tool.toolName}`, tool.allowedByYou]));

it('counts the calls of a name from before its server was added apart: none dropped, none the new server’s', () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  // Before servers recorded what they run: two entries without an identity, written into settings.json.
  fs.writeFileSync(
    path.join(home, SETTINGS_FILE_NAME),
    JSON.stringify({
      mcpServers: {
        Files: { type: 'http', url: 'http://127.0.0.1:9/old' },
        Legacy: { type: 'http', url: 'http://127.0.0.1:9/legacy' },
      },
    }),
  );
  vi.setSystemTime(T0);
  open();
  for (let index = 0; index < 3; index++) allowOnce('Files', 'read');
  for (let index = 0; index < 2; index++) allowOnce('Legacy', 'ping');
  services?.close();

  // Another server is added under the name Files; one call was decided in the very millisecond before.
  vi.setSystemTime(T1);
  allowOnce('Files', 'read');
  services?.mcpServers.remove('Files');
  services?.mcpServers.add('Files', { type: 'http', url: 'http://127.0.0.1:9/new' });
  expect(services?.mcpServers.facts().get('Files')?.identitySince).toBe(new Date(T1).toISOString());
  services?.close();

  vi.setSystemTime(T2);
  for (let index = 0; index < 2; index++) allowOnce('Files', 'read');
  allowOnce('Legacy', 'ping');
  services?.close();

  // Opened again from the files: every call counted once, the earlier server's under its own label.
  const stats = open().auditInsights.stats(period);
  expect(stats.totals.total).toBe(9);
  expect(stats.totals.allowedByYou).toBe(9);
  expect(stats.timeline.reduce((sum, bucket) => sum + bucket.total, 0)).toBe(9);
  expect(byTool(stats)).toEqual({
    'Files (before 2026-11-22 12:00 UTC).read': 4,
    'Files.read': 2,
    // An entry without a recorded identity has every call of its name.
    'Legacy.ping': 3,
  });
  expect(stats.servers.map((server) => [serverLabel(server), server.total])).toEqual(
    expect.arrayContaining([
      ['Files (before 2026-11-22 12:00 UTC)', 4],
      ['Files', 2],
      ['Legacy', 3],
    ]),
  );
  expect(stats.tools.find((tool) => tool.until !== undefined)?.until).toBe(new Date(T1).toISOString());
  // Filtered to the server by name, both are there, apart.
  expect(byTool(services?.auditInsights.stats({ ...period, serverName: 'Files' }) as AuditStats)).toEqual({
    'Files (before 2026-11-22 12:00 UTC).read': 4,
    'Files.read': 2,
  });
});
