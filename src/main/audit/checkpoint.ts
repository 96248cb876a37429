import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import type { AuditHead, AuditProblem } from '../../shared/audit';
import { canonicalJson } from '../../shared/canonical-json';
import type { SecretStore } from '../settings/secret-store';
import { sha256Hex } from './audit-row';

/**
 * Signed checkpoints (docs/user/audit-shipping.md#signed-checkpoints): every N rows or M minutes a
 * row of kind `checkpoint` holds the chain head before it, signed with an Ed25519 key. Shipped like any row, a
 * checkpoint lets a verifier who holds only the public key prove that what it received up to that row is what
 * the log held when it was signed: a chain recomputed later, or a checkpoint altered, no longer verifies.
 */

/** The private key in the secret store (PKCS #8 PEM); it never leaves the main process. */
export const CHECKPOINT_KEY_SECRET = 'audit.checkpoint.ed25519';

/** What a checkpoint row's `args` column holds (canonical JSON). */
export interface CheckpointClaim {
  /** The head the checkpoint signs: the row just before it. */
  signed: AuditHead;
  /** SHA-256 (hex) of the public key's DER (SPKI): which key signed. */
  keyId: string;
  /** Ed25519 signature (base64) of `checkpointMessage(signed)`. */
  signature: string;
}

export interface CheckpointKey {
  privateKey: KeyObject;
  publicKeyPem: string;
  keyId: string;
}

/** The bytes signed: a fixed purpose, so the signature cannot be replayed as anything else. */
export function checkpointMessage(head: AuditHead): Buffer {
  return Buffer.from(`ai-workbench audit checkpoint v1\n${head.sequence}\n${head.hash}`, 'utf8');
}

export function keyIdOf(publicKey: KeyObject): string {
  return sha256Hex(publicKey.export({ type: 'spki', format: 'der' }).toString('hex'));
}

/** The checkpoint key, made and stored on first use when `create` is set; null when there is none yet. */
export function checkpointKey(secrets: SecretStore, { create }: { create: boolean }): CheckpointKey | null {
  let pem = secrets.get(CHECKPOINT_KEY_SECRET);
  if (pem === undefined) {
    if (!create) return null;
    const { privateKey } = generateKeyPairSync('ed25519');
    pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    secrets.set(CHECKPOINT_KEY_SECRET, pem);
  }
  const privateKey = createPrivateKey(pem);
  const publicKey = createPublicKey(privateKey);
  return {
    privateKey,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: keyIdOf(publicKey),
  };
}

/** The claim a new checkpoint row stores, for the head it follows. */
export function signCheckpoint(key: CheckpointKey, head: AuditHead): CheckpointClaim {
  return {
    signed: { sequence: head.sequence, hash: head.hash },
    keyId: key.keyId,
    signature: sign(null, checkpointMessage(head), key.privateKey).toString('base64'),
  };
}

export function checkpointArgs(claim: CheckpointClaim): string {
  return canonicalJson(claim);
}

/**
 * Checks one checkpoint row against a public key: its claim well formed, signed by that key, and naming the row
 * just before it (`sequence - 1`, `previousHash`). Returns the problem, or null when it holds.
 */
export function checkCheckpoint(
  row: { sequence: number; previousHash: string; args: unknown },
  publicKey: KeyObject,
  line?: number,
): AuditProblem | null {
  const problem = (message: string): AuditProblem => ({
    sequence: row.sequence,
    kind: 'checkpoint-invalid',
    message: `checkpoint ${row.sequence}: ${message}`,
    ...(line === undefined ? {} : { line }),
  });
  const claim = parseClaim(row.args);
  if (!claim) return problem('its signed head is not readable');
  if (claim.keyId !== keyIdOf(publicKey))
    return problem(`it was signed by another key (${claim.keyId.slice(0, 16)}…) than the one given`);
  if (!verify(null, checkpointMessage(claim.signed), publicKey, Buffer.from(claim.signature, 'base64')))
    return problem('its signature does not verify: the checkpoint was altered');
  if (claim.signed.sequence !== row.sequence - 1 || claim.signed.hash !== row.previousHash) {
    return problem(
      `it signed row ${claim.signed.sequence} with hash ${claim.signed.hash.slice(0, 12)}…, but the chain before it now ends in ${row.previousHash.slice(0, 12)}…: the chain was recomputed after the checkpoint`,
    );
  }
  return null;
}

/** A public key from PEM text (the settings page, `workbench audit checkpoint-key`, a file). */
export function publicKeyFrom(pem: string): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`the key is ${key.asymmetricKeyType ?? 'unknown'}, not Ed25519`);
  return key;
}

function parseClaim(args: unknown): CheckpointClaim | null {
  try {
    const value = (typeof args === 'string' ? JSON.parse(args) : args) as Partial<CheckpointClaim> | null;
    if (!value || typeof value.keyId !== 'string' || typeof value.signature !== 'string' || !value.signed) return null;
    if (typeof value.signed.sequence !== 'number' || typeof value.signed.hash !== 'string') return null;
    return value as CheckpointClaim;
  } catch {
    return null;
  }
}
