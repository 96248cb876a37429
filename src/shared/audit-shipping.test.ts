import { describe, expect, it } from 'vitest';
import { AuditCheckpointSettingsSchema, AuditCheckpointsSetInputSchema } from './audit-shipping';

describe('the signed checkpoints settings', () => {
  it('a change names only what changes: changing the interval never turns checkpoints off', () => {
    expect(AuditCheckpointsSetInputSchema.parse({ everyRows: 250 })).toEqual({ everyRows: 250 });
    expect(AuditCheckpointsSetInputSchema.parse({ enabled: true })).toEqual({ enabled: true });
    expect(AuditCheckpointsSetInputSchema.safeParse({ everyRows: 5 }).success).toBe(false);
    expect(AuditCheckpointsSetInputSchema.safeParse({ everyRows: 250, other: 1 }).success).toBe(false);
  });

  it('the stored settings still fill in their defaults', () => {
    expect(AuditCheckpointSettingsSchema.parse({})).toEqual({ enabled: false, everyRows: 1000, everyMinutes: 60 });
  });
});
