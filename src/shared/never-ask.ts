import type { ManagedPolicy } from './approval';

/**
 * Whether "never ask" (globally or in a chat) may take effect under the organisation's policy: not when it
 * disallows it, nor when it locked the global mode to something else (docs/user/organisation-policy.md). Apart
 * from approval.ts's schemas, as the chat's banner needs it on the first screen (docs/dev/benchmarks.md, app-start).
 */
export function neverAskAllowed(
  managed: Pick<ManagedPolicy, 'disallowNeverAsk' | 'locked'> | null | undefined,
): boolean {
  return (
    !(managed?.disallowNeverAsk ?? false) && (managed?.locked.mode === undefined || managed.locked.mode === 'never-ask')
  );
}
