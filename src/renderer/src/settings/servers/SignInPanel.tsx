import { useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { McpServerView, McpSignInOutput } from '../../../../shared/mcp';
import { errorText } from '../common';

/**
 * An OAuth server that waits for the person (`needs-sign-in`): why, and a **Sign in** button. The sign-in page opens
 * in the system browser; where none could be opened, its address is shown to open by hand (docs/user/mcp-oauth.md).
 */
export function SignInPanel({ api, server }: { api: WorkbenchApi; server: McpServerView }): React.JSX.Element {
  const [started, setStarted] = useState<McpSignInOutput | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const signIn = async (): Promise<void> => {
    setBusy(true);
    setProblem(null);
    try {
      setStarted(await api.mcp.signIn({ name: server.name }));
    } catch (failure) {
      setProblem(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="sign-in-panel" role="region" aria-label="Sign-in needed" data-testid="sign-in-panel">
      <div className="sign-in-panel-text">
        <strong>Sign-in needed</strong>
        <span>{server.status.message ?? 'Sign in to use this server.'}</span>
        {!started && (
          <span className="muted">
            Your browser opens the server&apos;s sign-in page. The tokens it gives stay in AI Workbench&apos;s secret
            store.
          </span>
        )}
        {started && !started.openedBrowser && (
          <span>
            Open this page to sign in:{' '}
            <a
              className="mono sign-in-link"
              href={started.authorizationUrl}
              target="_blank"
              rel="noreferrer"
              data-testid="sign-in-link"
            >
              {new URL(started.authorizationUrl).host}/…
            </a>
          </span>
        )}
        {problem && <span className="sign-in-problem">{problem}</span>}
      </div>
      <button type="button" className="button button-primary" disabled={busy} onClick={() => void signIn()}>
        {started ? 'Sign in again' : 'Sign in'}
      </button>
    </div>
  );
}
