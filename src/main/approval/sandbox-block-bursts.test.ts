/**
 * The same block repeated in a burst is one audit row with its count (docs/user/sandbox.md#blocks): a server retrying
 * a path in a loop, or writing a flood of reports, leaves one row per distinct block and burst in the real audit log,
 * not one per report; a flood of distinct paths is capped into one row that counts the rest.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openTempAuditLog, type TempAuditLog } from '../audit/audit-test-support';
import { createTestHost, disposeTestHosts, fixtureServer } from '../mcp/test-fixtures/harness';
import { createBlockBursts, type BlockBurst } from './sandbox-block-bursts';
import { createSandboxProfileService } from './sandbox-profiles';

const logs: TempAuditLog[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await disposeTestHosts();
  for (const log of logs.splice(0)) log.close();
});

const read = (target: string) => ({ kind: 'read' as const, target });

describe('bursts of the same block', () => {
  it('count repeats of one block, keep distinct blocks and calls apart, and close after a quiet spell', () => {
    vi.useFakeTimers();
    const closed: BlockBurst[] = [];
    const bursts = createBlockBursts(
      { burst: (burst) => closed.push(burst), overflow: () => undefined },
      { quietMs: 1000, maxMs: 10_000 },
    );
    for (let index = 0; index < 500; index += 1) bursts.add('Files', read('/home/me/.ssh/id_rsa'), undefined);
    bursts.add('Files', read('/home/me/.aws/credentials'), undefined);
    bursts.add('Files', read('/home/me/.ssh/id_rsa'), { toolName: 'read_file', chatId: 'c1' });
    bursts.add('Other', read('/home/me/.ssh/id_rsa'), undefined);
    expect(closed).toEqual([]);
    vi.advanceTimersByTime(999);
    expect(closed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(
      closed.map((burst) => [burst.serverName, burst.block.target, burst.call?.toolName ?? '-', burst.count]),
    ).toEqual([
      ['Files', '/home/me/.ssh/id_rsa', '-', 500],
      ['Files', '/home/me/.aws/credentials', '-', 1],
      ['Files', '/home/me/.ssh/id_rsa', 'read_file', 1],
      ['Other', '/home/me/.ssh/id_rsa', '-', 1],
    ]);
    // After the quiet spell the same block starts a new burst.
    bursts.add('Files', read('/home/me/.ssh/id_rsa'), undefined);
    bursts.flush();
    expect(closed.at(-1)).toMatchObject({ block: read('/home/me/.ssh/id_rsa'), count: 1 });
  });

  it('a steady stream still leaves a row every maxMs, and a flood of distinct paths is counted past the cap', () => {
    vi.useFakeTimers();
    const closed: BlockBurst[] = [];
    const overflow: number[] = [];
    const bursts = createBlockBursts(
      { burst: (burst) => closed.push(burst), overflow: (_, count) => overflow.push(count) },
      { quietMs: 1000, maxMs: 5000, maxOpen: 3 },
    );
    for (let tick = 0; tick < 12; tick += 1) {
      bursts.add('Files', read('/etc/shadow'), undefined);
      vi.advanceTimersByTime(500);
    }
    expect(closed.map((burst) => burst.count)).toEqual([11]);
    for (let index = 0; index < 1000; index += 1) bursts.add('Files', read(`/home/me/file-${index}`), undefined);
    bursts.flush();
    expect(closed).toHaveLength(1 + 1 + 2); // the stream's second burst, then the first two distinct paths (3 open)
    expect(overflow).toEqual([998]);
  });
});

describe('blocks in the audit log', () => {
  it('a burst of 300 reports of one path is one row with its count; the app closing records what is open', () => {
    const audit = openTempAuditLog();
    logs.push(audit);
    const test = createTestHost({ tool: fixtureServer() }, { start: false });
    const profiles = createSandboxProfileService({
      config: test.config,
      audit: audit.log,
      limits: undefined,
      dataDir: test.dir,
      actor: 'user',
    });
    for (let index = 0; index < 300; index += 1)
      profiles.recordBlock('tool', read('/home/me/.ssh/id_rsa'), { toolName: 'read_file', chatId: 'chat-1' });
    profiles.recordBlock('tool', { kind: 'connect', target: 'evil.test:443' }, undefined);
    expect(audit.log.query({ decision: 'auto_deny' }).entries).toEqual([]);
    profiles.flushBlocks();
    const rows = audit.log.query({ decision: 'auto_deny' }).entries;
    expect(rows).toHaveLength(2);
    const burst = rows.find((row) => row.toolName === 'sandbox/read');
    expect(burst).toMatchObject({
      serverName: 'tool',
      chatId: 'chat-1',
      decidedBy: 'sandbox',
      args: { target: '/home/me/.ssh/id_rsa', call: 'read_file', count: 300 },
    });
    expect(burst?.reason).toMatch(
      /^tool tried to read \/home\/me\/\.ssh\/id_rsa during read_file: not in its sandbox profile \(300 times in /,
    );
    const single = rows.find((row) => row.toolName === 'sandbox/connect');
    expect(single?.reason).toBe('tool tried to connect to evil.test:443: not in its sandbox profile');
    expect(single?.args).toEqual({ target: 'evil.test:443' });
  });
});
