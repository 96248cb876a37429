import {
  AUDIT_SHIPPING_SECTION,
  AuditShippingSettingsSchema,
  type AuditCheckpointSettings,
  type AuditShippingSettings,
  type AuditShippingSinks,
  type AuditSinkConfig,
  type AuditSinkSaveInput,
  type AuditSinkView,
} from '../../../shared/audit-shipping';
import { WorkbenchError } from '../../errors';
import type { SecretStore } from '../../settings/secret-store';
import type { SettingsStore } from '../../settings/settings-store';
import type { ShippingTarget } from './audit-shipper';

/**
 * The person's audit sinks: the `auditShipping` settings section, plus the OTLP headers' values in the secret
 * store (`auditShipping.<sink>.headers.<name>`; they may carry API keys, so they never go into settings.json
 * and never come back out through the contract). Every change writes the secrets first, then the settings,
 * so the shipper that restarts on the settings' change finds them.
 */
export interface ShippingSettings {
  list(): AuditShippingSinks;
  /** Adds a sink, or replaces `previousId`; throws `already_exists` for an id taken, `not_found` for a previousId that is not there. */
  save(input: AuditSinkSaveInput): AuditShippingSinks;
  /** Throws `not_found`. */
  remove(id: string): AuditShippingSinks;
  /** What the shipper ships to: every configured sink with its header values. */
  targets(): ShippingTarget[];
  checkpoints(): AuditCheckpointSettings;
  setCheckpoints(change: Partial<AuditCheckpointSettings>): AuditCheckpointSettings;
  onDidChange(listener: () => void): () => void;
}

const headerPrefix = (sinkId: string): string => `${AUDIT_SHIPPING_SECTION}.${sinkId}.headers.`;

export interface ShippingSettingsOptions {
  settings: SettingsStore;
  secrets: SecretStore;
  /** The organisation's defaults, which stand in for a missing section (docs/user/organisation-policy.md). */
  defaults?: AuditShippingSettings | undefined;
  /** The organisation's locked sinks: they always ship, and a sink of the person's with the same id gives way. */
  lockedSinks?: readonly ShippingTarget[] | undefined;
}

export function createShippingSettings({
  settings,
  secrets,
  defaults,
  lockedSinks = [],
}: ShippingSettingsOptions): ShippingSettings {
  const fallback = defaults ?? AuditShippingSettingsSchema.parse({});
  const section = settings.section(AUDIT_SHIPPING_SECTION, AuditShippingSettingsSchema, fallback);
  const headerNames = (sinkId: string): string[] =>
    secrets
      .keys(headerPrefix(sinkId))
      .map((key) => key.slice(headerPrefix(sinkId).length))
      .sort();
  const view = (config: AuditSinkConfig): AuditSinkView =>
    config.type === 'otlp' ? { ...config, headerNames: headerNames(config.id) } : config;
  // A locked sink's header values come from the managed policy file: only their names are shown.
  const lockedViews: AuditSinkView[] = lockedSinks.map(({ config }) => {
    if (config.type !== 'otlp') return config;
    const { headers = {}, ...rest } = config;
    return { ...rest, headerNames: Object.keys(headers).sort() };
  });
  const list = (value: AuditShippingSettings = section.get()): AuditShippingSinks => ({
    sinks: value.sinks.map(view),
    locked: lockedViews,
    // The section stands in with the very defaults object while settings.json has no section of its own.
    ...(defaults !== undefined && defaults.sinks.length > 0 && value === fallback ? { defaulted: true } : {}),
  });
  const refuseLocked = (id: string): void => {
    if (lockedSinks.some((locked) => locked.config.id === id)) {
      const message = `The audit sink "${id}" is set by your organisation: it cannot be changed or removed here.`;
      // Named as the id's problem, so that a form shows it under its Id field (settings/field-problems.ts).
      throw new WorkbenchError('locked', message, { issues: [{ path: 'sink.id', message }] });
    }
  };
  const dropHeaders = (sinkId: string): void => {
    for (const key of secrets.keys(headerPrefix(sinkId))) secrets.delete(key);
  };

  return {
    list: () => list(),
    save({ previousId, sink: input, headers }) {
      const sink = AuditShippingSettingsSchema.parse({ sinks: [input] }).sinks[0] as AuditSinkConfig;
      refuseLocked(sink.id);
      if (previousId !== undefined) refuseLocked(previousId);
      const current = section.get().sinks;
      if (previousId !== undefined && !current.some((existing) => existing.id === previousId)) {
        throw new WorkbenchError('not_found', `There is no audit sink "${previousId}".`);
      }
      if (sink.id !== previousId && current.some((existing) => existing.id === sink.id)) {
        throw new WorkbenchError('already_exists', `An audit sink is already called "${sink.id}".`, {
          issues: [{ path: 'sink.id', message: 'is taken' }],
        });
      }
      if (headers !== undefined && Object.keys(headers).length > 0 && sink.type !== 'otlp') {
        throw new WorkbenchError('invalid_input', 'Only an OTLP sink sends HTTP headers.');
      }
      // The headers move with a renamed sink; a sink that is no longer OTLP keeps none.
      if (previousId !== undefined && previousId !== sink.id) {
        for (const name of headerNames(previousId)) {
          const value = secrets.get(`${headerPrefix(previousId)}${name}`);
          if (value !== undefined && sink.type === 'otlp') secrets.set(`${headerPrefix(sink.id)}${name}`, value);
        }
        dropHeaders(previousId);
      }
      if (sink.type !== 'otlp') dropHeaders(sink.id);
      for (const [name, value] of Object.entries(headers ?? {})) {
        if (value === null) secrets.delete(`${headerPrefix(sink.id)}${name}`);
        else secrets.set(`${headerPrefix(sink.id)}${name}`, value);
      }
      const next = section.update((value) => ({
        ...value,
        sinks:
          previousId === undefined
            ? [...value.sinks, sink]
            : value.sinks.map((existing) => (existing.id === previousId ? sink : existing)),
      }));
      return list(next);
    },
    remove(id) {
      refuseLocked(id);
      if (!section.get().sinks.some((sink) => sink.id === id))
        throw new WorkbenchError('not_found', `There is no audit sink "${id}".`);
      dropHeaders(id);
      return list(section.update((value) => ({ ...value, sinks: value.sinks.filter((sink) => sink.id !== id) })));
    },
    checkpoints: () => section.get().checkpoints,
    setCheckpoints(change) {
      return section.update((value) => ({ ...value, checkpoints: { ...value.checkpoints, ...change } })).checkpoints;
    },
    targets() {
      const own = section.get().sinks.filter((config) => !lockedSinks.some((locked) => locked.config.id === config.id));
      return [
        ...lockedSinks,
        ...own.map((config) => ({
          config:
            config.type === 'otlp'
              ? {
                  ...config,
                  headers: Object.fromEntries(
                    headerNames(config.id).map((name) => [
                      name,
                      secrets.get(`${headerPrefix(config.id)}${name}`) ?? '',
                    ]),
                  ),
                }
              : config,
          origin: 'settings' as const,
        })),
      ];
    },
    onDidChange(listener) {
      return section.onDidChange(() => listener());
    },
  };
}
