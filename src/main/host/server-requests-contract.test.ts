/**
 * serverRequests.* through the dispatcher and the real services (docs/user/server-requests.md): a sandbox widening is
 * a server request like sampling and elicitation — asked, listed, announced and decided through the same methods,
 * apart from the tool calls' approvals.* — and nothing is granted unless the person allowed it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventName } from '../../shared/contract';
import { createServices, type Services } from '../services';
import { createDispatcher } from './dispatcher';
import { createHandlers } from './handlers';

let dir: string;
let services: Services;
let dispatch: ReturnType<typeof createDispatcher>;
let seen: { event: EventName; payload: unknown }[];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-server-requests-contract-'));
  services = createServices({ dataDir: dir, host: 'cli', version: '0.0.0' });
  seen = [];
  services.events.subscribe((event, payload) => seen.push({ event, payload }));
  dispatch = createDispatcher(createHandlers(services), () => {});
});
afterEach(() => {
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const changes = () => seen.filter((item) => item.event === 'serverRequests.onDidChange').map((item) => item.payload);
const readPaths = () => services.mcpServers.sandboxSettings('Files').settings.read ?? [];

describe('a sandbox widening through serverRequests.*', () => {
  it('is asked, listed and announced as a server request, and allowed only by allow-once', async () => {
    const asked = await dispatch('serverRequests.requestWidening', {
      name: 'Files',
      grant: { kind: 'read', path: '/opt/notes' },
    });
    expect(asked).toMatchObject({
      ok: true,
      value: {
        kind: 'sandbox-widening',
        serverName: 'Files',
        chatId: null,
        grant: { kind: 'read', path: '/opt/notes' },
      },
    });
    const id = (asked as { value: { id: string } }).value.id;
    expect(await dispatch('serverRequests.list', { chatId: null })).toMatchObject({
      ok: true,
      value: {
        requests: [{ id, kind: 'sandbox-widening', description: 'Files may read /opt/notes (and everything in it)' }],
      },
    });
    expect(changes()).toMatchObject([{ kind: 'waiting', request: { id, kind: 'sandbox-widening' } }]);
    // The tool calls' inbox does not hold it.
    expect(await dispatch('approvals.pending', {})).toMatchObject({ ok: true, value: { approvals: [] } });

    // An answer that is not a widening's is refused, and nothing is granted.
    expect(await dispatch('serverRequests.decide', { id, decision: { action: 'accept' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
    expect(readPaths()).not.toContain('/opt/notes');

    expect(await dispatch('serverRequests.decide', { id, decision: { action: 'allow-once' } })).toEqual({
      ok: true,
      value: { request: null },
    });
    expect(readPaths()).toContain('/opt/notes');
    expect(changes().at(-1)).toMatchObject({ kind: 'resolved', request: { id }, outcome: 'Allowed once' });
    expect(await dispatch('serverRequests.list', {})).toEqual({ ok: true, value: { requests: [] } });
    // Decided once: a second answer changes nothing.
    expect(await dispatch('serverRequests.decide', { id, decision: { action: 'deny' } })).toMatchObject({ ok: false });
  });

  it('denied, it grants nothing and says so', async () => {
    const asked = await dispatch('serverRequests.requestWidening', {
      name: 'Files',
      grant: { kind: 'connect', host: 'example.com:443' },
    });
    const id = (asked as { value: { id: string } }).value.id;
    expect(await dispatch('serverRequests.decide', { id, decision: { action: 'deny' } })).toMatchObject({ ok: true });
    expect(services.mcpServers.sandboxSettings('Files').settings.hosts ?? []).toEqual([]);
    expect(changes().at(-1)).toMatchObject({ kind: 'resolved', outcome: 'Denied' });
  });

  it('the old per-kind method names are gone: one name per concept', async () => {
    for (const method of ['mcp.sandboxRequestWidening', 'mcp.sandboxWidenings', 'mcp.sandboxDecideWidening'])
      expect(await dispatch(method as never, {} as never)).toMatchObject({ ok: false });
  });
});
