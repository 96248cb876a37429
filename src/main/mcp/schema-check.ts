import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { canonicalJson } from '../../shared/canonical-json';
import { newAjv, type AjvDialect, type AnyAjv } from '../ajv';

/** Checks a JSON value against a schema; returns what is wrong, or undefined when it conforms. */
export type SchemaValidator = (value: unknown) => string | undefined;

export type SchemaCheck = { ok: true; validate: SchemaValidator | undefined } | { ok: false; problem: string };

type Dialect = AjvDialect;
/** Outcomes by the SHA-256 of the schema's canonical JSON, oldest dropped first. */
const CACHE_SIZE = 1000;
const checked = new Map<string, SchemaCheck>();
const instances = new Map<Dialect, AnyAjv>();

function ajvFor(dialect: Dialect): AnyAjv {
  let ajv = instances.get(dialect);
  if (!ajv) {
    // Not strict: servers add keywords of their own ("title" on properties, vendor extensions), which JSON Schema allows.
    const options = { strict: false, allErrors: false, validateFormats: false };
    ajv = newAjv(dialect, options);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** MCP's default dialect is 2020-12; servers built with older tooling declare draft-07 in `$schema`. */
function dialectOf(schema: Record<string, unknown>): Dialect | null {
  const declared = schema.$schema;
  if (declared === undefined) return '2020-12';
  if (typeof declared !== 'string') return null;
  if (/draft-0[67]\/schema/.test(declared)) return 'draft-07';
  if (/draft\/2019-09\/schema/.test(declared)) return '2019-09';
  if (/draft\/2020-12\/schema/.test(declared)) return '2020-12';
  return null;
}

/**
 * Whether `schema` is valid JSON Schema (against its dialect's meta-schema, and compilable: its
 * `$ref`s resolve). A dialect we cannot check (draft-04, a private meta-schema) passes unchecked.
 */
export function checkJsonSchema(schema: unknown): SchemaCheck {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return { ok: false, problem: 'it is not a JSON object' };
  // The same schemas come back at every reconnect and list_changed, and from every copy of a server:
  // compiling takes milliseconds each, hashing microseconds.
  let key: string;
  try {
    key = createHash('sha256').update(canonicalJson(schema)).digest('hex');
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
  const cached = checked.get(key);
  if (cached) return cached;
  const result = check(schema as Record<string, unknown>);
  if (checked.size >= CACHE_SIZE) checked.delete(checked.keys().next().value as string);
  checked.set(key, result);
  return result;
}

function check(schema: Record<string, unknown>): SchemaCheck {
  const dialect = dialectOf(schema);
  if (!dialect) return { ok: true, validate: undefined };
  const ajv = ajvFor(dialect);
  if (!ajv.validateSchema(schema)) return { ok: false, problem: ajv.errorsText(ajv.errors, { dataVar: 'schema' }) };
  let compiled: ValidateFunction;
  try {
    compiled = ajv.compile(schema);
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  } finally {
    // Each listing brings new schema objects; do not let ajv's cache grow with every refresh.
    ajv.removeSchema(schema);
  }
  return {
    ok: true,
    validate: (value) => (compiled(value) ? undefined : ajv.errorsText(compiled.errors, { dataVar: 'result' })),
  };
}
