import type { ErrorObject, ValidateFunction } from 'ajv';
import { optionsOf, type ElicitationProblem } from '../../shared/elicitation-fields';
import { addFormats, newAjv, type AnyAjv } from '../ajv';

export type { ElicitationProblem };

// The formats MCP's restricted schema names (email, uri, date, date-time) checked for real; unknown keywords ignored.
// Made at the first form checked (Ajv loads on demand, see ../ajv.ts).
let formAjv: AnyAjv | undefined;
function ajvForForms(): AnyAjv {
  if (!formAjv) {
    formAjv = newAjv('draft-07', { allErrors: true, strict: false, addUsedSchema: false });
    addFormats(formAjv, ['email', 'uri', 'date', 'date-time']);
  }
  return formAjv;
}

const compiled = new Map<string, ValidateFunction | string>();
const COMPILED_LIMIT = 256;

type Schema = Record<string, unknown>;

/**
 * Checks a person's answer against an elicitation's requested schema (MCP: a flat object of strings — with
 * formats — numbers, booleans and enums) before it is sent back: at most one problem per field, in the schema's
 * order, worded with the field's title (docs/user/server-requests.md, "Elicitation"). A schema that cannot be
 * compiled is one problem of the whole form.
 */
export function checkElicitationContent(schema: Schema, content: Record<string, unknown>): ElicitationProblem[] {
  const text = JSON.stringify(schema);
  let validate = compiled.get(text);
  if (validate === undefined) {
    try {
      // The dialect is MCP's own restricted one; an $id would make two servers' forms collide.
      const { $schema: _dialect, $id: _id, ...rest } = schema;
      validate = ajvForForms().compile(rest);
    } catch (error) {
      validate = (error as Error).message;
    }
    if (compiled.size >= COMPILED_LIMIT) compiled.clear();
    compiled.set(text, validate);
  }
  if (typeof validate === 'string') return [{ field: '', message: `The server's form cannot be checked: ${validate}` }];
  if (validate(content)) return [];
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const byField = new Map<string, string>();
  for (const error of validate.errors ?? []) {
    const field = fieldOf(error);
    if (byField.has(field)) continue;
    const property = properties[field];
    const title = field === '' ? 'The form' : typeof property?.title === 'string' ? property.title : field;
    byField.set(field, `${title} ${wordsFor(error, property ?? {})}`);
  }
  const order = ['', ...Object.keys(properties)];
  return [...byField]
    .sort(([a], [b]) => rank(order, a) - rank(order, b))
    .map(([field, message]) => ({ field, message }));
}

function rank(order: readonly string[], field: string): number {
  const at = order.indexOf(field);
  return at === -1 ? order.length : at;
}

/** The top-level property an error is about ('' for the form): `/tags/1` is `tags`, a missing one is named. */
function fieldOf(error: ErrorObject): string {
  if (error.keyword === 'required' && error.instancePath === '')
    return String((error.params as { missingProperty?: unknown }).missingProperty);
  if (error.keyword === 'additionalProperties' && error.instancePath === '')
    return String((error.params as { additionalProperty?: unknown }).additionalProperty);
  const first = error.instancePath.split('/')[1] ?? '';
  return first.replace(/~1/g, '/').replace(/~0/g, '~');
}

const FORMAT_WORDS: Record<string, string> = {
  email: 'must be an email address, like name@example.com',
  uri: 'must be a full web address, like https://example.com',
  date: 'must be a date, like 2026-03-31',
  'date-time': 'must be a date and a time',
};

const TYPE_WORDS: Record<string, string> = {
  string: 'must be text',
  number: 'must be a number',
  integer: 'must be a whole number',
  boolean: 'must be yes or no',
  array: 'must be a list of choices',
  object: 'must be a form',
};

/** What is wrong, in words, without the field's name: "must be 0 or more". */
function wordsFor(error: ErrorObject, property: Schema): string {
  const params = error.params as Record<string, unknown>;
  const count = (n: unknown, one: string): string => `${String(n)} ${one}${n === 1 ? '' : 's'}`;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a field of this form';
    case 'format':
      return FORMAT_WORDS[String(params.format)] ?? `must be in the ${String(params.format)} format`;
    case 'type':
      return TYPE_WORDS[String(params.type)] ?? `must be of type ${String(params.type)}`;
    case 'minLength':
      return `must be at least ${count(params.limit, 'character')}`;
    case 'maxLength':
      return `must be at most ${count(params.limit, 'character')}`;
    case 'minimum':
      return `must be ${String(params.limit)} or more`;
    case 'maximum':
      return `must be ${String(params.limit)} or less`;
    case 'exclusiveMinimum':
      return `must be more than ${String(params.limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(params.limit)}`;
    case 'minItems':
      return `needs at least ${count(params.limit, 'choice')}`;
    case 'maxItems':
      return `takes at most ${count(params.limit, 'choice')}`;
    case 'uniqueItems':
      return 'must not name a choice twice';
    case 'pattern':
      return 'is not in the form the server expects';
    case 'enum':
    case 'const':
    case 'oneOf':
    case 'anyOf': {
      const options = optionsOf(
        ((error.instancePath.split('/').length > 2 ? property.items : property) as Schema | undefined) ?? {},
      );
      const titles = (options ?? []).map((option) => option.label);
      return titles.length > 0 ? `must be one of: ${titles.join(', ')}` : 'must be one of the choices';
    }
    default:
      return error.message ?? 'is not valid';
  }
}
