// The one start/stop lifecycle of the three hosts (src/main/lifecycle.ts), on real services: a real settings file,
// a real SQLite database and, where a test starts them, the real bundled Files MCP server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SERVICE_STOP_STEPS, startServices, type ServicesLifecycle } from './lifecycle';
import { stopRunningLifecycles } from './shutdown';
import { unconfinedWhereNoSandbox } from './testing/skip-reason';

let dir: string;
let lifecycle: ServicesLifecycle;
type ExitListener = (code: number) => void;
let exitListenersBefore: ExitListener[];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-lifecycle-'));
  exitListenersBefore = process.listeners('exit') as ExitListener[];
  lifecycle = startServices({
    dataDir: dir,
    host: 'cli',
    version: '0.0.0-test',
    managedPolicyFile: null,
    mcp: unconfinedWhereNoSandbox(),
  });
});

afterEach(async () => {
  await lifecycle.stop();
  // A test that made the MCP step fail leaves the exit guard in place, as it should; take it off here.
  for (const listener of addedExitListeners()) process.off('exit', listener);
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

function addedExitListeners(): ExitListener[] {
  return (process.listeners('exit') as ExitListener[]).filter((listener) => !exitListenersBefore.includes(listener));
}

/** Spies on each service step, recording the order of their first calls. */
function spyOnSteps(order: string[]): void {
  const { services } = lifecycle;
  const spy = <T extends object>(target: T, method: keyof T & string, name: string): void => {
    const original = (target[method] as (...args: unknown[]) => unknown).bind(target);
    vi.spyOn(target, method as never).mockImplementation(((...args: unknown[]) => {
      if (!order.includes(name)) order.push(name);
      return original(...args);
    }) as never);
  };
  spy(services.conversations, 'dispose', 'exchanges');
  spy(services.approvals, 'dispose', 'approval timers');
  spy(services.auditDownloads, 'dispose', 'audit export downloads');
  spy(services.auditShipping, 'stop', 'audit shipping');
  spy(services.mcp, 'stop', 'mcp servers');
  spy(services, 'close', 'database');
}

describe('startServices → stop()', () => {
  it("stops in one order: the host's inputs (in the order added), exchanges, timers, MCP servers, then the database", async () => {
    const order: string[] = [];
    spyOnSteps(order);
    lifecycle.addInput('server', () => void order.push('input: server'));
    lifecycle.addInput('tray', async () => {
      await Promise.resolve();
      order.push('input: tray');
    });
    const report = await lifecycle.stop();
    expect(order).toEqual([
      'input: server',
      'input: tray',
      'exchanges',
      'approval timers',
      'audit export downloads',
      'audit shipping',
      'mcp servers',
      'database',
    ]);
    expect(report).toEqual({ steps: ['input: server', 'input: tray', ...SERVICE_STOP_STEPS], failures: [] });
    expect(lifecycle.state).toBe('stopped');
  });

  it("closes the database last: a service used after stop() fails, one used by an input's close still works", async () => {
    let chatsSeenByInput = -1;
    lifecycle.services.chats.create({});
    lifecycle.addInput('reads on close', () => {
      chatsSeenByInput = lifecycle.services.chats.list().length;
    });
    await lifecycle.stop();
    expect(chatsSeenByInput).toBe(1);
    expect(() => lifecycle.services.chats.list()).toThrow(/not open/);
  });

  it('is idempotent: every call returns the same promise and each step runs once', async () => {
    const order: string[] = [];
    spyOnSteps(order);
    const closeInput = vi.fn();
    lifecycle.addInput('server', closeInput);
    const first = lifecycle.stop();
    expect(lifecycle.state).toBe('stopping');
    expect(lifecycle.stop()).toBe(first);
    await first;
    expect(lifecycle.stop()).toBe(first);
    await lifecycle.stop();
    expect(closeInput).toHaveBeenCalledTimes(1);
    expect(lifecycle.services.mcp.stop).toHaveBeenCalledTimes(1);
    expect(lifecycle.services.close).toHaveBeenCalledTimes(1);
  });

  it('a failing step does not skip the later ones: the database is closed even when an input and the MCP step fail', async () => {
    const onStopError = vi.fn();
    // A second lifecycle on its own folder, so that onStopError can be passed.
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-lifecycle-'));
    const failing = startServices({
      dataDir: other,
      host: 'cli',
      version: '0.0.0-test',
      managedPolicyFile: null,
      onStopError,
    });
    try {
      failing.addInput('broken server', () => {
        throw new Error('the server would not close');
      });
      vi.spyOn(failing.services.mcp, 'stop').mockRejectedValueOnce(new Error('a process tree survived'));
      const close = vi.spyOn(failing.services, 'close');
      const report = await failing.stop();
      expect(report.steps).toEqual(['input: broken server', ...SERVICE_STOP_STEPS]);
      expect(report.failures.map((failure) => [failure.step, (failure.error as Error).message])).toEqual([
        ['input: broken server', 'the server would not close'],
        ['mcp servers', 'a process tree survived'],
      ]);
      expect(onStopError.mock.calls.map(([step]) => step)).toEqual(['input: broken server', 'mcp servers']);
      expect(close).toHaveBeenCalledTimes(1);
      expect(() => failing.services.chats.list()).toThrow(/not open/);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('keeps the process-exit guard that kills MCP servers until they stopped cleanly, and removes it then', async () => {
    expect(addedExitListeners()).toHaveLength(1);
    const stopNow = vi.spyOn(lifecycle.services.mcp, 'stopNow');
    addedExitListeners()[0]?.(0);
    expect(stopNow).toHaveBeenCalledTimes(1);
    await lifecycle.stop();
    expect(addedExitListeners()).toHaveLength(0);
  });

  it('keeps the exit guard when the MCP servers did not stop cleanly', async () => {
    vi.spyOn(lifecycle.services.mcp, 'stop').mockRejectedValueOnce(new Error('a process tree survived'));
    await lifecycle.stop();
    expect(addedExitListeners()).toHaveLength(1);
  });

  it('refuses an input added once stopping began, so nothing is left open after stop()', async () => {
    const stopping = lifecycle.stop();
    expect(() => lifecycle.addInput('late', () => {})).toThrow(/stopping/);
    await stopping;
    expect(() => lifecycle.addInput('later', () => {})).toThrow(/stopped/);
  });

  it("is stopped by stopRunningLifecycles (the CLI's signal handler), and forgotten once stopped", async () => {
    const reports = await stopRunningLifecycles();
    expect(reports.some((report) => report.steps.includes('database'))).toBe(true);
    expect(lifecycle.state).toBe('stopped');
    expect(await stopRunningLifecycles()).toEqual([]);
  });

  it('stops a running MCP server (the bundled Files server) before it closes the database', async () => {
    const { services } = lifecycle;
    services.mcp.start();
    await services.mcp.whenSettled({ timeoutMs: 20_000 });
    expect(services.mcp.list().find((server) => server.name === 'Files')?.status.state).toBe('ready');
    let stateWhenDatabaseClosed: string | undefined;
    const close = services.close.bind(services);
    vi.spyOn(services, 'close').mockImplementation(() => {
      stateWhenDatabaseClosed = services.mcp.list().find((server) => server.name === 'Files')?.status.state;
      close();
    });
    expect((await lifecycle.stop()).failures).toEqual([]);
    expect(stateWhenDatabaseClosed).toBe('stopped');
  });
});
