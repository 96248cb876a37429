import { elicitationFields } from '../../shared/elicitation-fields';
import type { ServerRequestDecision, ServerRequestView } from '../../shared/server-request-views';
import { checkElicitationContent } from '../../main/chat/elicitation-form';
import { CliError } from '../exit-codes';
import { fieldValue } from '../elicitation-answer';

/**
 * `workbench approvals allow|deny` for what a server (or its MCP Apps view) asks: the answer each kind takes from the
 * terminal (docs/user/cli.md, "approvals"). Allow once or deny; a form is accepted with its fields given as
 * `--field NAME=VALUE`, declined, or cancelled with `--cancel`. "Allow for this chat" and edits are given on the card.
 */
export interface RequestFlags {
  reason?: string;
  field?: string[];
  cancel?: boolean;
}

/** What the request is, in one cell of `approvals list`. */
export function requestWhat(request: ServerRequestView): string {
  if (request.kind === 'app-tool-call') return `${request.serverName}.${request.toolName}`;
  if (request.kind === 'sandbox-widening') return `${request.serverName} sandbox`;
  return request.serverName;
}

/** Why it waits and how it is answered from here, in one cell of `approvals list`. */
export function requestWhy(request: ServerRequestView): string {
  switch (request.kind) {
    case 'app-tool-call':
      return `requested by the app of ${request.serverName}, not by the model`;
    case 'sampling':
      return request.stage === 'request'
        ? 'the server asks the model to write (allow or deny)'
        : "the model's answer waits to go back to the server (allow sends it, deny keeps it)";
    case 'elicitation':
      return request.mode === 'form'
        ? `asks for information: allow --field NAME=VALUE (${elicitationFields(request.requestedSchema)
            .map((field) => `${field.name}${field.required ? '*' : ''}`)
            .join(', ')}), deny declines, deny --cancel cancels`
        : 'asks you to open a page (open it in the app; deny declines, deny --cancel cancels)';
    case 'sandbox-widening':
      return request.description;
  }
}

/** The kind's name in `approvals list`. */
export function requestKind(request: ServerRequestView): string {
  if (request.kind === 'app-tool-call') return 'app tool call';
  if (request.kind === 'sampling') return request.stage === 'request' ? 'sampling' : 'sampling answer';
  if (request.kind === 'elicitation') return request.mode === 'form' ? 'form' : 'page to open';
  return 'sandbox widening';
}

/** The answer `approvals allow|deny` gives this request; throws a `CliError` naming what does not fit. */
export function requestDecision(
  request: ServerRequestView,
  verb: 'allow' | 'deny',
  flags: RequestFlags,
): ServerRequestDecision {
  const fields = flags.field ?? [];
  if (fields.length > 0 && !(request.kind === 'elicitation' && verb === 'allow'))
    throw new CliError(`--field answers a form, with allow; '${request.id}' is a ${requestKind(request)}.`);
  if (flags.cancel && !(request.kind === 'elicitation' && verb === 'deny'))
    throw new CliError(
      `--cancel answers a form or a page to open, with deny; '${request.id}' is a ${requestKind(request)}.`,
    );
  const reason = flags.reason === undefined ? {} : { reason: flags.reason };
  if (request.kind === 'elicitation') {
    if (verb === 'deny') return { action: flags.cancel ? 'cancel' : 'decline', ...reason };
    if (request.mode === 'url')
      throw new CliError(
        `'${request.id}' asks you to open a page: open it from the app, where its address is shown before it opens; from here, deny declines it and deny --cancel cancels it.`,
      );
    return { action: 'accept', content: formContent(request.requestedSchema, fields) };
  }
  if (verb === 'deny') return { action: 'deny', ...reason };
  if (request.kind === 'sampling' && request.stage === 'answer') return { action: 'send' };
  return { action: 'allow-once' };
}

/** `--field NAME=VALUE`s read as the form's fields and checked against its schema, as the card checks them. */
function formContent(
  schema: Record<string, unknown>,
  given: readonly string[],
): Record<string, string | number | boolean | string[]> {
  const fields = elicitationFields(schema);
  const content: Record<string, unknown> = {};
  for (const item of given) {
    const at = item.indexOf('=');
    const name = at < 0 ? item : item.slice(0, at);
    const field = fields.find((candidate) => candidate.name === name);
    if (at < 0 || !field)
      throw new CliError(
        at < 0
          ? `--field takes NAME=VALUE, not '${item}'.`
          : `The form has no field '${name}'; its fields: ${fields.map((candidate) => candidate.name).join(', ')}.`,
      );
    if (field.kind === 'unsupported') throw new CliError(`The field '${name}' cannot be filled here.`);
    content[name] = fieldValue(field, item.slice(at + 1).trim());
  }
  const problems = checkElicitationContent(schema, content);
  if (problems.length > 0)
    throw new CliError(`The answer does not fit the form: ${problems.map((problem) => problem.message).join('; ')}.`);
  return content as Record<string, string | number | boolean | string[]>;
}
