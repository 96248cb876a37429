import { Type, type Schema } from '@google/genai';

/**
 * JSON Schema (what MCP tools declare) → Gemini's `Schema`, the OpenAPI 3.0 subset `functionDeclarations[].parameters`
 * accepts. The API answers 400 to anything outside it, so:
 * - `$ref` is replaced by the `$defs` / `definitions` entry it names (recursion stops after a few levels: an object);
 * - `type: [T, "null"]` and `anyOf` with a `{ type: "null" }` branch become `nullable: true`;
 * - `oneOf` becomes `anyOf`; `allOf` is merged into one schema; `const` becomes a one-value `enum`;
 * - `enum` keeps only string values (Gemini's enums are strings); other values are named in the description;
 * - `format` stays only where Gemini knows it (`enum`, `date-time` on strings; `int32`, `int64`; `float`, `double`);
 * - `properties` / `required` stay only on objects and `items` only on arrays; `required` names only properties that exist;
 * - an object without properties is sent without `properties` (Gemini refuses an empty map);
 * - everything else (`additionalProperties`, `$schema`, `exclusiveMinimum`, `examples`, `not`, …) is dropped.
 * Dropping `$schema` matters: the SDK would otherwise send the schema as `parametersJsonSchema`, which older models refuse.
 */
export function toGeminiParameters(inputSchema: Record<string, unknown>): Schema | undefined {
  const definitions = { ...asRecord(inputSchema['definitions']), ...asRecord(inputSchema['$defs']) };
  const schema = convert({ ...inputSchema, type: 'object' }, definitions, 0);
  // A function without parameters must leave `parameters` out: an OBJECT without properties is refused.
  return schema.properties && Object.keys(schema.properties).length > 0 ? schema : undefined;
}

const MAX_REF_DEPTH = 6;
const TYPES: Record<string, Type> = {
  string: Type.STRING,
  number: Type.NUMBER,
  integer: Type.INTEGER,
  boolean: Type.BOOLEAN,
  array: Type.ARRAY,
  object: Type.OBJECT,
};
const FORMATS: Partial<Record<Type, readonly string[]>> = {
  [Type.STRING]: ['enum', 'date-time'],
  [Type.INTEGER]: ['int32', 'int64'],
  [Type.NUMBER]: ['float', 'double'],
};

type JsonSchema = Record<string, unknown>;

function asRecord(value: unknown): JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonSchema) : {};
}

function isNullSchema(value: unknown): boolean {
  return asRecord(value)['type'] === 'null';
}

function convert(input: JsonSchema, definitions: JsonSchema, depth: number): Schema {
  let schema = resolveRef(input, definitions, depth);
  if (schema === undefined)
    return { type: Type.OBJECT, description: 'A nested object (its schema is recursive and not shown).' };
  if (Array.isArray(schema['allOf'])) schema = mergeAllOf(schema, definitions, depth);
  const out: Schema = {};
  let nullable = false;

  let type = schema['type'];
  if (Array.isArray(type)) {
    nullable = type.includes('null');
    const rest = type.filter((name) => name !== 'null');
    type = rest.length === 1 ? rest[0] : undefined;
    if (rest.length > 1) out.anyOf = rest.map((name) => ({ type: TYPES[String(name)] ?? Type.STRING }));
  }
  const union = (schema['anyOf'] ?? schema['oneOf']) as unknown;
  if (Array.isArray(union)) {
    if (union.some(isNullSchema)) nullable = true;
    const branches = union
      .filter((branch) => !isNullSchema(branch))
      .map((branch) => convert(asRecord(branch), definitions, depth + 1));
    if (branches.length === 1) Object.assign(out, branches[0]);
    else if (branches.length > 1) out.anyOf = branches;
  }
  // Gemini refuses `type` beside `anyOf`.
  if (typeof type === 'string' && TYPES[type] && !out.anyOf) out.type = TYPES[type];
  if (out.type === undefined && !out.anyOf) {
    if (schema['properties'] !== undefined) out.type = Type.OBJECT;
    else if (schema['items'] !== undefined) out.type = Type.ARRAY;
  }
  if (nullable) out.nullable = true;

  const notes: string[] = [];
  if (typeof schema['title'] === 'string') out.title = schema['title'];
  if (typeof schema['description'] === 'string') notes.push(schema['description']);
  const values =
    schema['const'] !== undefined
      ? [schema['const']]
      : Array.isArray(schema['enum'])
        ? (schema['enum'] as unknown[])
        : undefined;
  if (values) {
    if (values.every((value) => typeof value === 'string') && (out.type === undefined || out.type === Type.STRING)) {
      out.type = Type.STRING;
      out.enum = values as string[];
    } else {
      notes.push(`One of: ${values.map((value) => JSON.stringify(value)).join(', ')}.`);
    }
  }
  if (notes.length > 0) out.description = notes.join(' ');
  if (typeof schema['format'] === 'string' && out.type && FORMATS[out.type]?.includes(schema['format']))
    out.format = schema['format'];
  if (typeof schema['pattern'] === 'string' && out.type === Type.STRING) out.pattern = schema['pattern'];
  copyNumbers(schema, out);
  if (schema['default'] !== undefined) out.default = schema['default'];

  if (out.type === Type.ARRAY && schema['items'] !== undefined && !Array.isArray(schema['items'])) {
    out.items = convert(asRecord(schema['items']), definitions, depth + 1);
  } else if (out.type === Type.ARRAY && out.items === undefined) {
    // Gemini requires `items` on arrays; a schema that leaves them open gets strings.
    out.items = { type: Type.STRING };
  }
  if (out.type === Type.OBJECT) {
    const properties = Object.entries(asRecord(schema['properties']));
    if (properties.length > 0) {
      const converted = Object.fromEntries(
        properties.map(([name, value]) => [name, convert(asRecord(value), definitions, depth + 1)]),
      );
      out.properties = converted;
      const required = Array.isArray(schema['required'])
        ? schema['required'].filter((name): name is string => typeof name === 'string' && name in converted)
        : [];
      if (required.length > 0) out.required = required;
    }
  }
  return out;
}

/** The schema a `$ref` points to (local `#/$defs/X` or `#/definitions/X` only), or undefined when recursion goes too deep. */
function resolveRef(schema: JsonSchema, definitions: JsonSchema, depth: number): JsonSchema | undefined {
  const ref = schema['$ref'];
  if (typeof ref !== 'string') return schema;
  if (depth >= MAX_REF_DEPTH) return undefined;
  const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1];
  const target = name === undefined ? undefined : definitions[decodeURIComponent(name)];
  // Keywords beside the $ref (a description) win over the definition's.
  const { $ref: _ref, ...rest } = schema;
  return target === undefined ? rest : { ...asRecord(target), ...rest };
}

function mergeAllOf(schema: JsonSchema, definitions: JsonSchema, depth: number): JsonSchema {
  const { allOf, ...rest } = schema;
  const merged: JsonSchema = { ...rest };
  for (const part of allOf as unknown[]) {
    const resolved = resolveRef(asRecord(part), definitions, depth) ?? {};
    merged['properties'] = { ...asRecord(merged['properties']), ...asRecord(resolved['properties']) };
    merged['required'] = [
      ...(Array.isArray(merged['required']) ? merged['required'] : []),
      ...(Array.isArray(resolved['required']) ? resolved['required'] : []),
    ];
    for (const [key, value] of Object.entries(resolved)) if (!(key in merged)) merged[key] = value;
  }
  return merged;
}

function copyNumbers(schema: JsonSchema, out: Schema): void {
  const number = (key: string): number | undefined =>
    typeof schema[key] === 'number' ? (schema[key] as number) : undefined;
  const minimum = number('minimum');
  const maximum = number('maximum');
  if (minimum !== undefined && (out.type === Type.NUMBER || out.type === Type.INTEGER)) out.minimum = minimum;
  if (maximum !== undefined && (out.type === Type.NUMBER || out.type === Type.INTEGER)) out.maximum = maximum;
  // Gemini's int64 fields travel as strings in its JSON.
  const counts: [string, 'minLength' | 'maxLength' | 'minItems' | 'maxItems', Type][] = [
    ['minLength', 'minLength', Type.STRING],
    ['maxLength', 'maxLength', Type.STRING],
    ['minItems', 'minItems', Type.ARRAY],
    ['maxItems', 'maxItems', Type.ARRAY],
  ];
  for (const [key, field, type] of counts) {
    const value = number(key);
    if (value !== undefined && out.type === type) out[field] = String(value);
  }
}
