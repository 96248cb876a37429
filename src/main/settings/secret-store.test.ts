import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openFileSecretStore, plainCipher, type SecretCipher } from './secret-store';

const dirs: string[] = [];
function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-secrets-'));
  dirs.push(dir);
  return path.join(dir, 'secrets.json');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const reversing: SecretCipher = {
  kind: 'test-reverse',
  encrypt: (plain) => [...plain].reverse().join(''),
  decrypt: (stored) => [...stored].reverse().join(''),
};

describe('file secret store', () => {
  it('stores, lists by prefix, reads back and deletes', () => {
    const file = tempFile();
    const secrets = openFileSecretStore(file);
    secrets.set('mcp.Files.env.TOKEN', 's3cret');
    secrets.set('mcp.Files.env.OTHER', 'two');
    secrets.set('llm.openai.apiKey', 'sk-123');
    expect(secrets.keys('mcp.Files.')).toEqual(['mcp.Files.env.OTHER', 'mcp.Files.env.TOKEN']);
    expect(openFileSecretStore(file).get('llm.openai.apiKey')).toBe('sk-123');
    secrets.delete('llm.openai.apiKey');
    expect(openFileSecretStore(file).get('llm.openai.apiKey')).toBeUndefined();
  });

  it('keeps the file readable by its owner only', () => {
    const file = tempFile();
    openFileSecretStore(file).set('k', 'v');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('stores what the cipher makes of a value, never the value itself', () => {
    const file = tempFile();
    openFileSecretStore(file, [reversing]).set('k', 'abc-secret');
    expect(fs.readFileSync(file, 'utf8')).not.toContain('abc-secret');
    expect(openFileSecretStore(file, [reversing]).get('k')).toBe('abc-secret');
  });

  it("reads what another host wrote only with that host's cipher, and never loses it", () => {
    const file = tempFile();
    const app = openFileSecretStore(file, [reversing, plainCipher]);
    app.set('llm.openai.apiKey', 'from-the-app');
    const cli = openFileSecretStore(file);
    expect(cli.has('llm.openai.apiKey')).toBe(true);
    expect(() => cli.get('llm.openai.apiKey')).toThrow(/"test-reverse" protection/);
    cli.set('mcp.Files.env.TOKEN', 'from-the-cli');
    // The CLI's write kept the app's value, and the app reads both kinds.
    const reopened = openFileSecretStore(file, [reversing, plainCipher]);
    expect(reopened.get('llm.openai.apiKey')).toBe('from-the-app');
    expect(reopened.get('mcp.Files.env.TOKEN')).toBe('from-the-cli');
  });

  it('names a damaged file and leaves it as it is', () => {
    const file = tempFile();
    fs.writeFileSync(file, 'garbage');
    expect(() => openFileSecretStore(file)).toThrow(file);
    expect(fs.readFileSync(file, 'utf8')).toBe('garbage');
  });
});
