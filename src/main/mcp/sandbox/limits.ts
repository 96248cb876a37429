import os from 'node:os';
import type { ManagedSandbox } from '../../../shared/approval';
import { WorkbenchError } from '../../errors';
import { isWithin, type SandboxProfile } from './profile';

/** No organisation policy: nothing capped, nothing locked, unconfined only where the person allows it. */
export const NO_SANDBOX_LIMITS: ManagedSandbox = {
  requireContainment: false,
  allowUnconfined: false,
  allowNetwork: true,
  allowHomeFolder: true,
  lockProfiles: false,
};

export interface LimitContext {
  limits: ManagedSandbox;
  dataDir: string;
  home?: string;
}

/** Why the organisation refuses this grant, or undefined when it may be granted. */
export function refusal(kind: 'read' | 'write' | 'connect', target: string, context: LimitContext): string | undefined {
  const { limits } = context;
  if (kind === 'connect')
    return limits.allowNetwork ? undefined : 'Your organisation allows no network access to contained servers.';
  const home = context.home ?? os.homedir();
  if (
    !limits.allowHomeFolder &&
    home !== '/' &&
    isWithin(target, home) &&
    !isWithin(target, context.dataDir) &&
    !isWithin(home, target)
  ) {
    return `Your organisation allows contained servers no folder in the home folder (${home}).`;
  }
  if (!limits.allowHomeFolder && isWithin(home, target))
    return `Your organisation allows contained servers no folder that holds the home folder (${home}).`;
  return undefined;
}

/** The profile under the organisation's caps, and the entries the caps took out (for the server's log). */
export function capProfile(
  profile: SandboxProfile,
  context: LimitContext,
  shipped: ReadonlySet<string>,
): { profile: SandboxProfile; dropped: string[] } {
  const dropped: string[] = [];
  const keep = (kind: 'read' | 'write' | 'connect') => (entry: string) => {
    if (shipped.has(entry)) return true;
    const why = refusal(kind, entry, context);
    if (why) dropped.push(`${entry}: ${why}`);
    return !why;
  };
  return {
    profile: {
      read: profile.read.filter(keep('read')),
      write: profile.write.filter(keep('write')),
      hosts: profile.hosts.filter(keep('connect')),
      env: profile.env,
    },
    dropped,
  };
}

/** Throws `forbidden` when the organisation locks profiles or refuses this grant. */
export function assertMayGrant(
  kind: 'read' | 'write' | 'connect' | 'env',
  target: string,
  context: LimitContext,
): void {
  if (context.limits.lockProfiles)
    throw new WorkbenchError('locked', 'Your organisation locks the servers\u2019 sandbox profiles.');
  if (kind === 'env') return;
  const why = refusal(kind, target, context);
  if (why) throw new WorkbenchError('locked', why, { target });
}
