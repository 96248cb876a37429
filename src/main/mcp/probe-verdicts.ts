import type { PriorDiscovery } from '@modelcontextprotocol/client';

/**
 * What a server answered to `server/discover` at its last start, per server identity (docs/dev/protocol-2026.md,
 * "The probe's answer, remembered"): a 2026-07-28 server's discover result (the SDK v2 client's `prior`: connected
 * with no round trip) or `legacy` (the probe is skipped; the 1.x client's `initialize` comes first). Shared by one
 * host's servers, kept in memory only; a session that ends by itself, or a start that fails before the server answered,
 * forgets it, so the next start asks again.
 */
export interface ProbeVerdicts {
  get(identity: string): PriorDiscovery | undefined;
  remember(identity: string, verdict: PriorDiscovery): void;
  forget(identity: string): void;
}

export function createProbeVerdicts(): ProbeVerdicts {
  const verdicts = new Map<string, PriorDiscovery>();
  return {
    get: (identity) => verdicts.get(identity),
    remember: (identity, verdict) => void verdicts.set(identity, verdict),
    forget: (identity) => void verdicts.delete(identity),
  };
}
