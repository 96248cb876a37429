/**
 * Editing a call's arguments before allowing it (seed 004): a form for tools whose input schema is an object of
 * simple fields (text, numbers, yes/no, a choice), a JSON editor otherwise. This checks what the form can tell
 * (JSON syntax, required fields, simple types) so a mistake shows where it was made; the main process validates
 * the edited arguments against the full schema again before anything runs.
 */

export type FieldType = 'string' | 'number' | 'integer' | 'boolean';

export interface FormField {
  name: string;
  type: FieldType;
  required: boolean;
  description?: string;
  /** A choice of strings. */
  options?: readonly string[];
  /** Multi-line text (long strings such as a file's content). */
  multiline: boolean;
}

type Schema = Record<string, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The form's fields, or null when the schema needs the JSON editor (nested objects, arrays, unions…). */
export function formFields(schema: Schema): FormField[] | null {
  if (schema['type'] !== 'object' || !isRecord(schema['properties'])) return null;
  const required = new Set(
    Array.isArray(schema['required'])
      ? (schema['required'] as unknown[]).filter((name): name is string => typeof name === 'string')
      : [],
  );
  const fields: FormField[] = [];
  for (const [name, property] of Object.entries(schema['properties'])) {
    if (!isRecord(property)) return null;
    const type = property['type'];
    const options =
      Array.isArray(property['enum']) && property['enum'].every((value) => typeof value === 'string')
        ? (property['enum'] as string[])
        : undefined;
    if (type !== 'string' && type !== 'number' && type !== 'integer' && type !== 'boolean') return null;
    fields.push({
      name,
      type,
      required: required.has(name),
      ...(typeof property['description'] === 'string' ? { description: property['description'] } : {}),
      ...(options ? { options } : {}),
      multiline: type === 'string' && !options && /content|text|body|code|patch|edits|query|message/i.test(name),
    });
  }
  return fields;
}

/** The form's text values of some arguments. */
export function formValues(fields: readonly FormField[], args: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    fields.map((field) => {
      const value = args[field.name];
      return [
        field.name,
        value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value),
      ];
    }),
  );
}

export type Parsed = { ok: true; args: Record<string, unknown> } | { ok: false; errors: Record<string, string> };

/** The arguments a form holds, or each field's problem. Empty optional fields are left out. */
export function argsFromForm(fields: readonly FormField[], values: Record<string, string>): Parsed {
  const args: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const text = values[field.name] ?? '';
    if (text.trim() === '' && field.type !== 'string') {
      if (field.required) errors[field.name] = 'Required.';
      continue;
    }
    if (text === '' && field.type === 'string') {
      if (field.required) errors[field.name] = 'Required.';
      continue;
    }
    switch (field.type) {
      case 'string':
        if (field.options && !field.options.includes(text))
          errors[field.name] = `Choose one of: ${field.options.join(', ')}.`;
        else args[field.name] = text;
        break;
      case 'number':
      case 'integer': {
        const number = Number(text.trim());
        if (!Number.isFinite(number)) errors[field.name] = 'Must be a number.';
        else if (field.type === 'integer' && !Number.isInteger(number)) errors[field.name] = 'Must be a whole number.';
        else args[field.name] = number;
        break;
      }
      case 'boolean':
        if (text !== 'true' && text !== 'false') errors[field.name] = 'Must be true or false.';
        else args[field.name] = text === 'true';
        break;
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, args };
}

/**
 * What a form shows, as an object, even when a field is wrong (a number field holding "abc" stays the string "abc"):
 * switching to the JSON editor keeps what the person typed, and the JSON editor then names the problem.
 */
export function formObject(fields: readonly FormField[], values: Record<string, string>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const field of fields) {
    const text = values[field.name] ?? '';
    if (text === '' || (field.type !== 'string' && text.trim() === '')) continue;
    if (field.type === 'number' || field.type === 'integer') {
      const number = Number(text.trim());
      object[field.name] = Number.isFinite(number) ? number : text;
    } else if (field.type === 'boolean') object[field.name] = text === 'true' ? true : text === 'false' ? false : text;
    else object[field.name] = text;
  }
  return object;
}

/** The properties of an object that the form has no field for (switching to the form would drop them). */
export function fieldsMissing(fields: readonly FormField[], object: Record<string, unknown>): string[] {
  const names = new Set(fields.map((field) => field.name));
  return Object.keys(object).filter((name) => !names.has(name));
}

/** JSON text of the arguments: must be an object; required properties and simple property types are checked. */
export function argsFromJson(
  schema: Schema,
  text: string,
): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  const parsed = jsonObject(text);
  return parsed.ok ? argsFromObject(schema, parsed.object) : parsed;
}

/** JSON text as an object, or why it is not one. */
export function jsonObject(text: string): { ok: true; object: Record<string, unknown> } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!isRecord(value)) return { ok: false, error: 'The arguments must be a JSON object ({ … }).' };
  return { ok: true, object: value };
}

/** An object checked against what the form can tell of the schema: required properties and simple property types. */
function argsFromObject(
  schema: Schema,
  value: Record<string, unknown>,
): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  const required = Array.isArray(schema['required']) ? (schema['required'] as unknown[]) : [];
  const missing = required.filter((name): name is string => typeof name === 'string' && !Object.hasOwn(value, name));
  if (missing.length > 0)
    return {
      ok: false,
      error: `Missing required ${missing.length === 1 ? 'property' : 'properties'}: ${missing.join(', ')}.`,
    };
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  for (const [name, property] of Object.entries(properties)) {
    if (!Object.hasOwn(value, name) || !isRecord(property) || typeof property['type'] !== 'string') continue;
    if (!matchesType(value[name], property['type']))
      return { ok: false, error: `“${name}” must be ${article(property['type'])}.` };
  }
  if (schema['additionalProperties'] === false) {
    const unknown = Object.keys(value).filter((name) => !Object.hasOwn(properties, name));
    if (unknown.length > 0)
      return {
        ok: false,
        error: `Unknown ${unknown.length === 1 ? 'property' : 'properties'}: ${unknown.join(', ')}.`,
      };
  }
  return { ok: true, args: value };
}

function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
    case 'null':
      return value === null;
    default:
      return true;
  }
}

function article(type: string): string {
  return type === 'integer' || type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`;
}
