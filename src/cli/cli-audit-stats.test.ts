// `workbench audit stats` of the built CLI over a log the services wrote: the same figures as audit.stats, as a table or JSON.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditPage } from '../shared/audit';
import type { AuditStats } from '../shared/audit-stats';
import { decisionRecord } from '../main/audit/audit-test-support';
import { createServices } from '../main/services';
import { parseSince, sparkline, sparklineSupported } from './commands/audit-stats';
import { EXIT } from './exit-codes';
import { assertBuilt, makeHome, runCli } from './testing/cli-process';

let home: string;
let expected: AuditStats;

beforeAll(() => {
  assertBuilt();
  home = makeHome();
  const services = createServices({ dataDir: home, host: 'cli', version: '0.0.0-test', managedPolicyFile: null });
  try {
    services.approvals.policy.update({
      rules: { add: [{ id: 'unused', effect: 'deny', server: 'nowhere', tool: '*' }] },
    });
    // allow_once, allow_session, deny, timeout, cancelled, auto_allow… as audit-test-support cycles them.
    for (let index = 0; index < 16; index++) services.audit.recordDecision(decisionRecord(index));
    // Three calls an MCP App's view asked for (their ids start with `app:`), all allowed once by the person.
    for (let index = 0; index < 3; index++)
      services.audit.recordDecision(
        decisionRecord(0, { chatId: 'view-chat', toolCallId: `app:view-${index}`, serverName: 'Clock' }),
      );
    expected = services.auditInsights.stats({
      from: new Date(Date.now() - 7 * 86_400_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    });
  } finally {
    services.close();
  }
}, 60_000);

afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe('workbench audit stats', { timeout: 60_000 }, () => {
  it('prints the same totals as audit.stats, as JSON and as tables by decision, tool and rule', async () => {
    const json = await runCli(['audit', 'stats', '--since', '7d', '--json'], { home });
    expect(json.code, json.stderr).toBe(EXIT.ok);
    const stats = JSON.parse(json.stdout) as AuditStats;
    expect(stats.totals).toEqual(expected.totals);
    expect(stats.timeline.length).toBeGreaterThanOrEqual(7);

    const byDecision = await runCli(['audit', 'stats'], { home });
    expect(byDecision.code, byDecision.stderr).toBe(EXIT.ok);
    expect(byDecision.stdout).toContain(
      `Decisions since 7d: ${expected.totals.total} (${expected.totals.asked} asked, ${expected.totals.allowedByPolicy} allowed without asking)`,
    );
    expect(byDecision.stdout).toMatch(/TOTAL\s+\d+/);
    // Not a terminal: no sparkline.
    expect(byDecision.stdout).not.toMatch(/[▁▂▃▄▅▆▇█]/);

    const byTool = await runCli(['audit', 'stats', '--by', 'tool', '--since', '24h'], { home });
    expect(byTool.stdout).toMatch(/SERVER\.TOOL/);
    for (const tool of expected.tools) expect(byTool.stdout).toContain(`${tool.serverName}.${tool.toolName}`);
    const byRule = await runCli(['audit', 'stats', '--by', 'rule'], { home });
    expect(byRule.stdout).toMatch(/your rule #1: .*deny\s+0\s+never matched/);
  });

  it("counts and lists an MCP App view's calls apart from the model's", async () => {
    const apps = await runCli(['audit', 'stats', '--kind', 'app-tool-call', '--json'], { home });
    expect(apps.code, apps.stderr).toBe(EXIT.ok);
    expect((JSON.parse(apps.stdout) as AuditStats).totals).toMatchObject({ total: 3, allowedByYou: 3 });
    const model = JSON.parse(
      (await runCli(['audit', 'stats', '--kind', 'tool', '--json'], { home })).stdout,
    ) as AuditStats;
    expect(model.totals.total).toBe(expected.totals.total - 3);

    const rows = await runCli(['audit', 'query', '--requested-by', 'app', '--json'], { home });
    expect(rows.code, rows.stderr).toBe(EXIT.ok);
    const page = JSON.parse(rows.stdout) as AuditPage;
    expect(page.entries.map((entry) => entry.toolCallId).sort()).toEqual(['app:view-0', 'app:view-1', 'app:view-2']);
    const modelRows = JSON.parse(
      (await runCli(['audit', 'query', '--requested-by', 'model', '--limit', '500', '--json'], { home })).stdout,
    ) as AuditPage;
    expect(modelRows.entries).toHaveLength(16);
    expect(modelRows.entries.some((entry) => entry.toolCallId.startsWith('app:'))).toBe(false);
    const bad = await runCli(['audit', 'query', '--requested-by', 'person'], { home });
    expect(bad.code).not.toBe(EXIT.ok);
    expect(bad.stderr).toMatch(/--requested-by <who>.*Allowed choices are model, app, server/s);
  });

  it('refuses a period it cannot read, saying what it takes', async () => {
    const bad = await runCli(['audit', 'stats', '--since', 'last week'], { home });
    expect(bad.code).toBe(EXIT.error);
    expect(bad.stderr).toMatch(/--since takes days or hours like 7d or 24h/);
    expect((await runCli(['audit', 'stats', '--by', 'mood'], { home })).code).not.toBe(EXIT.ok);
  });
});

describe('the sparkline', () => {
  it('scales to the largest value and shows only where Unicode can', () => {
    expect(sparkline([0, 1, 2, 4])).toBe('▁▃▅█');
    expect(sparkline([0, 0])).toBe('▁▁');
    expect(sparklineSupported(true, { LANG: 'en_GB.UTF-8' })).toBe(true);
    expect(sparklineSupported(false, { LANG: 'en_GB.UTF-8' })).toBe(false);
    expect(sparklineSupported(true, { LANG: 'C' })).toBe(false);
    expect(sparklineSupported(true, { LANG: 'en_GB.UTF-8', TERM: 'dumb' })).toBe(false);
    expect(parseSince('24h')).toEqual({ ms: 86_400_000, hours: true });
    expect(() => parseSince('0d')).toThrow(/--since takes/);
  });
});
