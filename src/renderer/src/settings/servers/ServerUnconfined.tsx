import { useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { SandboxView } from '../../../../shared/sandbox';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { formatTime } from '../common';

/**
 * Letting one local server run unconfined, or containing it again (docs/user/sandbox.md#unconfined): asked in a dialog
 * that says what it means, recorded in the audit log, bound to the server's name and what it runs now, and refused
 * where the organisation requires containment or locks profiles.
 */
export function ServerUnconfined({
  api,
  view,
  onChanged,
  onError,
}: {
  api: WorkbenchApi;
  view: SandboxView;
  onChanged: (next: SandboxView) => void;
  onError: (failure: unknown) => void;
}): React.JSX.Element {
  const [asking, setAsking] = useState(false);
  const allowance = view.unconfined;
  const change = (unconfined: boolean): Promise<void> =>
    api.mcp.sandboxUnconfined({ name: view.name, unconfined }).then(onChanged);
  const orgForbids = view.limits.requireContainment || view.limits.lockProfiles;
  return (
    <section aria-label="Run unconfined" className="sandbox-unconfined">
      <h4 className="small-heading">Run unconfined</h4>
      {allowance?.applies ? (
        <p className="small">
          You allowed it to run outside the sandbox{allowance.since ? ` on ${formatTime(allowance.since)}` : ''}, while
          it runs <span className="mono">{allowance.description}</span>. It has all of your rights.
        </p>
      ) : allowance ? (
        <p className="small">
          You allowed it to run unconfined while it ran <span className="mono">{allowance.description}</span>.{' '}
          {allowance.note}
        </p>
      ) : (
        <p className="muted small">
          {orgForbids
            ? view.limits.requireContainment
              ? 'Your organisation requires every server to be contained: none may run unconfined.'
              : 'Your organisation locks the sandbox profiles: none may run unconfined.'
            : 'Only for a server you trust completely that cannot work in its sandbox.'}
        </p>
      )}
      {allowance ? (
        <button
          type="button"
          className="button"
          onClick={() => {
            change(false).catch(onError);
          }}
        >
          Contain it again
        </button>
      ) : (
        !orgForbids && (
          <button type="button" className="button button-quiet-danger" onClick={() => setAsking(true)}>
            Run unconfined…
          </button>
        )
      )}
      {asking && (
        <ConfirmDialog
          title={`Run ${view.name} unconfined?`}
          confirmLabel="Run unconfined"
          onCancel={() => setAsking(false)}
          onConfirm={async () => {
            await change(true);
            setAsking(false);
          }}
        >
          It then runs outside any sandbox, marked Not contained: it can read and change every file you can (your keys,
          your browser&rsquo;s cookies, every project), reach any host and start any program, and none of it is reported
          as a block. This holds for what it runs now, under this name: renamed or pointed at another command, it is
          contained again. The change is recorded in the audit log and the server restarts.
        </ConfirmDialog>
      )}
    </section>
  );
}
