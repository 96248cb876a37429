import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { PolicyView } from '../../../../shared/approval';
import type { SandboxView } from '../../../../shared/sandbox';
import { containmentReason, trustReason } from '../approvals/organisation-reasons';

/**
 * Why the organisation's policy overrides "Trust this server's annotations" (organisation-reasons.ts `trustReason`),
 * kept current with `policy.onDidChange`; null until the policy is read, and when nothing overrides it.
 */
export function useTrustReason(api: WorkbenchApi): string | null {
  const [policy, setPolicy] = useState<PolicyView | null>(null);
  useEffect(() => {
    let live = true;
    api.policy.get().then(
      (view) => {
        if (live) setPolicy(view);
      },
      () => undefined,
    );
    const stop = api.policy.onDidChange(setPolicy);
    return () => {
      live = false;
      stop();
    };
  }, [api]);
  return trustReason(policy);
}

/**
 * Why the organisation's policy overrides a local server's Enabled switch (organisation-reasons.ts
 * `containmentReason`), from its sandbox limits (`mcp.sandbox`); null for a server reached over HTTP (nothing of it
 * runs here) or not saved yet, until the limits are read, and when containment is not required.
 */
export function useContainmentReason(api: WorkbenchApi, name: string | null, local: boolean): string | null {
  const [limits, setLimits] = useState<SandboxView['limits'] | null>(null);
  useEffect(() => {
    if (!local) return;
    let live = true;
    const read = name ? api.mcp.sandbox({ name }) : Promise.resolve(null);
    read.then(
      (view) => {
        if (live && view) setLimits(view.limits);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, name, local]);
  return local ? containmentReason(limits) : null;
}
