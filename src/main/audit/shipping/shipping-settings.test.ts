import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditShippingSettingsSchema } from '../../../shared/audit-shipping';
import { openFileSecretStore } from '../../settings/secret-store';
import { openSettingsStore } from '../../settings/settings-store';
import { createShippingSettings } from './shipping-settings';

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function open(settings?: unknown) {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-shipping-settings-'));
  const file = path.join(dir, 'settings.json');
  if (settings !== undefined) fs.writeFileSync(file, JSON.stringify(settings));
  return createShippingSettings({
    settings: openSettingsStore(file),
    secrets: openFileSecretStore(path.join(dir, 'secrets.json')),
    defaults: AuditShippingSettingsSchema.parse({
      sinks: [{ type: 'syslog', id: 'org-default', host: '127.0.0.1', port: 9 }],
    }),
  });
}

describe("the organisation's default audit sinks", () => {
  it('are marked as its defaults while settings.json has no audit shipping of its own, and become the person’s on a change', () => {
    const shipping = open();
    expect(shipping.list()).toMatchObject({ sinks: [{ id: 'org-default' }], defaulted: true });
    const saved = shipping.save({ sink: { type: 'syslog', id: 'mine', host: '127.0.0.1', port: 10 } });
    expect(saved.defaulted).toBeUndefined();
    expect(saved.sinks.map((sink) => sink.id)).toEqual(['org-default', 'mine']);
    expect(shipping.list().defaulted).toBeUndefined();
  });

  it('are not marked when the person has audit shipping of their own', () => {
    const shipping = open({ auditShipping: { sinks: [] } });
    expect(shipping.list()).toEqual({ sinks: [], locked: [] });
  });
});
