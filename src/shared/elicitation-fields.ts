/**
 * MCP elicitation's restricted JSON Schema as form fields: strings (with formats), numbers, integers, booleans,
 * single-select enums (`enum`, `enum` + `enumNames`, `oneOf` of `const`/`title`) and multi-select arrays of them.
 * Anything else is shown as a field the card cannot fill (the person can still decline). The main process checks
 * the answer with ajv before it is sent (main/chat/elicitation-form.ts); this builds the inputs and the value, for the
 * card and for the terminal alike (docs/user/server-requests.md, "Forms").
 */
export type ElicitationField =
  | {
      kind: 'text';
      name: string;
      label: string;
      description: string;
      required: boolean;
      inputType: 'text' | 'email' | 'url' | 'date' | 'datetime-local';
      initial: string;
    }
  | {
      kind: 'number';
      name: string;
      label: string;
      description: string;
      required: boolean;
      integer: boolean;
      min?: number;
      max?: number;
      initial: string;
    }
  | { kind: 'boolean'; name: string; label: string; description: string; required: boolean; initial: boolean }
  | {
      kind: 'select';
      name: string;
      label: string;
      description: string;
      required: boolean;
      options: { value: string; label: string }[];
      initial: string;
    }
  | {
      kind: 'multi';
      name: string;
      label: string;
      description: string;
      required: boolean;
      options: { value: string; label: string }[];
      initial: string[];
    }
  | { kind: 'unsupported'; name: string; label: string; description: string; required: boolean };

export type FieldValue = string | boolean | string[];

type Schema = Record<string, unknown>;

const FORMAT_INPUTS: Record<string, 'email' | 'url' | 'date' | 'datetime-local'> = {
  email: 'email',
  uri: 'url',
  date: 'date',
  'date-time': 'datetime-local',
};

export function elicitationFields(requested: Schema): ElicitationField[] {
  const properties = (requested.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(requested.required) ? (requested.required as string[]) : []);
  return Object.entries(properties).map(([name, schema]) => {
    const base = {
      name,
      label: typeof schema.title === 'string' ? schema.title : name,
      description: typeof schema.description === 'string' ? schema.description : '',
      required: required.has(name),
    };
    const options = optionsOf(schema);
    if (schema.type === 'string' && options) {
      return { kind: 'select', ...base, options, initial: typeof schema.default === 'string' ? schema.default : '' };
    }
    if (schema.type === 'array') {
      const itemOptions = optionsOf((schema.items ?? {}) as Schema);
      if (itemOptions) {
        return {
          kind: 'multi',
          ...base,
          options: itemOptions,
          initial: Array.isArray(schema.default) ? (schema.default as string[]) : [],
        };
      }
    }
    if (schema.type === 'string') {
      const inputType = (typeof schema.format === 'string' && FORMAT_INPUTS[schema.format]) || 'text';
      return { kind: 'text', ...base, inputType, initial: typeof schema.default === 'string' ? schema.default : '' };
    }
    if (schema.type === 'number' || schema.type === 'integer') {
      return {
        kind: 'number',
        ...base,
        integer: schema.type === 'integer',
        ...(typeof schema.minimum === 'number' ? { min: schema.minimum } : {}),
        ...(typeof schema.maximum === 'number' ? { max: schema.maximum } : {}),
        initial: typeof schema.default === 'number' ? String(schema.default) : '',
      };
    }
    if (schema.type === 'boolean') return { kind: 'boolean', ...base, initial: schema.default === true };
    return { kind: 'unsupported', ...base };
  });
}

/** A choice field's options (`enum` with `enumNames`, or `oneOf`/`anyOf` of `const` with `title`); none for any other field. */
export function optionsOf(schema: Schema): { value: string; label: string }[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? (schema.enumNames as unknown[]) : [];
    return (schema.enum as unknown[]).map((value, index) => ({
      value: String(value),
      label: typeof names[index] === 'string' ? (names[index] as string) : String(value),
    }));
  }
  const choices = (
    Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined
  ) as Schema[] | undefined;
  if (choices?.every((choice) => 'const' in choice)) {
    return choices.map((choice) => ({
      value: String(choice.const),
      label: typeof choice.title === 'string' ? choice.title : String(choice.const),
    }));
  }
  return undefined;
}

export function initialValues(fields: readonly ElicitationField[]): Record<string, FieldValue> {
  const values: Record<string, FieldValue> = {};
  for (const field of fields) if (field.kind !== 'unsupported') values[field.name] = field.initial;
  return values;
}

/** The content to send: empty optional fields left out, numbers as numbers, a local date-time with seconds and zone. */
export function contentOf(
  fields: readonly ElicitationField[],
  values: Record<string, FieldValue>,
): Record<string, string | number | boolean | string[]> {
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (field.kind === 'boolean') content[field.name] = value === true;
    else if (field.kind === 'multi') {
      if (Array.isArray(value) && (value.length > 0 || field.required)) content[field.name] = value;
    } else if (typeof value === 'string' && value !== '') {
      if (field.kind === 'number') content[field.name] = Number(value);
      else if (field.kind === 'text' && field.inputType === 'datetime-local')
        content[field.name] = new Date(value).toISOString();
      else content[field.name] = value;
    }
  }
  return content;
}

/**
 * One reason a form's answer does not fit its schema: the field's name ('' for the whole form) and the words, which
 * name the field by its title ("Email must be an email address, like name@example.com").
 */
export interface ElicitationProblem {
  field: string;
  message: string;
}

/** The problems a refused answer carries in its error's `details.problems`, field by field; none for any other error. */
export function elicitationProblemsOf(error: unknown): ElicitationProblem[] {
  if (typeof error !== 'object' || error === null) return [];
  const problems = ((error as { details?: unknown }).details as { problems?: unknown } | undefined)?.problems;
  if (!Array.isArray(problems)) return [];
  return problems.flatMap((item) => {
    const { field, message } = (item ?? {}) as { field?: unknown; message?: unknown };
    return typeof field === 'string' && typeof message === 'string' ? [{ field, message }] : [];
  });
}
