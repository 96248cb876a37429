import { useCallback, useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { PolicyUpdate, PolicyView } from '../../../../shared/approval';
import { Notice, PageHeader, errorText } from '../common';
import { GlobalModeSection } from './GlobalModeSection';
import { GrantsSection } from './GrantsSection';
import { OrganisationIdpSection } from './OrganisationIdpSection';
import { RememberedSection } from './RememberedSection';
import { RulesSection } from './RulesSection';
import { RuleTester } from './RuleTester';
import { ServerToolSettings } from './ServerToolSettings';
import { TimeoutSection } from './TimeoutSection';

/**
 * Approvals: the global mode, per-server and per-tool settings, rules, the organisation's identity providers, chat
 * grants and the timeout.
 */
export function ApprovalsPage({ api }: { api: WorkbenchApi }): React.JSX.Element {
  const [view, setView] = useState<PolicyView | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api.policy.get().then(setView, (failure: unknown) => setError(errorText(failure)));
    return api.policy.onDidChange(setView);
  }, [api]);

  /** Applies a change; resolves with the new view or rejects with the error data (sections show it). */
  const update = useCallback(
    async (change: PolicyUpdate): Promise<PolicyView> => {
      const next = await api.policy.update(change);
      setView(next);
      return next;
    },
    [api],
  );

  // A rule's finding is shown on the rule itself, where it can be fixed.
  const pageWarnings = view?.warnings.filter((warning) => warning.ruleId === undefined) ?? [];
  return (
    <div className="settings-page" data-testid="approvals-page">
      <PageHeader
        title="Approvals"
        description="Which tool calls run on their own, which ask you first, and which never run. Deny rules always win."
      />
      {error && <Notice kind="error">{error}</Notice>}
      {!view && !error && <p className="muted">Loading…</p>}
      {view && (
        <>
          {pageWarnings.length > 0 && (
            <div className="warnings" data-testid="policy-warnings">
              {pageWarnings.map((warning) => (
                <Notice key={`${warning.kind}-${warning.serverName ?? ''}`} kind="warning">
                  {warning.message}
                </Notice>
              ))}
            </div>
          )}
          <RememberedSection view={view} update={update} />
          <GlobalModeSection view={view} update={update} />
          <TimeoutSection view={view} update={update} />
          <ServerToolSettings api={api} view={view} update={update} />
          <RulesSection view={view} update={update} />
          <OrganisationIdpSection view={view} />
          <RuleTester api={api} />
          <GrantsSection api={api} />
        </>
      )}
    </div>
  );
}
