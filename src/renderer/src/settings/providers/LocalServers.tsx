import { useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import { LOCAL_MODEL_SERVERS, type ProviderInfo, type ProviderTestOutput } from '../../../../shared/llm';
import { Notice, errorText } from '../common';

type Offer = (typeof LOCAL_MODEL_SERVERS)[number];
type Probe = { state: 'testing' } | { state: 'done'; result: ProviderTestOutput };

/**
 * The model servers people run on their own machine (docs/user/providers.md, "Local models"): Ollama and LM Studio
 * at their default addresses, each with a Test that says whether anything listens there before it is added, and
 * Add, which configures it as an OpenAI-compatible provider without a key.
 */
export function LocalServers({
  api,
  providers,
  onAdded,
}: {
  api: WorkbenchApi;
  providers: readonly ProviderInfo[];
  onAdded: () => void;
}): React.JSX.Element {
  const [probes, setProbes] = useState<Record<string, Probe>>({});
  const [error, setError] = useState<string | null>(null);

  const test = async (offer: Offer): Promise<void> => {
    setProbes((current) => ({ ...current, [offer.id]: { state: 'testing' } }));
    try {
      const result = await api.providers.probeLocal({ baseURL: offer.baseURL, label: offer.label });
      setProbes((current) => ({ ...current, [offer.id]: { state: 'done', result } }));
    } catch (failure) {
      const result: ProviderTestOutput = { ok: false, error: { code: 'internal', message: errorText(failure) } };
      setProbes((current) => ({ ...current, [offer.id]: { state: 'done', result } }));
    }
  };

  const add = async (offer: Offer): Promise<void> => {
    setError(null);
    try {
      await api.providers.add({ kind: 'openai-compatible', label: offer.label, baseURL: offer.baseURL });
      onAdded();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <section className="settings-section" aria-labelledby="local-servers-title" data-testid="local-servers">
      <h3 id="local-servers-title">Local models</h3>
      <p className="muted small">
        Models that run on this machine: nothing you type leaves it. Start the server, test it here, then add it.
      </p>
      {error && <Notice kind="error">{error}</Notice>}
      <ul className="card-list" aria-label="Local model servers">
        {LOCAL_MODEL_SERVERS.map((offer) => {
          const probe = probes[offer.id];
          const added = providers.some((provider) => provider.baseURL === offer.baseURL);
          return (
            <li key={offer.id} className="card" aria-label={offer.label}>
              <div className="card-main">
                <div className="card-title-row">
                  <span className="card-title">{offer.label}</span>
                  {added && <span className="badge tone-good">Added</span>}
                </div>
                <dl className="facts">
                  <div>
                    <dt>Default address</dt>
                    <dd className="mono">{offer.baseURL}</dd>
                  </div>
                </dl>
                <div aria-live="polite">
                  {probe?.state === 'testing' && <p className="muted small">Testing…</p>}
                  {probe?.state === 'done' &&
                    (probe.result.ok ? (
                      <Notice kind="success">
                        {offer.label} is running — {probe.result.modelCount} model
                        {probe.result.modelCount === 1 ? '' : 's'} available.
                      </Notice>
                    ) : (
                      <Notice kind="error">{probe.result.error.message}</Notice>
                    ))}
                </div>
              </div>
              <div className="card-actions">
                <button
                  type="button"
                  className="button"
                  onClick={() => void test(offer)}
                  disabled={probe?.state === 'testing'}
                  aria-label={`Test ${offer.label}`}
                >
                  Test
                </button>
                {!added && (
                  <button
                    type="button"
                    className="button"
                    onClick={() => void add(offer)}
                    aria-label={`Add ${offer.label}`}
                  >
                    Add
                  </button>
                )}
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
