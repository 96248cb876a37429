import type { ValidateFunction } from 'ajv';
import { addFormats, newAjv, type AnyAjv } from '../ajv';

/** One reason a form's content does not fit its schema: the field (a JSON pointer, '' for the whole form) and what. */
export interface ElicitationProblem {
  path: string;
  message: string;
}

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

/**
 * Checks a person's answer against an elicitation's requested schema (MCP: a flat object of strings — with
 * formats — numbers, booleans and enums) before it is sent back. A schema that cannot be compiled is one problem.
 */
export function checkElicitationContent(
  schema: Record<string, unknown>,
  content: Record<string, unknown>,
): ElicitationProblem[] {
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
  if (typeof validate === 'string')
    return [{ path: '', message: `the server's form schema cannot be checked: ${validate}` }];
  if (validate(content)) return [];
  return (validate.errors ?? []).map((error) => {
    const missing =
      error.keyword === 'required' ? `/${String((error.params as { missingProperty?: unknown }).missingProperty)}` : '';
    const path = `${error.instancePath}${missing}`;
    const field = path.replace(/^\//, '') || 'the form';
    return {
      path,
      message: error.keyword === 'required' ? `${field} is required` : `${field} ${error.message ?? 'is not valid'}`,
    };
  });
}
