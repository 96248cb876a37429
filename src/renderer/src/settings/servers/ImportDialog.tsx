import { useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { McpImportPreview, McpImportSource } from '../../../../shared/mcp';
import { Field, Modal, Notice, errorText } from '../common';

type SourceChoice = 'claude-desktop' | 'cursor' | 'vscode' | 'file';

const APP_LABELS: Record<Exclude<SourceChoice, 'file'>, string> = {
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
  vscode: 'VS Code',
};

/** Import servers from another app's config, or from a file: a preview first, then only the servers ticked. */
export function ImportDialog({
  api,
  onClose,
  onImported,
}: {
  api: WorkbenchApi;
  onClose(): void;
  onImported(): void;
}): React.JSX.Element {
  const [choice, setChoice] = useState<SourceChoice>('claude-desktop');
  const [file, setFile] = useState<{ fileName: string; text: string } | null>(null);
  const [source, setSource] = useState<McpImportSource | null>(null);
  const [preview, setPreview] = useState<McpImportPreview | null>(null);
  const [chosen, setChosen] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const runPreview = async (): Promise<void> => {
    const next: McpImportSource | null = choice === 'file' ? file : { app: choice };
    if (!next) {
      setError('Choose a file first.');
      return;
    }
    setBusy(true);
    setError(null);
    setPreview(null);
    try {
      const found = await api.mcp.importPreview({ source: next });
      setSource(next);
      setPreview(found);
      setChosen(found.add.map((entry) => entry.originalName));
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  const runImport = async (): Promise<void> => {
    if (!source) return;
    setBusy(true);
    setError(null);
    try {
      const done = await api.mcp.import({ source, only: chosen });
      setResult(
        `Imported ${done.added.length} server${done.added.length === 1 ? '' : 's'}${done.added.length ? `: ${done.added.join(', ')}` : ''}.`,
      );
      setPreview(null);
      onImported();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      title="Import MCP servers"
      wide
      onClose={onClose}
      testId="import-dialog"
      actions={
        result ? (
          <button type="button" className="button button-primary" onClick={onClose} autoFocus>
            Done
          </button>
        ) : (
          <>
            <button type="button" className="button" onClick={onClose} disabled={busy}>
              Cancel
            </button>
            {preview ? (
              <button
                type="button"
                className="button button-primary"
                disabled={busy || chosen.length === 0}
                onClick={() => void runImport()}
              >
                Import {chosen.length} server{chosen.length === 1 ? '' : 's'}
              </button>
            ) : (
              <button type="button" className="button button-primary" disabled={busy} onClick={() => void runPreview()}>
                Preview
              </button>
            )}
          </>
        )
      }
    >
      {!result && (
        <div className="form">
          <Field label="Import from">
            {(props) => (
              <select
                {...props}
                value={choice}
                onChange={(event) => {
                  setChoice(event.target.value as SourceChoice);
                  setPreview(null);
                }}
              >
                {Object.entries(APP_LABELS).map(([value, label]) => (
                  <option key={value} value={value}>
                    {label} (its usual config file)
                  </option>
                ))}
                <option value="file">A config file…</option>
              </select>
            )}
          </Field>
          {choice === 'file' && (
            <Field label="Config file" hint="A JSON file with an mcpServers (or VS Code servers) section.">
              {(props) => (
                <input
                  {...props}
                  type="file"
                  accept=".json,application/json"
                  onChange={(event) => {
                    const picked = event.target.files?.[0];
                    setPreview(null);
                    if (!picked) return setFile(null);
                    void picked.text().then((text) => setFile({ fileName: picked.name, text }));
                  }}
                />
              )}
            </Field>
          )}
        </div>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {result && <Notice kind="success">{result}</Notice>}
      {preview && (
        <div className="import-preview" aria-label="Import preview">
          <p className="muted small">
            From <span className="mono">{preview.file}</span>. Nothing is added until you press Import.
          </p>
          {preview.add.length === 0 && <p>No server in this file can be imported.</p>}
          {preview.add.length > 0 && (
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">
                    <span className="visually-hidden">Import</span>
                  </th>
                  <th scope="col">Name here</th>
                  <th scope="col">Runs</th>
                  <th scope="col">Secrets</th>
                </tr>
              </thead>
              <tbody>
                {preview.add.map((entry) => (
                  <tr key={entry.originalName}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Import ${entry.originalName}`}
                        checked={chosen.includes(entry.originalName)}
                        onChange={(event) =>
                          setChosen((current) =>
                            event.target.checked
                              ? [...current, entry.originalName]
                              : current.filter((name) => name !== entry.originalName),
                          )
                        }
                      />
                    </td>
                    <td>
                      {entry.name}
                      {entry.renamed && (
                        <div className="muted small">renamed from “{entry.originalName}” (name taken)</div>
                      )}
                      {!entry.enabled && <div className="muted small">disabled in the file</div>}
                    </td>
                    <td className="mono small">{entry.summary}</td>
                    <td className="mono small">{[...entry.envKeys, ...entry.headerKeys].join(', ') || '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {preview.skip.length > 0 && (
            <>
              <h3 className="small-heading">Skipped</h3>
              <ul className="skip-list">
                {preview.skip.map((entry) => (
                  <li key={entry.name}>
                    <span className="mono">{entry.name}</span> — {entry.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </Modal>
  );
}
