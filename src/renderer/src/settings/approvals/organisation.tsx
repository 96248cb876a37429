/**
 * The organisation's locks and defaults on Settings → Approvals (docs/user/organisation-policy.md): a locked setting
 * shows "Set by your organisation" and its control is disabled, described by that note; a default in force shows
 * "Organisation default".
 */
import type { ManagedSettingKey, PolicyUpdate, PolicyView, ToolApprovalSetting } from '../../../../shared/approval';
import { LockIcon } from '../../components/icons';

export const LOCK_TEXT = 'Set by your organisation';

/**
 * "Set by your organisation", with a lock; `id` is what the disabled control's aria-describedby names. With `detail`
 * (organisation-reasons.ts), it says what the organisation's policy does to the control beside it.
 */
export function LockNote({ id, detail }: { id: string; detail?: string | null | undefined }): React.JSX.Element {
  return (
    <span id={id} className={detail ? 'lock-note has-detail' : 'lock-note'} data-testid="lock-note">
      <LockIcon size={14} />
      {detail ? (
        <span>
          {LOCK_TEXT}: {detail}
        </span>
      ) : (
        LOCK_TEXT
      )}
    </span>
  );
}

export function DefaultNote(): React.JSX.Element {
  return <span className="badge tone-info org-default">Organisation default</span>;
}

/** Whether the organisation's default of `key` is in force (the person has not changed it). */
export function isDefaulted(view: PolicyView, key: ManagedSettingKey): boolean {
  return view.managed?.defaulted.includes(key) === true;
}

/** Whether the organisation locked this server's switch (`autoApprove`), or, with `part`, that part of its settings. */
export function lockedServer(
  view: PolicyView,
  server: string,
  part: 'autoApprove' | 'sampling' = 'autoApprove',
): boolean {
  const servers = view.managed?.locked.servers;
  if (servers === undefined || !Object.hasOwn(servers, server)) return false;
  const lock = servers[server];
  return part === 'autoApprove'
    ? lock?.autoApprove !== undefined
    : lock?.sampling !== undefined || lock?.samplingTokenBudget !== undefined;
}

export function lockedTool(view: PolicyView, server: string, tool: string): boolean {
  const byTool = view.managed?.locked.tools?.[server];
  return byTool !== undefined && Object.hasOwn(byTool, tool);
}

/** The organisation's default for a server's switch or a tool's setting, when that default is in force. */
export function defaultedServer(view: PolicyView, server: string): boolean {
  const servers = view.managed?.defaults.servers;
  return isDefaulted(view, 'servers') && servers !== undefined && Object.hasOwn(servers, server);
}

export function defaultedTool(view: PolicyView, server: string, tool: string): ToolApprovalSetting | undefined {
  const byTool = view.managed?.defaults.tools?.[server];
  return isDefaulted(view, 'tools') && byTool !== undefined && Object.hasOwn(byTool, tool) ? byTool[tool] : undefined;
}

/** A stable id for a lock note, from its parts (ids cannot hold spaces). */
export function lockId(...parts: string[]): string {
  return `lock-${parts.map((part) => part.replace(/[^A-Za-z0-9_-]/g, '_')).join('-')}`;
}

/** A reset without the organisation's locked servers and tools (policy.update would refuse the whole change). */
export function withoutLocked(change: PolicyUpdate, view: PolicyView): PolicyUpdate {
  return {
    servers: Object.fromEntries(
      Object.entries(change.servers ?? {}).filter(
        ([server]) => !lockedServer(view, server) && !lockedServer(view, server, 'sampling'),
      ),
    ),
    tools: Object.fromEntries(
      Object.entries(change.tools ?? {}).map(([server, byTool]) => [
        server,
        Object.fromEntries(Object.entries(byTool).filter(([tool]) => !lockedTool(view, server, tool))),
      ]),
    ),
  };
}
