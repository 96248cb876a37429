import type { ManagedSandbox } from '../../shared/approval';
import { sandboxAvailability } from '../mcp/sandbox/bwrap';
import { NO_SANDBOX_LIMITS } from '../mcp/sandbox/limits';

/**
 * The title of a test or suite that may be skipped on this machine: when `skipped`, it says why — "(SKIPPED: …)" —
 * so that the vitest report, and the list `npm test` prints of every skipped test (scripts/test.ts), give the
 * reason. Use with `it.skipIf(skipped)(titleUnless(…))` / `describe.skipIf`.
 */
export function titleUnless(title: string, skipped: boolean, reason: string): string {
  return skipped ? `${title} (SKIPPED: ${reason})` : title;
}

/**
 * For a suite that needs the real bubblewrap (docs/user/sandbox.md#platforms): whether it is skipped here, and its
 * title, carrying the probe's reason when it is. Use as `describe.skipIf(suite.skipped)(suite.title, …)`
 * (or `it.skipIf`).
 */
export function needsSandbox(title: string): { skipped: boolean; title: string } {
  const availability = sandboxAvailability();
  return availability.available
    ? { skipped: false, title }
    : { skipped: true, title: titleUnless(title, true, availability.reason) };
}

/**
 * Host options for a test that needs servers running but is not about the sandbox (docs/user/sandbox.md#organisation):
 * where no sandbox can run, servers start unconfined, as an organisation's `allowUnconfined` would let them; where
 * one runs, nothing changes. Tests of the sandbox itself use `needsSandbox` instead.
 */
export function unconfinedWhereNoSandbox(): { sandbox?: { limits: ManagedSandbox } } {
  return sandboxAvailability().available
    ? {}
    : { sandbox: { limits: { ...NO_SANDBOX_LIMITS, allowUnconfined: true } } };
}
