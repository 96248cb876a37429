// A reader that stops early (`workbench audit query | head -1`): the command ends quietly, not with an EPIPE trace.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A child that writes a line every few milliseconds, as a paging command does, to a reader that closes after one chunk. */
function writeToClosedPipe(install: boolean): Promise<{ code: number | null; stderr: string }> {
  const script = [
    install ? "const { endQuietlyOnClosedPipe } = await import('./src/cli/closed-pipe.ts');" : '',
    install ? 'endQuietlyOnClosedPipe([process.stdout, process.stderr], (code) => process.exit(code));' : '',
    "let n = 0; const timer = setInterval(() => { process.stdout.write('row '.repeat(20000) + '\\n'); if (++n > 50) clearInterval(timer); }, 5);",
  ].join('\n');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.once('data', () => child.stdout.destroy());
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}

describe('output piped into a reader that stops early', () => {
  it('dies with an EPIPE trace without the handler, and ends quietly with 0 with it', async () => {
    const bare = await writeToClosedPipe(false);
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toContain('EPIPE');
    expect(await writeToClosedPipe(true)).toEqual({ code: 0, stderr: '' });
  }, 60_000);
});
