import { describe, expect, it } from 'vitest';
import { SAFE_STORAGE_KIND, safeStorageCipher, type SafeStorageLike } from './safe-storage-cipher';

/** A stand-in for Electron's safeStorage: XOR with a key, enough to prove values are transformed and restored. */
function fakeSafeStorage(available: boolean, backend?: string): SafeStorageLike {
  const xor = (buffer: Buffer): Buffer => Buffer.from(buffer.map((byte) => byte ^ 0x5a));
  return {
    isEncryptionAvailable: () => available,
    encryptString: (plain) => xor(Buffer.from(plain, 'utf8')),
    decryptString: (encrypted) => xor(encrypted).toString('utf8'),
    ...(backend ? { getSelectedStorageBackend: () => backend } : {}),
  };
}

describe('safeStorage cipher', () => {
  it('encrypts to text that does not contain the secret and decrypts it back', () => {
    const cipher = safeStorageCipher(fakeSafeStorage(true), 'darwin');
    expect(cipher?.kind).toBe(SAFE_STORAGE_KIND);
    const stored = cipher?.encrypt('sk-live-123') ?? '';
    expect(stored).not.toContain('sk-live-123');
    expect(cipher?.decrypt(stored)).toBe('sk-live-123');
  });

  it('is not offered when the OS has no encryption', () => {
    expect(safeStorageCipher(fakeSafeStorage(false), 'win32')).toBeNull();
  });

  it("is not offered on Linux when only Electron's built-in key would protect the secrets", () => {
    expect(safeStorageCipher(fakeSafeStorage(true, 'basic_text'), 'linux')).toBeNull();
    expect(safeStorageCipher(fakeSafeStorage(true), 'linux')).toBeNull();
    expect(safeStorageCipher(fakeSafeStorage(true, 'gnome_libsecret'), 'linux')?.kind).toBe(SAFE_STORAGE_KIND);
  });
});
