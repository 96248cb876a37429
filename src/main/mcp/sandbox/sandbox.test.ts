/**
 * Contained servers with the real bubblewrap (docs/user/sandbox.md): a hostile server tries, at start and during a
 * call, to read a file outside its profile, write outside its scratch folder, read a variable of the app's environment
 * it was not given, reach a listener on 127.0.0.1 and have a child process do the same. Every attempt fails and is
 * reported as a block; widening the profile lets exactly that access through and nothing else.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestHost, disposeTestHosts, HOSTILE_SERVER } from '../test-fixtures/harness';
import type { SandboxBlock } from './contain';
import { needsSandbox } from '../../testing/skip-reason';
import type { SandboxBlockView } from '../../../shared/mcp-result';

afterEach(disposeTestHosts);

const SECRET_ENV = 'WORKBENCH_HOSTILE_TEST_SECRET';
let outside: string;
let listener: net.Server;
let port: number;

beforeAll(async () => {
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-outside-'));
  fs.mkdirSync(path.join(outside, 'keys'));
  fs.writeFileSync(path.join(outside, 'keys', 'id_rsa'), 'PRIVATE KEY');
  process.env[SECRET_ENV] = 'top-secret';
  listener = net.createServer((socket) => socket.end('hello\n'));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
});
afterAll(() => {
  listener.close();
  Reflect.deleteProperty(process.env, SECRET_ENV);
  fs.rmSync(outside, { recursive: true, force: true });
});

interface Outcome {
  read: string;
  write: string;
  env: string;
  connect: string;
  child: string;
}

async function hostile(sandbox: Record<string, unknown> = {}) {
  const blocks: { block: SandboxBlock; call: { toolName: string } | undefined }[] = [];
  const targets = {
    read: path.join(outside, 'keys', 'id_rsa'),
    write: path.join(outside, 'escaped.txt'),
    env: SECRET_ENV,
    port,
  };
  const test = createTestHost(
    {
      Hostile: {
        command: process.execPath,
        args: [HOSTILE_SERVER, JSON.stringify(targets)],
        ...(Object.keys(sandbox).length ? { sandbox } : {}),
      } as never,
    },
    { onBlock: (_name, block, call) => blocks.push({ block, call }) },
  );
  if (Object.keys(sandbox).length) test.config.setSandboxSettings('Hostile', sandbox);
  const ready = await test.waitFor('Hostile', (server) => server.status.toolCount === 1, 30_000);
  return { test, blocks, targets, ready };
}

const call = async (
  test: Awaited<ReturnType<typeof hostile>>['test'],
): Promise<{ atStart: Outcome; now: Outcome; blocks: SandboxBlockView[] }> => {
  const result = await test.host.callTool({ serverName: 'Hostile', toolName: 'escape', args: {} });
  return { ...(result.structuredContent as { atStart: Outcome; now: Outcome }), blocks: result.sandboxBlocks ?? [] };
};

const suite = needsSandbox('a contained server (real bubblewrap)');
// Skipped where no bubblewrap runs, with the sandbox probe's reason in its title (testing/skip-reason.ts); a skip is
// listed by npm test with that reason and never counted as passed.
describe.skipIf(suite.skipped)(suite.title, () => {
  it('fails every way out, at start and during a call, in the server and in its child, and each is reported as a block', async () => {
    const { test, blocks, targets, ready } = await hostile();
    expect(ready.status.containment).toBe('contained');
    const { atStart, now, blocks: duringCall } = await call(test);
    for (const outcome of [atStart, now, JSON.parse(atStart.child) as Outcome, JSON.parse(now.child) as Outcome]) {
      expect(outcome.read).toMatch(/^(ENOENT|EACCES|EPERM)$/);
      expect(outcome.write).toMatch(/^(ENOENT|EROFS|EACCES|EPERM)$/);
      expect(outcome.env).toBe('undefined');
      expect(outcome.connect).toMatch(/^(ECONNREFUSED|ENETUNREACH|EPERM)$/);
    }
    expect(fs.existsSync(targets.write)).toBe(false);
    expect(fs.existsSync(`${targets.write}.child`)).toBe(false);
    // Reported with the right path, host and name: by the server and by its child (each once per process).
    await expect.poll(() => blocks.length).toBeGreaterThanOrEqual(8);
    const seen = blocks.map(({ block }) => `${block.kind} ${block.target}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        `read ${targets.read}`,
        `write ${targets.write}`,
        `write ${targets.write}.child`,
        `env ${SECRET_ENV}`,
        `connect 127.0.0.1:${port}`,
      ]),
    );
    // Nothing the profile allows is reported.
    expect(
      seen.filter(
        (entry) => !entry.includes(outside) && entry !== `env ${SECRET_ENV}` && entry !== `connect 127.0.0.1:${port}`,
      ),
    ).toEqual([]);
    // The call's own attempts are put with the call, in words for the tool block.
    expect(duringCall).toContainEqual({
      kind: 'read',
      target: targets.read,
      text: `Hostile tried to read ${targets.read} — blocked`,
    });
    expect(blocks.some(({ call }) => call?.toolName === 'escape')).toBe(true);
    expect(test.host.logs('Hostile').lines.map((line) => line.text)).toContain(
      `Hostile tried to connect to 127.0.0.1:${port} — blocked`,
    );
  }, 60_000);

  it('widened, lets exactly what was granted through and nothing else', async () => {
    const { test } = await hostile({
      read: [path.join(outside, 'keys')],
      hosts: [`127.0.0.1:${port}`],
      env: [SECRET_ENV],
    });
    const { now } = await call(test);
    expect(now.read).toBe('ok');
    expect(now.connect).toBe('ok hello');
    expect(now.env).toBe('ok');
    // Reading the folder grants no writing, in it or beside it.
    expect(now.write).toMatch(/^(ENOENT|EROFS|EACCES|EPERM)$/);
    const child = JSON.parse(now.child) as Outcome;
    expect(child.read).toBe('ok');
    expect(child.write).toMatch(/^(ENOENT|EROFS|EACCES|EPERM)$/);
    // Another port on the same host is still no way out.
    const other = net.createServer((socket) => socket.end('other\n'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      test.config.setSandboxSettings('Hostile', {
        read: [path.join(outside, 'keys')],
        hosts: [`127.0.0.1:${(other.address() as net.AddressInfo).port}`],
      });
      await test.waitFor(
        'Hostile',
        (server) => server.status.state === 'ready' && server.status.toolCount === 1,
        30_000,
      );
      await expect
        .poll(async () => (await call(test).catch(() => undefined))?.now.connect, { timeout: 20_000 })
        .toMatch(/^(ECONNREFUSED|ENETUNREACH)$/);
      expect((await call(test)).now.env).toBe('undefined');
    } finally {
      other.close();
    }
  }, 90_000);
});
