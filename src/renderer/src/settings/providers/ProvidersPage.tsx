import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useCallback, useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import {
  PROVIDER_KIND_LABELS,
  type ModelInfo,
  type ProviderInfo,
  type ProviderTestOutput,
} from '../../../../shared/llm';
import { Notice, PageHeader, errorText } from '../common';
import { LocalServers } from './LocalServers';
import { ProviderForm } from './ProviderForm';

type TestState = { state: 'testing' } | { state: 'done'; result: ProviderTestOutput };
type ModelsState = { state: 'loading' } | { state: 'done'; models: ModelInfo[] } | { state: 'failed'; error: string };

/** Providers: what is configured, whether a key is set (never the key), test connection and the model list. */
export function ProvidersPage({ api }: { api: WorkbenchApi }): React.JSX.Element {
  const [providers, setProviders] = useState<ProviderInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<ProviderInfo | 'new' | null>(null);
  const [removing, setRemoving] = useState<ProviderInfo | null>(null);
  const [tests, setTests] = useState<Record<string, TestState>>({});
  const [models, setModels] = useState<Record<string, ModelsState>>({});

  const load = useCallback(
    () =>
      api.providers.list().then(
        (result) => setProviders(result.providers),
        (failure: unknown) => setError(errorText(failure)),
      ),
    [api],
  );

  useEffect(() => {
    void load();
    return api.providers.onDidChange(({ providers: next }) => setProviders(next));
  }, [api, load]);

  const test = async (provider: ProviderInfo): Promise<void> => {
    setTests((current) => ({ ...current, [provider.id]: { state: 'testing' } }));
    try {
      const result = await api.providers.test({ id: provider.id });
      setTests((current) => ({ ...current, [provider.id]: { state: 'done', result } }));
    } catch (failure) {
      const result: ProviderTestOutput = { ok: false, error: { code: 'internal', message: errorText(failure) } };
      setTests((current) => ({ ...current, [provider.id]: { state: 'done', result } }));
    }
  };

  const toggleModels = async (provider: ProviderInfo): Promise<void> => {
    if (models[provider.id]) {
      setModels(({ [provider.id]: _dropped, ...rest }) => rest);
      return;
    }
    setModels((current) => ({ ...current, [provider.id]: { state: 'loading' } }));
    try {
      const list = (await api.providers.models({ id: provider.id })).models;
      setModels((current) => ({ ...current, [provider.id]: { state: 'done', models: list } }));
    } catch (failure) {
      setModels((current) => ({ ...current, [provider.id]: { state: 'failed', error: errorText(failure) } }));
    }
  };

  return (
    <div className="settings-page" data-testid="providers-page">
      <PageHeader
        title="Providers"
        description="The language models chats can use. Keys are stored encrypted on this machine and are never shown again."
        actions={
          <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
            Add provider
          </button>
        }
      />
      {error && <Notice kind="error">{error}</Notice>}
      {providers === null && !error && <p className="muted">Loading…</p>}
      {providers?.length === 0 && (
        <div className="settings-empty">
          <p>No provider yet. Add one to start chatting — the Demo provider works offline without a key.</p>
        </div>
      )}
      <ul className="card-list" aria-label="Providers">
        {providers?.map((provider) => {
          const testState = tests[provider.id];
          const modelState = models[provider.id];
          return (
            <li key={provider.id} className="card" aria-label={provider.label}>
              <div className="card-main">
                <div className="card-title-row">
                  <span className="card-title">{provider.label}</span>
                  {provider.label !== PROVIDER_KIND_LABELS[provider.kind] && (
                    <span className="badge">{PROVIDER_KIND_LABELS[provider.kind]}</span>
                  )}
                </div>
                <dl className="facts">
                  <div>
                    <dt>API key</dt>
                    <dd data-testid="key-state">
                      {provider.kind === 'demo' ? (
                        <span className="muted">None needed — it runs offline</span>
                      ) : provider.hasApiKey ? (
                        <span className="key-set">Set</span>
                      ) : provider.apiKeyRequired ? (
                        <span className="key-missing">Not set — required</span>
                      ) : (
                        <span className="muted">Not set</span>
                      )}
                    </dd>
                  </div>
                  {provider.baseURL && (
                    <div>
                      <dt>Base URL</dt>
                      <dd className="mono">{provider.baseURL}</dd>
                    </div>
                  )}
                  <div>
                    <dt>Default model</dt>
                    <dd className={provider.defaultModel ? 'mono' : 'muted'}>{provider.defaultModel ?? 'None'}</dd>
                  </div>
                </dl>
                {testState?.state === 'testing' && <p className="muted small">Testing the connection…</p>}
                {testState?.state === 'done' &&
                  (testState.result.ok ? (
                    <Notice kind="success">
                      Connected — {testState.result.modelCount} model{testState.result.modelCount === 1 ? '' : 's'}{' '}
                      available.
                    </Notice>
                  ) : (
                    <Notice kind="error">Connection failed: {testState.result.error.message}</Notice>
                  ))}
                {modelState && (
                  <div className="models" aria-label={`Models of ${provider.label}`}>
                    {modelState.state === 'loading' && <p className="muted small">Loading models…</p>}
                    {modelState.state === 'failed' && <Notice kind="error">{modelState.error}</Notice>}
                    {modelState.state === 'done' &&
                      (modelState.models.length === 0 ? (
                        <p className="muted small">The provider lists no models.</p>
                      ) : (
                        <ul className="model-list">
                          {modelState.models.map((model) => (
                            <li key={model.id}>
                              <span className="mono">{model.id}</span>
                              {model.label && model.label !== model.id && (
                                <span className="muted"> — {model.label}</span>
                              )}
                              {model.contextWindow && (
                                <span className="muted small"> · {model.contextWindow.toLocaleString()} tokens</span>
                              )}
                            </li>
                          ))}
                        </ul>
                      ))}
                  </div>
                )}
              </div>
              <div className="card-actions">
                <button
                  type="button"
                  className="button"
                  onClick={() => void test(provider)}
                  disabled={testState?.state === 'testing'}
                >
                  Test connection
                </button>
                <button
                  type="button"
                  className="button"
                  aria-expanded={Boolean(modelState)}
                  onClick={() => void toggleModels(provider)}
                >
                  {modelState ? 'Hide models' : 'Models'}
                </button>
                <button
                  type="button"
                  className="button"
                  onClick={() => setEditing(provider)}
                  aria-label={`Edit ${provider.label}`}
                >
                  Edit
                </button>
                <button
                  type="button"
                  className="button button-quiet-danger"
                  onClick={() => setRemoving(provider)}
                  aria-label={`Remove ${provider.label}`}
                >
                  Remove
                </button>
              </div>
            </li>
          );
        })}
      </ul>
      {providers && <LocalServers api={api} providers={providers} onAdded={() => void load()} />}
      {editing && (
        <ProviderForm
          api={api}
          provider={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => void load()}
        />
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.label}?`}
          confirmLabel="Remove"
          onCancel={() => setRemoving(null)}
          onConfirm={async () => {
            await api.providers.remove({ id: removing.id });
            setRemoving(null);
            await load();
          }}
        >
          Its settings and its stored key are deleted. Chats that use it keep their messages but need another provider
          to continue.
        </ConfirmDialog>
      )}
    </div>
  );
}
