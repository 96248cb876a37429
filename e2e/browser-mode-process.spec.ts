/**
 * Browser mode as a person starts it: flags, ports, a second instance, a damaged database, shutdown.
 * These drive the built entry (out/main/browser.js) as a child process; no page is needed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BROWSER_ENTRY, ROOT, expect, test } from './fixtures';
import { ui } from './ui';

interface Started {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  /** Resolves with the ready URL, or with null when the process exits first. */
  ready: Promise<string | null>;
  exit: Promise<number | null>;
}

function start(args: string[], home: string): Started {
  const child = spawn(process.execPath, [BROWSER_ENTRY, '--no-open', ...args], {
    cwd: ROOT,
    env: { ...process.env, WORKBENCH_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<string | null>((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output.stdout += chunk.toString();
      const match = /ready at (http:\/\/\S+)/.exec(output.stdout);
      if (match?.[1]) resolve(match[1]);
    });
    void exit.then(() => resolve(null));
  });
  return { child, output, ready, exit };
}

const homes: string[] = [];
const children: ChildProcess[] = [];
function tempHome(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-process-'));
  homes.push(home);
  return home;
}
function track(started: Started): Started {
  children.push(started.child);
  return started;
}

test.afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

test('prints exactly one ready line with the loopback address and the token only in the fragment', async () => {
  const server = track(start(['--port', '0'], tempHome()));
  const url = await server.ready;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{40,}$/);
  expect(server.output.stdout.trim().split('\n')).toEqual([`AI Workbench (browser mode) ready at ${url}`]);
});

test('a second instance started the same way gets another port', async () => {
  const home = tempHome();
  const first = track(start([], home));
  const second = track(start([], home));
  const [a, b] = await Promise.all([first.ready, second.ready]);
  expect(a, first.output.stderr).not.toBeNull();
  expect(b, second.output.stderr).not.toBeNull();
  expect(new URL(a as string).port).not.toBe(new URL(b as string).port);
});

test('an explicit port that is taken is a clear error, not a silent switch', async () => {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    const server = track(start(['--port', String(port)], tempHome()));
    expect(await server.exit).toBe(1);
    expect(server.output.stderr).toContain(`Port ${port} is in use`);
    expect(server.output.stdout).toBe('');
  } finally {
    blocker.close();
  }
});

test('a bad flag value names the flag and shows the usage', async () => {
  const server = track(start(['--port', 'eighty'], tempHome()));
  expect(await server.exit).toBe(2);
  expect(server.output.stderr).toContain('--port takes a number from 0 to 65535, not "eighty"');
  expect(server.output.stderr).toContain('Usage:');
});

test('a damaged database stops the start with a message naming the file, and the file is kept as it was', async () => {
  const home = tempHome();
  const file = path.join(home, 'workbench.db');
  const garbage = Buffer.from('This is not an SQLite database, but somebody’s precious notes.\n'.repeat(200));
  fs.writeFileSync(file, garbage);
  const server = track(start(['--port', '0'], home));
  expect(await server.exit).toBe(1);
  expect(server.output.stderr).toContain('AI Workbench cannot start');
  expect(server.output.stderr).toContain(file);
  expect(fs.readFileSync(file).equals(garbage)).toBe(true);
});

test('a broken settings file stops the start with a message naming the file, and the file is kept as it was', async () => {
  const home = tempHome();
  const file = path.join(home, 'settings.json');
  const broken = '{ "mcpServers": { "Files": { "command": "node", } }';
  fs.writeFileSync(file, broken);
  const server = track(start(['--port', '0'], home));
  expect(await server.exit).toBe(1);
  expect(server.output.stderr).toContain(`AI Workbench cannot start: The settings file ${file} is not valid JSON`);
  expect(fs.readFileSync(file, 'utf8')).toBe(broken);
});

test('a data folder other users could read is made owner-only at start, with a notice on stderr', async () => {
  test.skip(process.platform === 'win32', 'POSIX file modes');
  const home = tempHome();
  fs.chmodSync(home, 0o755);
  const server = track(start(['--port', '0'], home));
  expect(await server.ready, server.output.stderr).not.toBeNull();
  // stderr is another pipe: its line may arrive after the ready line.
  await expect
    .poll(() => server.output.stderr)
    .toContain(`Other users of this computer could read AI Workbench's data folder ${home}`);
  expect(fs.statSync(home).mode & 0o777).toBe(0o700);
  for (const name of ['workbench.db', 'workbench.db-wal', 'workbench.db-shm'])
    expect(fs.statSync(path.join(home, name)).mode & 0o777, name).toBe(0o600);
});

test('SIGTERM shuts the server down cleanly and the data is kept', async () => {
  const home = tempHome();
  const server = track(start(['--port', '0'], home));
  expect(await server.ready).not.toBeNull();
  server.child.kill('SIGTERM');
  expect(await server.exit).toBe(0);
  expect(fs.existsSync(path.join(home, 'workbench.db'))).toBe(true);
});

test('the browser is opened on a redirect page only its owner can read: the token is on no command line', async ({
  page,
}) => {
  test.skip(process.platform === 'win32', 'POSIX file modes and a shell-script xdg-open');
  // A start, a page load and a stop: 10 s on a quiet machine, 30 s when 2 cores serve a load of 20.
  test.setTimeout(90_000);
  const home = tempHome();
  // A stand-in for xdg-open that records its command line, as /proc/PID/cmdline shows it to every user.
  const bin = path.join(home, 'bin');
  const recorded = path.join(home, 'xdg-open-args');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$0" "$@" > '${recorded}'\n`, {
    mode: 0o755,
  });
  const child = spawn(process.execPath, [BROWSER_ENTRY, '--port', '0'], {
    cwd: ROOT,
    env: {
      ...process.env,
      WORKBENCH_HOME: home,
      DISPLAY: ':99',
      PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await expect.poll(() => /ready at (\S+)/.exec(stdout)?.[1], { timeout: 30_000 }).toBeDefined();
  const url = (/ready at (\S+)/.exec(stdout) as RegExpExecArray)[1] as string;
  const token = new URL(url).hash.replace('#token=', '');
  expect(token.length).toBeGreaterThanOrEqual(40);
  await expect.poll(() => fs.existsSync(recorded), { timeout: 10_000 }).toBe(true);

  const commandLine = fs.readFileSync(recorded, 'utf8').trim().split('\n');
  expect(commandLine.join(' ')).not.toContain(token);
  expect(commandLine).toHaveLength(2);
  const fileUrl = commandLine[1] as string;
  expect(fileUrl).toMatch(/^file:\/\//);
  const file = new URL(fileUrl).pathname;
  expect(path.dirname(path.dirname(file))).toBe(home);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);

  // The page takes Chromium to the app, signed in with the token.
  await page.goto(fileUrl);
  await expect(page).toHaveURL(new RegExp(`^${new URL(url).origin}/`));
  const view = ui(page);
  await expect(view.newChat).toBeVisible();
  await expect(view.missingToken).toHaveCount(0);

  child.kill('SIGTERM');
  expect(await exit).toBe(0);
  expect(fs.existsSync(file)).toBe(false);
});

/** The direct children of a process, from /proc (Linux). */
function childrenOf(pid: number): number[] {
  const tasks = fs.readdirSync(`/proc/${pid}/task`, { withFileTypes: true });
  return tasks.flatMap((task) => {
    const text = fs.readFileSync(`/proc/${pid}/task/${task.name}/children`, 'utf8').trim();
    return text ? text.split(/\s+/).map(Number) : [];
  });
}
function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}
/** Exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

test('a fresh data folder starts the Files MCP server in its sandbox, and SIGTERM leaves no server process behind', async () => {
  test.skip(process.platform !== 'linux', 'reads the process tree from /proc');
  const home = tempHome();
  const server = track(start(['--port', '0'], home));
  expect(await server.ready, server.output.stderr).not.toBeNull();
  const pid = server.child.pid as number;
  let files: number | undefined;
  await expect
    .poll(() => (files = childrenOf(pid).find((child) => commandLine(child).includes('server-filesystem'))), {
      timeout: 10_000,
    })
    .toBeDefined();
  expect(commandLine(files as number)).toContain(path.join(home, 'sandbox'));
  expect(fs.statSync(path.join(home, 'sandbox')).isDirectory()).toBe(true);
  server.child.kill('SIGTERM');
  expect(await server.exit).toBe(0);
  await expect.poll(() => alive(files as number), { timeout: 5_000 }).toBe(false);
});

test('npm start says in one line that there is no Electron binary, then serves browser mode', async () => {
  const electronDist = path.join(ROOT, 'node_modules', 'electron', 'dist');
  test.skip(
    fs.existsSync(electronDist),
    'An Electron binary is installed here, so npm start runs the desktop app instead',
  );
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.ts'), '--port', '0', '--no-open'], {
    cwd: ROOT,
    env: { ...process.env, WORKBENCH_HOME: tempHome() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = await new Promise<boolean>((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('ready at')) resolve(true);
    });
    child.once('exit', () => resolve(false));
  });
  expect(ready, stderr).toBe(true);
  // A stale build prints the build's output first; the last two lines are what a person reads.
  const lines = stdout.trim().split('\n').slice(-2);
  expect(lines[0]).toBe('No Electron binary is installed on this machine, so AI Workbench starts in browser mode.');
  expect(lines[1]).toMatch(/^AI Workbench \(browser mode\) ready at http:\/\/127\.0\.0\.1:\d+\/#token=/);
});

test('a bad organisation policy stops the start before any ready line: nobody is sent to a server about to go', async () => {
  const home = tempHome();
  const policy = path.join(home, 'org-policy.json');
  fs.writeFileSync(policy, '{ "rules": "not a list" }');
  const child = spawn(process.execPath, [BROWSER_ENTRY, '--no-open', '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, WORKBENCH_HOME: home, WORKBENCH_MANAGED_POLICY: policy },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(1);
  expect(stderr).toContain('AI Workbench cannot start');
  expect(stderr).toContain(policy);
  expect(stdout).not.toContain('ready at');
});
