import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkedLineWriter, EXPORT_CHUNK_BYTES } from './export-lines';

/** A disk that takes `delayMs` per write and remembers what it got and how much it held at once. */
function slowDisk(delayMs: number): { stream: Writable; bytes: () => Buffer; maxHeld: () => number } {
  const parts: Buffer[] = [];
  let held = 0;
  let maxHeld = 0;
  const stream = new Writable({
    highWaterMark: EXPORT_CHUNK_BYTES,
    write(chunk: Buffer, _encoding, callback) {
      held++;
      maxHeld = Math.max(maxHeld, held);
      const copy = Buffer.from(chunk);
      setTimeout(() => {
        held--;
        parts.push(copy);
        callback();
      }, delayMs);
    },
  });
  return { stream, bytes: () => Buffer.concat(parts), maxHeld: () => maxHeld };
}

/** As the export does: add every line, flush, end the stream and wait until it is finished. */
async function writeAll(writer: ChunkedLineWriter, stream: Writable, lines: string[]): Promise<void> {
  for (const line of lines) {
    const pending = writer.add(line);
    if (pending) await pending;
  }
  await writer.flush();
  stream.end();
  await finished(stream);
}

describe('ChunkedLineWriter', () => {
  it('writes every line, in order, byte for byte, whatever the lines (multi-byte and surrogate pairs included)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'grapheme', maxLength: 200 }), { maxLength: 300 }), async (lines) => {
        const disk = slowDisk(0);
        await writeAll(new ChunkedLineWriter(disk.stream), disk.stream, lines);
        expect(disk.bytes().toString('utf8')).toBe(lines.join(''));
      }),
      { numRuns: 50 },
    );
  });

  it('a line longer than a buffer is written whole, in its place', async () => {
    const disk = slowDisk(0);
    const huge = `${'é'.repeat(EXPORT_CHUNK_BYTES)}\n`;
    await writeAll(new ChunkedLineWriter(disk.stream), disk.stream, ['first\n', huge, 'last\n']);
    expect(disk.bytes().toString('utf8')).toBe(`first\n${huge}last\n`);
  });

  it('against a slow disk, waits instead of holding more buffers: memory stays at a few buffers', async () => {
    const disk = slowDisk(5);
    const line = `${'x'.repeat(999)}\n`;
    const lines = Array.from({ length: 12 * 1024 }, () => line); // 12 MB
    await writeAll(new ChunkedLineWriter(disk.stream), disk.stream, lines);
    expect(disk.bytes().length).toBe(12 * 1024 * 1000);
    expect(disk.maxHeld()).toBeLessThanOrEqual(4);
  });

  it('a failing stream is raised to the writer, not swallowed', async () => {
    const broken = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error('disk full'));
      },
    });
    const writer = new ChunkedLineWriter(broken);
    const line = `${'y'.repeat(1000)}\n`;
    await expect(
      writeAll(
        writer,
        broken,
        Array.from({ length: 5000 }, () => line),
      ),
    ).rejects.toThrow('disk full');
  });
});
