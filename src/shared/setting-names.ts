import { z } from './zod';

/**
 * Names that can never key a settings map (servers, tools, providers, env and header names): in a plain
 * object `__proto__` sets the prototype instead of adding an entry, so zod's records drop it and a change
 * naming it would answer ok and do nothing; `constructor` and `prototype` read through to
 * Object.prototype wherever a map is indexed. Refused with this message, at the contract and in the files.
 */
export const RESERVED_SETTING_NAMES: readonly string[] = ['__proto__', 'constructor', 'prototype'];

export function isReservedSettingName(name: string): boolean {
  return RESERVED_SETTING_NAMES.includes(name);
}

export function reservedNameMessage(name: string): string {
  return `"${name}" cannot be used as a name (${RESERVED_SETTING_NAMES.join(', ')} are reserved)`;
}

/** `schema` (a string schema, after any trim) that also refuses the reserved names. */
export function settingName<T extends z.ZodType<string>>(schema: T): T {
  return schema.refine((name) => !isReservedSettingName(name), {
    error: (issue) => reservedNameMessage(String(issue.input)),
  }) as T;
}

/** A name that keys a settings map: not empty, not reserved. */
export const SettingNameSchema = settingName(z.string().min(1));

/**
 * A map keyed by names (`key` must refuse the reserved ones). Zod's records skip an own `__proto__` key
 * without a word (they never hand it to the key schema), so it is looked for in the raw input first and
 * refused like the others. Typed as the record it wraps, so callers and `z.input` see the map, not the step.
 */
export function guardedRecord<K extends z.ZodType<string>, V extends z.ZodType>(key: K, value: V): z.ZodRecord<K, V> {
  const guarded = z.preprocess(
    (input, context) => {
      if (typeof input !== 'object' || input === null) return input;
      for (const name of Object.keys(input)) {
        if (isReservedSettingName(name.trim()))
          context.addIssue({ code: 'custom', message: reservedNameMessage(name), path: [name], input });
      }
      return input;
    },
    z.record(key, value),
  );
  return guarded as unknown as z.ZodRecord<K, V>;
}

/** A settings map keyed by name (servers, tools): names not empty, none reserved. */
export function settingsRecord<V extends z.ZodType>(value: V): z.ZodRecord<typeof SettingNameSchema, V> {
  return guardedRecord(SettingNameSchema, value);
}
