import { useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import {
  KINDS_THAT_NEED_A_KEY,
  PROVIDER_KIND_LABELS,
  ProviderKindSchema,
  type ModelInfo,
  type ProviderInfo,
  type ProviderKind,
} from '../../../../shared/llm';
import { Field, Modal, Notice } from '../common';
import { fieldProblems } from '../field-problems';

export interface ProviderFormProps {
  api: WorkbenchApi;
  /** Null adds a new provider. */
  provider: ProviderInfo | null;
  onClose(): void;
  onSaved(): void;
}

/** Add or edit a provider. The key field is write-only: it starts empty, and typing replaces the stored key. */
export function ProviderForm({ api, provider, onClose, onSaved }: ProviderFormProps): React.JSX.Element {
  const [kind, setKind] = useState<ProviderKind>(provider?.kind ?? 'openai');
  const [label, setLabel] = useState(provider?.label ?? '');
  const [baseURL, setBaseURL] = useState(provider?.baseURL ?? '');
  const [apiKey, setApiKey] = useState('');
  const [removeKey, setRemoveKey] = useState(false);
  const [defaultModel, setDefaultModel] = useState(provider?.defaultModel ?? '');
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [modelsError, setModelsError] = useState<string | null>(null);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const needsKey = KINDS_THAT_NEED_A_KEY.includes(kind);
  const showBaseURL = kind !== 'demo';
  const showKey = kind !== 'demo';

  const loadModels = async (): Promise<void> => {
    if (!provider) return;
    setModelsError(null);
    try {
      setModels((await api.providers.models({ id: provider.id })).models);
    } catch (failure) {
      setModelsError(fieldProblems(failure)[''] ?? 'The model list could not be loaded.');
    }
  };

  const save = async (): Promise<void> => {
    setBusy(true);
    setProblems({});
    try {
      if (provider) {
        await api.providers.update({
          id: provider.id,
          label: kind === 'demo' ? undefined : label.trim() || provider.label,
          baseURL: baseURL.trim() ? baseURL.trim() : provider.baseURL ? null : undefined,
          defaultModel: defaultModel.trim() ? defaultModel.trim() : provider.defaultModel ? null : undefined,
          apiKey: apiKey.trim() ? apiKey : removeKey ? null : undefined,
        });
      } else {
        await api.providers.add({
          kind,
          label: kind === 'demo' ? undefined : label.trim() || undefined,
          baseURL: baseURL.trim() || undefined,
          defaultModel: defaultModel.trim() || undefined,
          apiKey: apiKey.trim() || undefined,
        });
      }
      onSaved();
      onClose();
    } catch (failure) {
      setProblems(fieldProblems(failure));
      setBusy(false);
    }
  };

  return (
    <Modal
      title={provider ? `Edit ${provider.label}` : 'Add a provider'}
      onClose={onClose}
      testId="provider-form"
      actions={
        <>
          <button type="button" className="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" form="provider-form" className="button button-primary" disabled={busy}>
            {provider ? 'Save' : 'Add provider'}
          </button>
        </>
      }
    >
      <form
        noValidate
        id="provider-form"
        className="form"
        autoComplete="off"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <Field
          label="Kind"
          hint={provider ? 'The kind cannot change; add another provider instead.' : undefined}
          problem={problems.kind}
        >
          {(props) => (
            <select
              {...props}
              value={kind}
              disabled={Boolean(provider)}
              onChange={(event) => setKind(ProviderKindSchema.parse(event.target.value))}
            >
              {ProviderKindSchema.options.map((option) => (
                <option key={option} value={option}>
                  {PROVIDER_KIND_LABELS[option]}
                </option>
              ))}
            </select>
          )}
        </Field>
        {kind === 'demo' ? (
          <p className="muted small">
            The Demo provider answers from a script, offline, and keeps its name so nobody takes it for a model.
          </p>
        ) : (
          <Field label="Name" hint="How chats show it." problem={problems.label}>
            {(props) => (
              <input
                {...props}
                value={label}
                placeholder={PROVIDER_KIND_LABELS[kind]}
                onChange={(event) => setLabel(event.target.value)}
                autoFocus
              />
            )}
          </Field>
        )}
        {showBaseURL && (
          <Field
            label={kind === 'openai-compatible' ? 'Base URL' : 'Base URL (optional)'}
            hint={
              kind === 'openai-compatible'
                ? 'For example http://localhost:11434/v1 for Ollama.'
                : 'Only for a proxy or gateway in front of the official API.'
            }
            problem={problems.baseURL}
          >
            {(props) => (
              <input
                {...props}
                type="url"
                className="mono"
                value={baseURL}
                required={kind === 'openai-compatible'}
                placeholder={kind === 'openai-compatible' ? 'http://localhost:11434/v1' : 'https://…'}
                onChange={(event) => setBaseURL(event.target.value)}
              />
            )}
          </Field>
        )}
        {showKey && (
          <Field
            label={needsKey ? 'API key' : 'API key (optional)'}
            hint={
              provider?.hasApiKey
                ? 'A key is set. It is never shown; type a new one to replace it.'
                : 'Stored encrypted on this machine; never shown again.'
            }
            problem={problems.apiKey}
          >
            {(props) => (
              <div className="key-input">
                <input
                  {...props}
                  type="password"
                  className="mono"
                  value={apiKey}
                  placeholder={
                    provider?.hasApiKey
                      ? '•••••••• set'
                      : needsKey
                        ? 'Paste your key'
                        : 'Not needed for most local servers'
                  }
                  disabled={removeKey}
                  onChange={(event) => setApiKey(event.target.value)}
                />
                {provider?.hasApiKey && (
                  <label className="inline-check">
                    <input
                      type="checkbox"
                      checked={removeKey}
                      onChange={(event) => setRemoveKey(event.target.checked)}
                    />{' '}
                    Remove the key
                  </label>
                )}
              </div>
            )}
          </Field>
        )}
        <Field
          label="Default model"
          hint={
            provider
              ? 'New chats with this provider start with it.'
              : 'You can pick from the model list once the provider is added.'
          }
          problem={problems.defaultModel}
        >
          {(props) => (
            <div className="inline-controls">
              <input
                {...props}
                className="mono"
                list="provider-models"
                value={defaultModel}
                onChange={(event) => setDefaultModel(event.target.value)}
              />
              {provider && (
                <button type="button" className="button" onClick={() => void loadModels()}>
                  Load models
                </button>
              )}
              <datalist id="provider-models">
                {models?.map((model) => (
                  <option key={model.id} value={model.id} label={model.label} />
                ))}
              </datalist>
            </div>
          )}
        </Field>
        {models && (
          <p className="muted small">{models.length} models loaded — pick one from the field's suggestions.</p>
        )}
        {modelsError && <Notice kind="error">{modelsError}</Notice>}
        {problems[''] && <Notice kind="error">{problems['']}</Notice>}
      </form>
    </Modal>
  );
}
