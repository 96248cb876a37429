import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { PolicyView } from '../../../../shared/approval';
import { MCP_SERVER_NAME_MAX_LENGTH, type OrganisationIdpView } from '../../../../shared/mcp';
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

/**
 * The organisation's identity provider (cross-app access) a server about to be added at `url` as `name` would sign
 * in through (`mcp.organisationIdp`, docs/user/organisation-policy.md#oauth), asked again as the person types; null
 * for a server that is not reached over HTTP, and while the policy names no such server.
 */
export function useOrganisationIdp(
  api: WorkbenchApi,
  name: string,
  url: string,
  active: boolean,
): OrganisationIdpView | null {
  const [found, setFound] = useState<OrganisationIdpView | null>(null);
  const wanted = active ? url.trim() : '';
  useEffect(() => {
    if (wanted === '') return;
    let live = true;
    // Asked once typing pauses, not on every key.
    const timer = setTimeout(() => {
      api.mcp
        .organisationIdp({ name: name.trim().slice(0, MCP_SERVER_NAME_MAX_LENGTH), url: wanted.slice(0, 4096) })
        .then(
          ({ identityProvider }) => {
            if (live) setFound(identityProvider);
          },
          () => {
            if (live) setFound(null);
          },
        );
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, name, wanted]);
  return wanted === '' ? null : found;
}
