import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  AuditExportPrepareOutput,
  AuditExportReadOutput,
  AuditPage,
  AuditProgress,
  AuditVerifyResult,
} from '../../shared/audit';
import type { Envelope, WorkbenchErrorData } from '../../shared/errors';
import { decisionRecord, resultRecord } from '../audit/audit-test-support';
import { createServices, type Services } from '../services';
import { createDispatcher, type Dispatch } from './dispatcher';
import { createHandlers } from './handlers';

let dir: string;
let dataDir: string;
let services: Services;
let dispatch: Dispatch;
let onInternalError: ReturnType<typeof vi.fn<(error: unknown, method: string) => void>>;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-audit-contract-'));
  dataDir = path.join(dir, 'data');
  services = createServices({ dataDir, host: 'browser', version: '0.0.0' });
  onInternalError = vi.fn<(error: unknown, method: string) => void>();
  dispatch = createDispatcher(createHandlers(services), onInternalError);
  for (let index = 0; index < 6; index++) {
    services.audit.recordDecision(decisionRecord(index));
    services.audit.recordToolResult(resultRecord(index));
  }
});

afterEach(() => {
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function ok(envelope: Envelope): unknown {
  if (!envelope.ok) throw new Error(`expected ok, got ${JSON.stringify(envelope.error)}`);
  return envelope.value;
}

function failed(envelope: Envelope): WorkbenchErrorData {
  if (envelope.ok) throw new Error(`expected an error, got ${JSON.stringify(envelope.value)}`);
  return envelope.error;
}

describe('audit.query over the contract', () => {
  it('answers a page of entries, filtered', async () => {
    const page = ok(await dispatch('audit.query', { kind: 'decision', limit: 4 })) as AuditPage;
    expect(page.entries.map((entry) => entry.sequence)).toEqual([11, 9, 7, 5]);
    expect(page.nextCursor).toBe('5');
    const rest = ok(await dispatch('audit.query', { kind: 'decision', cursor: page.nextCursor })) as AuditPage;
    expect(rest.entries.map((entry) => entry.sequence)).toEqual([3, 1]);
    expect((ok(await dispatch('audit.query', undefined)) as AuditPage).entries).toHaveLength(12);
  });

  it('refuses a bad decision name, a page too large and unknown filters with invalid_input naming the field', async () => {
    const decision = failed(await dispatch('audit.query', { decision: 'allow_forever' }));
    expect(decision.code).toBe('invalid_input');
    expect(decision.message).toMatch(/^Invalid input for audit\.query: decision: /);
    expect(decision.message).toContain('must be one of allow_session, allow_once, deny');
    expect(failed(await dispatch('audit.query', { decision: ['deny', 'nope'] })).message).toMatch(
      /decision: must be one of/,
    );
    expect(failed(await dispatch('audit.query', { limit: 501 })).message).toMatch(/limit: /);
    expect(failed(await dispatch('audit.query', { where: '1=1' })).code).toBe('invalid_input');
    expect(onInternalError).not.toHaveBeenCalled();
  });
});

describe("audit.export over the contract: only into the data folder's exports/", () => {
  const exports = (): string => path.join(dataDir, 'exports');

  it('exports by file name into exports/ (owner-only) and pushes progress events', async () => {
    const seen: AuditProgress[] = [];
    services.events.subscribe((event, payload) => {
      if (event === 'audit.onDidProgress') seen.push(payload as AuditProgress);
    });
    const file = path.join(exports(), 'audit.jsonl');
    const result = ok(await dispatch('audit.export', { format: 'jsonl', fileName: 'audit.jsonl' }));
    expect(result).toMatchObject({ path: file, format: 'jsonl', rowCount: 12, head: { sequence: 12 } });
    expect(fs.readFileSync(file, 'utf8').split('\n')).toHaveLength(14);
    expect(seen.at(-1)).toEqual({ operation: 'export', done: 12, total: 12 });
    if (process.platform !== 'win32') expect(fs.statSync(exports()).mode & 0o777).toBe(0o700);
    // A path inside the folder is the same; no name at all gets one with the time.
    expect(
      ok(await dispatch('audit.export', { format: 'csv', path: path.join(exports(), 'by-path.csv') })),
    ).toMatchObject({ path: path.join(exports(), 'by-path.csv') });
    expect(ok(await dispatch('audit.export', { format: 'csv' }))).toMatchObject({
      path: expect.stringMatching(/exports[\\/]ai-workbench-audit-[\d-]+\.csv$/),
    });
  });

  it('refuses any path outside exports/, even with overwrite, and writes nothing there', async () => {
    const outside = path.join(dir, 'audit.jsonl');
    const victim = path.join(dir, 'notes.jsonl');
    fs.writeFileSync(victim, 'keep me');
    for (const target of [
      outside,
      victim,
      path.join(dataDir, 'a.jsonl'),
      path.join(exports(), 'sub', 'a.jsonl'),
      path.join(exports(), '..', 'a.jsonl'),
    ]) {
      const error = failed(await dispatch('audit.export', { format: 'jsonl', path: target, overwrite: true }));
      expect(error).toMatchObject({
        code: 'invalid_input',
        message: expect.stringContaining('audit.export writes only into'),
      });
      expect(error.message).toContain('workbench audit export --out');
    }
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.readFileSync(victim, 'utf8')).toBe('keep me');
    expect(failed(await dispatch('audit.export', { format: 'csv', path: 'audit.csv' })).message).toMatch(
      /writes only into/,
    );
    expect(onInternalError).not.toHaveBeenCalled();
  });

  it('refuses names that are paths, a wrong format, and an existing file without overwrite', async () => {
    for (const fileName of ['../a.jsonl', 'sub/a.jsonl', '..', '.hidden.jsonl', '/tmp/a.jsonl']) {
      expect(failed(await dispatch('audit.export', { format: 'jsonl', fileName })).code).toBe('invalid_input');
    }
    expect(failed(await dispatch('audit.export', { format: 'jsonl', fileName: 'a.csv' })).message).toMatch(
      /must end in \.jsonl/,
    );
    expect(failed(await dispatch('audit.export', { format: 'xml', fileName: 'a.xml' })).message).toMatch(/format: /);
    expect(
      failed(await dispatch('audit.export', { format: 'csv', fileName: 'a.csv', path: path.join(exports(), 'a.csv') }))
        .message,
    ).toMatch(/not both/);
    ok(await dispatch('audit.export', { format: 'csv', fileName: 'taken.csv' }));
    expect(failed(await dispatch('audit.export', { format: 'csv', fileName: 'taken.csv' })).code).toBe(
      'already_exists',
    );
    expect(ok(await dispatch('audit.export', { format: 'csv', fileName: 'taken.csv', overwrite: true }))).toMatchObject(
      { rowCount: 12 },
    );
  });

  it('refuses an exports/ that is a link to somewhere else', async () => {
    if (process.platform === 'win32') return;
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-elsewhere-'));
    try {
      fs.symlinkSync(elsewhere, exports());
      expect(failed(await dispatch('audit.export', { format: 'jsonl', fileName: 'a.jsonl' }))).toMatchObject({
        code: 'invalid_input',
        message: expect.stringMatching(/is not a folder/),
      });
      expect(fs.readdirSync(elsewhere)).toEqual([]);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('audit.exportPrepare and audit.exportRead over the contract', () => {
  it('prepares the same file audit.export writes, reads it back in chunks, then forgets it', async () => {
    const prepared = ok(await dispatch('audit.exportPrepare', { format: 'csv' })) as AuditExportPrepareOutput;
    expect(prepared).toMatchObject({
      format: 'csv',
      rowCount: 12,
      head: { sequence: 12 },
      fileName: expect.stringMatching(/^ai-workbench-audit-[\d-]+\.csv$/),
    });
    const read = ok(
      await dispatch('audit.exportRead', { exportId: prepared.exportId, offset: 0 }),
    ) as AuditExportReadOutput;
    expect(read).toMatchObject({ nextOffset: prepared.bytes, done: true });
    const text = Buffer.from(read.base64, 'base64').toString('utf8');
    expect(text.split('\n')[0]).toContain('# aiWorkbenchAuditExport=1');
    const direct = path.join(dataDir, 'exports', 'direct.csv');
    ok(await dispatch('audit.export', { format: 'csv', fileName: 'direct.csv' }));
    // Same rows as a direct export; only the header's exportedAt may differ.
    expect(text.split('\n').slice(1)).toEqual(fs.readFileSync(direct, 'utf8').split('\n').slice(1));
    expect(failed(await dispatch('audit.exportRead', { exportId: prepared.exportId, offset: 0 }))).toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/export again/),
    });
    expect(failed(await dispatch('audit.exportPrepare', { format: 'xml' })).code).toBe('invalid_input');
    expect(onInternalError).not.toHaveBeenCalled();
  });
});

describe('audit.verify over the contract', () => {
  it('reports ok with the head, and checks an anchor', async () => {
    const result = ok(await dispatch('audit.verify', {})) as AuditVerifyResult;
    expect(result).toEqual({ ok: true, rowCount: 12, head: services.audit.head() });
    const anchored = ok(
      await dispatch('audit.verify', { anchor: { sequence: 3, hash: 'a'.repeat(64) } }),
    ) as AuditVerifyResult;
    expect(anchored).toMatchObject({ ok: false, problem: { sequence: 3, kind: 'anchor-mismatch' } });
  });

  it('refuses a malformed anchor', async () => {
    expect(failed(await dispatch('audit.verify', { anchor: { sequence: 0, hash: 'xyz' } })).message).toMatch(
      /anchor\.sequence: .*anchor\.hash: /,
    );
  });
});

describe('audit.stats, audit.suggestions and audit.acceptSuggestion over the contract', () => {
  const day = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString();

  it('answers the figures of a period, filtered, and the suggestions', async () => {
    const stats = ok(await dispatch('audit.stats', { from: day(-7), to: day(1) })) as {
      totals: { total: number };
      timeline: unknown[];
      headSequence: number;
    };
    // The six decision rows of the fixture (audit-test-support.ts); result rows are not decisions.
    expect(stats.totals.total).toBe(6);
    expect(stats.timeline).toHaveLength(9);
    expect(stats.headSequence).toBe(12);
    expect(
      (
        ok(await dispatch('audit.stats', { from: day(-7), to: day(1), serverName: 'nobody' })) as {
          totals: { total: number };
        }
      ).totals.total,
    ).toBe(0);
    expect(ok(await dispatch('audit.suggestions', { days: 7 }))).toMatchObject({ suggestions: expect.any(Array) });
    expect(ok(await dispatch('audit.suggestions', undefined))).toMatchObject({ suggestions: expect.any(Array) });
  });

  it('refuses a period that runs backwards or is too long, an unknown kind, and a suggestion that is not there', async () => {
    expect(failed(await dispatch('audit.stats', { from: day(0), to: day(-1) })).message).toMatch(
      /from: from must be before to/,
    );
    expect(failed(await dispatch('audit.stats', { from: day(-500), to: day(0) })).message).toMatch(/at most 400 days/);
    expect(failed(await dispatch('audit.stats', { from: day(-40), to: day(0), bucket: 'hour' })).message).toMatch(
      /by hour/,
    );
    expect(failed(await dispatch('audit.stats', { from: day(-1), to: day(0), kind: 'result' })).code).toBe(
      'invalid_input',
    );
    expect(failed(await dispatch('audit.stats', { from: day(-1), to: day(0), sql: '1=1' })).code).toBe('invalid_input');
    expect(failed(await dispatch('audit.acceptSuggestion', { id: 'allow-tool:nope' }))).toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/No such suggestion now/),
    });
    expect(onInternalError).not.toHaveBeenCalled();
  });
});
