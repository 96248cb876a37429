/**
 * The title of a test or suite that may be skipped on this machine: when `skipped`, it says why — "(SKIPPED: …)" —
 * so that the vitest report, and the list `npm test` prints of every skipped test (scripts/test.ts), give the
 * reason. Use with `it.skipIf(skipped)(titleUnless(…))` / `describe.skipIf`.
 */
export function titleUnless(title: string, skipped: boolean, reason: string): string {
  return skipped ? `${title} (SKIPPED: ${reason})` : title;
}
