import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import type { PolicyView } from '../../../shared/approval';
import { neverAskAllowed } from '../../../shared/never-ask';
import { errorText } from '../../../shared/error-data';
import { WarningIcon } from '../components/icons';
import { useChatMode } from './use-chat-mode';

/**
 * While approvals are off — in the settings, or in this chat ("never ask") — a banner that stays in the chat and
 * says so, with the one button that turns asking back on (docs/user/approvals.md#when-approvals-are-off).
 * Nothing is shown where the organisation's policy makes AI Workbench ask anyway.
 */
export function ApprovalsOffBanner({ api, chatId }: { api: WorkbenchApi; chatId: string }): React.JSX.Element | null {
  const view = usePolicyView(api);
  const chatMode = useChatMode(api, chatId);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (view === null) return null;
  const globalOff = view.policy.mode === 'never-ask' && neverAskAllowed(view.managed);
  const chatOff = !globalOff && chatMode === 'never-ask' && neverAskAllowed(view.managed);
  // Set here, overridden by the organisation: said where it was set (docs/user/organisation-policy.md).
  const overridden =
    !globalOff &&
    !chatOff &&
    (chatMode === 'never-ask' || view.policy.mode === 'never-ask') &&
    !neverAskAllowed(view.managed);
  if (overridden)
    return (
      <div className="approvals-off-banner is-info" role="note" data-testid="organisation-override">
        <WarningIcon size={16} />
        <p>
          <strong>
            {chatMode === 'never-ask' ? "This chat is set to 'Never ask'" : 'Approvals are off in your settings'}, but
            your organisation&apos;s policy requires approvals
          </strong>{' '}
          ({view.managed?.file}): AI Workbench asks anyway, as it would without that setting.
        </p>
      </div>
    );
  if (!globalOff && !chatOff) return null;
  // The organisation set approvals off itself: the person cannot turn them on here, and is told so.
  const lockedOff = globalOff && view.managed?.locked.mode === 'never-ask';

  const turnOn = (): void => {
    setBusy(true);
    setProblem(null);
    const done = globalOff
      ? api.policy.update({ mode: 'ask' })
      : api.approvals.setChatMode({ chatId, mode: 'use-tool-settings' });
    done.then(
      () => setBusy(false),
      (error: unknown) => {
        setBusy(false);
        setProblem(errorText(error));
      },
    );
  };

  return (
    <div
      className="approvals-off-banner"
      role="region"
      aria-label="Approvals are off"
      data-testid="approvals-off-banner"
    >
      <WarningIcon size={16} />
      <p>
        {globalOff ? (
          <>
            <strong>Approvals are off.</strong> Tool calls in every chat run without asking you; only deny rules still
            stop one.
            {lockedOff && ' Your organisation set this.'}
          </>
        ) : (
          <>
            <strong>This chat never asks.</strong> Its tool calls run without asking you, except where a deny rule stops
            one or a rule or tool setting says “Always ask”.
          </>
        )}
      </p>
      {!lockedOff && (
        <button type="button" className="button" onClick={turnOn} disabled={busy}>
          {globalOff ? 'Turn approvals on' : 'Ask again in this chat'}
        </button>
      )}
      {problem && (
        <span className="field-problem" role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}

function usePolicyView(api: WorkbenchApi): PolicyView | null {
  const [view, setView] = useState<PolicyView | null>(null);
  useEffect(() => {
    let live = true;
    api.policy.get().then(
      (result) => live && setView(result),
      () => {},
    );
    const off = api.policy.onDidChange(setView);
    return () => {
      live = false;
      off();
    };
  }, [api]);
  return view;
}
