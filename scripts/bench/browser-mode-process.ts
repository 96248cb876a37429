import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../lib/project.ts';

export interface BrowserModeProcess {
  url: string;
  origin: string;
  token: string;
  stop(): Promise<void>;
}

/**
 * Starts the built browser-mode server on a free port with a throw-away data directory (`home`, removed on stop
 * unless `keepHome`: a benchmark that starts the app several times on the same folder).
 */
export async function startBrowserMode(
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-bench-')),
  { keepHome = false } = {},
): Promise<BrowserModeProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(ROOT, 'out/main/browser.js'), '--port', '0', '--no-open'],
    {
      cwd: ROOT,
      env: { ...process.env, WORKBENCH_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /ready at (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`browser mode exited with code ${code}: ${stderr}`)));
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.hash.replace(/^#token=/, ''),
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      if (!keepHome) fs.rmSync(home, { recursive: true, force: true });
    },
  };
}
