import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { PolicyView } from '../../../../shared/approval';
import { trustReason } from '../approvals/organisation-reasons';

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
