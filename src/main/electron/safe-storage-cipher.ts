import type { SecretCipher } from '../settings/secret-store';

/** The part of Electron's `safeStorage` we use, so the cipher is testable without Electron. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: which keyring backs it; 'basic_text' means a key built into Electron, no real protection. */
  getSelectedStorageBackend?(): string;
}

export const SAFE_STORAGE_KIND = 'electron-safe-storage';

/**
 * Secrets encrypted with the OS keychain (macOS Keychain, Windows DPAPI, libsecret/kwallet on
 * Linux) through Electron's safeStorage. Null when the OS offers no encryption; the app then keeps
 * the plain, owner-only file and says so.
 */
export function safeStorageCipher(
  safeStorage: SafeStorageLike,
  platform: NodeJS.Platform = process.platform,
): SecretCipher | null {
  if (!safeStorage.isEncryptionAvailable()) return null;
  if (platform === 'linux') {
    const backend = safeStorage.getSelectedStorageBackend?.() ?? 'unknown';
    if (backend === 'basic_text' || backend === 'unknown') return null;
  }
  return {
    kind: SAFE_STORAGE_KIND,
    encrypt: (plain) => safeStorage.encryptString(plain).toString('base64'),
    decrypt: (stored) => safeStorage.decryptString(Buffer.from(stored, 'base64')),
  };
}
