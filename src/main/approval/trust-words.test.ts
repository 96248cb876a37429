import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REMEMBER_WORDS } from '../../shared/decisions';
import { AUTO_APPROVE_SERVER, TRUST_ANNOTATIONS, autoApproveServerLabel } from '../../shared/trust-words';
import { rememberWords } from './policy/remember';

const ROOT = path.resolve(__dirname, '../..');

/** Every source file a person reads words from: the renderer, the CLI, main's user-facing texts. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

describe('one word per meaning: auto-approve a server, trust its annotations', () => {
  it('the card, Settings and the undo hint name the server setting with the same words, never "trust"', () => {
    expect(REMEMBER_WORDS.server).toBe(AUTO_APPROVE_SERVER);
    expect(AUTO_APPROVE_SERVER.toLowerCase()).not.toContain('trust');
    const { change, undo } = rememberWords(
      { serverName: 'Files', toolName: 'write_file', args: {} },
      { kind: 'server' },
    );
    expect(undo).toContain(`'${autoApproveServerLabel('Files')}'`);
    expect(change.toLowerCase()).not.toContain('trust');
  });

  it('no front end says "trust" for anything but the annotations flag', () => {
    const offenders: string[] = [];
    for (const file of sources(path.join(ROOT, 'renderer')).concat(sources(path.join(ROOT, 'cli')))) {
      const text = fs.readFileSync(file, 'utf8');
      // "Trust this server" alone (without "'s annotations") was the card's name for auto-approve.
      for (const match of text.matchAll(/Trust this server(?!'s annotations)|Run all tools of/g))
        offenders.push(`${path.relative(ROOT, file)}: ${match[0]}`);
    }
    expect(offenders).toEqual([]);
    expect(TRUST_ANNOTATIONS).toContain('annotations');
  });
});
