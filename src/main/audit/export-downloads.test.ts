import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_EXPORT_READ_CHUNK_BYTES } from '../../shared/audit';
import { decisionRecord, openTempAuditLog, type TempAuditLog } from './audit-test-support';
import { createAuditExportDownloads, type AuditExportDownloads } from './export-downloads';

let temp: TempAuditLog;
let tempRoot: string;
let downloads: AuditExportDownloads;
const clock = { now: 0 };

beforeEach(() => {
  temp = openTempAuditLog('aiwb-downloads-');
  tempRoot = path.join(temp.dir, 'tmp');
  fs.mkdirSync(tempRoot);
  clock.now = Date.UTC(2026, 0, 1);
  downloads = createAuditExportDownloads({ audit: temp.log, tempRoot, now: () => clock.now, ttlMs: 60_000 });
});

afterEach(async () => {
  await downloads.dispose();
  temp.close();
});

async function readAll(exportId: string): Promise<{ bytes: Buffer; chunks: number }> {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const chunk = await downloads.read(exportId, offset);
    parts.push(Buffer.from(chunk.base64, 'base64'));
    offset = chunk.nextOffset;
    if (chunk.done) return { bytes: Buffer.concat(parts), chunks: parts.length };
  }
}

// 1,200 sealed rows and a 2 MB export: allowed two minutes, as a busy machine takes more than the default half minute.
describe('audit export downloads', { timeout: 120_000 }, () => {
  it('reads a large export back in chunks, byte for byte, and removes its file after the last chunk', async () => {
    const big = 'x'.repeat(1500);
    for (let index = 0; index < 1200; index++)
      temp.log.recordDecision(decisionRecord(index, { reason: `${big} ü ${index}` }));
    const prepared = await downloads.prepare('jsonl');
    expect(prepared.bytes).toBeGreaterThan(AUDIT_EXPORT_READ_CHUNK_BYTES);
    expect(fs.readdirSync(tempRoot)).toHaveLength(1);
    const { bytes, chunks } = await readAll(prepared.exportId);
    expect(chunks).toBeGreaterThan(1);
    expect(bytes.length).toBe(prepared.bytes);
    const lines = bytes.toString('utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(1201);
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ sequence: 1200 });
    expect(fs.readdirSync(tempRoot)).toEqual([]);
    await expect(downloads.read(prepared.exportId, 0)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses an offset past the end, and forgets an export nobody read once it expires', async () => {
    temp.log.recordDecision(decisionRecord(1));
    const prepared = await downloads.prepare('csv');
    await expect(downloads.read(prepared.exportId, prepared.bytes + 1)).rejects.toMatchObject({
      code: 'invalid_input',
    });
    clock.now += 60_000;
    await expect(downloads.read(prepared.exportId, 0)).rejects.toMatchObject({ code: 'not_found' });
    expect(fs.readdirSync(tempRoot)).toEqual([]);
  });

  it('removes every prepared file on dispose', async () => {
    temp.log.recordDecision(decisionRecord(1));
    await downloads.prepare('csv');
    await downloads.prepare('jsonl');
    expect(fs.readdirSync(tempRoot)).toHaveLength(2);
    await downloads.dispose();
    expect(fs.readdirSync(tempRoot)).toEqual([]);
  });
});
