import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { AuditCheckpointsView } from '../../../../shared/audit-shipping';
import { Field, Notice, errorText } from '../common';
import { fieldProblems } from '../field-problems';

/**
 * Signed checkpoints (docs/user/audit-shipping.md#signed-checkpoints): on or off, how often, and the public key a
 * verifier needs — shown as soon as checkpoints are on (the key is made then), to hand to the security team.
 */
export function CheckpointsSection({ api }: { api: WorkbenchApi }): React.JSX.Element {
  const [view, setView] = useState<AuditCheckpointsView | null>(null);
  const [rows, setRows] = useState('');
  const [minutes, setMinutes] = useState('');
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const show = (next: AuditCheckpointsView): void => {
    setView(next);
    setRows(String(next.settings.everyRows));
    setMinutes(String(next.settings.everyMinutes));
  };

  useEffect(() => {
    api.audit.checkpoints().then(show, (failure: unknown) => setError(errorText(failure)));
  }, [api]);

  const save = async (change: { enabled?: boolean; everyRows?: number; everyMinutes?: number }): Promise<void> => {
    setBusy(true);
    setProblems({});
    setError(null);
    try {
      show(await api.audit.setCheckpoints(change));
    } catch (failure) {
      setProblems(fieldProblems(failure));
    } finally {
      setBusy(false);
    }
  };

  /** An edited value: what was refused about the last one no longer applies. */
  const edit = (set: (value: string) => void, value: string): void => {
    set(value);
    setProblems({});
  };

  const settings = view?.settings;
  const changed =
    settings !== undefined && (rows !== String(settings.everyRows) || minutes !== String(settings.everyMinutes));
  return (
    <section className="settings-section" aria-labelledby="checkpoints-title" data-testid="checkpoints-section">
      <h3 id="checkpoints-title">Signed checkpoints</h3>
      <p className="muted small">
        Every so many rows (or minutes), a checkpoint row signs the chain head with this log’s Ed25519 key, so a
        verifier holding only the public key below can prove the order and completeness of what it received (
        <span className="mono">workbench audit verify --public-key</span>).
      </p>
      {error && <Notice kind="error">{error}</Notice>}
      {settings && (
        <>
          <label className="inline-check">
            <input
              type="checkbox"
              checked={settings.enabled}
              disabled={busy}
              onChange={(event) => void save({ enabled: event.target.checked })}
            />
            <span>Write signed checkpoints</span>
          </label>
          <form
            noValidate
            className="inline-form"
            onSubmit={(event) => {
              event.preventDefault();
              void save({ everyRows: Number(rows), everyMinutes: Number(minutes) });
            }}
          >
            <div className="checkpoint-controls">
              <Field label="Every … rows" problem={problems.everyRows}>
                {(props) => (
                  <input
                    {...props}
                    type="number"
                    min={1}
                    step={1}
                    value={rows}
                    disabled={busy}
                    onChange={(event) => edit(setRows, event.target.value)}
                  />
                )}
              </Field>
              <Field label="or every … minutes" problem={problems.everyMinutes}>
                {(props) => (
                  <input
                    {...props}
                    type="number"
                    min={1}
                    step={1}
                    value={minutes}
                    disabled={busy}
                    onChange={(event) => edit(setMinutes, event.target.value)}
                  />
                )}
              </Field>
              <button type="submit" className="button" disabled={busy || !changed}>
                Save
              </button>
            </div>
          </form>
          {view?.publicKeyPem ? (
            <div className="field checkpoint-key">
              <span>
                Public key <span className="muted small mono">{view.keyId}</span>
              </span>
              <pre
                className="public-key mono"
                data-testid="checkpoint-public-key"
                tabIndex={0}
                aria-label="Checkpoint public key (PEM)"
              >
                {view.publicKeyPem}
              </pre>
            </div>
          ) : (
            <p className="muted small">
              The key is made when checkpoints are turned on; its public half then shows here.
            </p>
          )}
        </>
      )}
    </section>
  );
}
