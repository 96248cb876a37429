import { samplingMediaWords, type ServerRequestDecision, type ServerRequestView } from '../shared/server-request-views';
import { ABANDONED, INTERRUPTED, type LineReader } from './line-reader';
import { writeRequestFrame } from './request-frame';
import type { Colors } from './terminal';
import { sanitizeForTerminal } from './terminal-text';
import { fieldValue } from './elicitation-answer';
import { isWebUrl, NOT_A_WEB_URL } from '../shared/web-url';
import { elicitationFields, type ElicitationField } from '../shared/elicitation-fields';
import { checkElicitationContent } from '../main/chat/elicitation-form';

/** The answers a server request takes in a terminal (docs/user/server-requests.md), like seed 000's prompt. */
export const SAMPLING_CHOICES = '[s] allow for this chat  [o] allow once  [d] deny  [e] edit the prompt';
export const SAMPLING_CHAT_LESS_CHOICES = '[o] allow once  [d] deny  [e] edit the prompt';
export const ANSWER_CHOICES = '[y] send the answer  [e] edit it  [d] deny';
export const FORM_CHOICES = '[a] accept  [d] decline  [c] cancel';
export const WIDENING_CHOICES = '[a] allow  [d] deny';
export const URL_CHOICES = '[o] I will open it (accept)  [d] decline  [c] cancel';

/** `gone`: the request stopped waiting while it was asked about (answered from the app, timed out, cancelled). */
export type ServerRequestPromptOutcome =
  | { kind: 'decision'; decision: ServerRequestDecision }
  | { kind: 'interrupted' }
  | { kind: 'closed' }
  | { kind: 'gone' };

export interface ServerRequestPromptDependencies {
  reader: LineReader;
  write(text: string): void;
  colors: Colors;
  /** Aborts once the request no longer waits: the question is withdrawn (docs/user/approvals.md#one-inbox). */
  gone?: AbortSignal | undefined;
}

/**
 * Asks about one server request; there is no default (Enter asks again). A form is filled one field per line (Enter
 * keeps the default or leaves an optional field out) and checked against its schema as the main process checks it:
 * a field that does not fit is named and asked again, alone. A URL is printed whole and never opened from here.
 */
export async function askAboutServerRequest(
  request: ServerRequestView,
  { reader, write, colors, gone }: ServerRequestPromptDependencies,
): Promise<ServerRequestPromptOutcome> {
  const show = (text: string): string => sanitizeForTerminal(text);
  type Asked = string | null | typeof INTERRUPTED | typeof ABANDONED;
  const ask = async (question: string): Promise<Asked> =>
    gone ? reader.askUnless(question, gone) : reader.ask(question);
  const stopped = (answer: Asked): ServerRequestPromptOutcome | undefined =>
    answer === INTERRUPTED
      ? { kind: 'interrupted' }
      : answer === ABANDONED
        ? { kind: 'gone' }
        : answer === null
          ? { kind: 'closed' }
          : undefined;
  const decided = (decision: ServerRequestDecision): ServerRequestPromptOutcome => ({ kind: 'decision', decision });

  if (request.kind === 'sampling' && request.stage === 'request') {
    const choices = request.chatId === null ? SAMPLING_CHAT_LESS_CHOICES : SAMPLING_CHOICES;
    writeRequestFrame(write, colors, {
      title: `Allow ${show(request.serverName)} to use your model?`,
      tag: 'sampling',
      body: [
        `  Model ${request.model ? `${request.model.model} (${request.model.providerId})` : 'none'} · max ${request.maxTokens} tokens · budget ${request.budget.used} of ${request.budget.limit} used`,
        ...(request.systemPrompt ? [`  System prompt: ${show(request.systemPrompt)}`] : []),
        ...request.messages.map(
          (message, index) =>
            `  ${index + 1}. ${message.role}: ${[
              show(message.text),
              ...(message.media ?? []).map((media) => `[${show(samplingMediaWords(media))}]`),
            ]
              .filter(Boolean)
              .join(' ')}`,
        ),
      ],
      warning:
        'The server wrote this prompt. Allowing sends it to your model and spends your tokens; you see the answer first.',
      choices: [choices],
    });
    let messages: string[] | undefined;
    for (;;) {
      const answer = await ask('> ');
      const stop = stopped(answer);
      if (stop) return stop;
      const key = (answer as string).trim().toLowerCase();
      if (key === 's' && request.chatId !== null)
        return decided({ action: 'allow-chat', ...(messages ? { messages } : {}) });
      if (key === 'o') return decided({ action: 'allow-once', ...(messages ? { messages } : {}) });
      if (key === 'd') return decided({ action: 'deny' });
      if (key === 'e') {
        const last = request.messages.length - 1;
        const text = await ask(`New text of message ${last + 1} (one line; empty keeps it): `);
        const stopEdit = stopped(text);
        if (stopEdit) return stopEdit;
        if ((text as string).trim() !== '') {
          messages = request.messages.map((message, index) => (index === last ? (text as string) : message.text));
          write(colors.green('Prompt edited. Now allow or deny it.\n'));
        }
        write(`${choices}\n`);
        continue;
      }
      write(`Type ${request.chatId === null ? 'o, d or e' : 's, o, d or e'} and press Enter.\n`);
    }
  }
  if (request.kind === 'sampling') {
    writeRequestFrame(write, colors, {
      title: `Send the model's answer to ${show(request.serverName)}?`,
      tag: 'sampling',
      body: [show(request.answer?.text ?? '')],
      choices: [ANSWER_CHOICES],
    });
    let text: string | undefined;
    for (;;) {
      const answer = await ask('> ');
      const stop = stopped(answer);
      if (stop) return stop;
      const key = (answer as string).trim().toLowerCase();
      if (key === 'y') return decided({ action: 'send', ...(text !== undefined ? { text } : {}) });
      if (key === 'd') return decided({ action: 'deny' });
      if (key === 'e') {
        const edited = await ask('New answer (one line; empty keeps it): ');
        const stopEdit = stopped(edited);
        if (stopEdit) return stopEdit;
        if ((edited as string).trim() !== '') text = edited as string;
        write(`${ANSWER_CHOICES}\n`);
        continue;
      }
      write('Type y, e or d and press Enter.\n');
    }
  }
  if (request.kind === 'sandbox-widening' || request.kind === 'app-tool-call') {
    writeRequestFrame(
      write,
      colors,
      request.kind === 'sandbox-widening'
        ? {
            title: `Widen ${show(request.serverName)}'s sandbox?`,
            tag: 'sandbox',
            body: [`  ${show(request.description)}`],
            warning: 'The server gets this access from now on, until you narrow its profile again.',
            choices: [WIDENING_CHOICES],
          }
        : {
            title: `Run ${show(request.toolName)} from ${show(request.serverName)}?`,
            tag: 'app',
            body: [
              `  Requested by the app of ${show(request.serverName)}, not by the model.`,
              `  ${show(JSON.stringify(request.args))}`,
            ],
            choices: [WIDENING_CHOICES],
          },
    );
    for (;;) {
      const answer = await ask('> ');
      const stop = stopped(answer);
      if (stop) return stop;
      const key = (answer as string).trim().toLowerCase();
      if (key === 'a') return decided({ action: 'allow-once' });
      if (key === 'd') return decided({ action: 'deny' });
      write('Type a or d and press Enter.\n');
    }
  }
  if (request.mode === 'url') {
    // Only http(s) pages (shared/web-url.ts); the main process declines others before they are asked.
    if (!isWebUrl(request.url)) {
      write(
        `\n${colors.bold(`${show(request.serverName)} asks you to open a page`)}\n  ${show(request.message)}\n  ${colors.cyan(show(request.url))}\n`,
      );
      write(`Declined: ${NOT_A_WEB_URL}.\n`);
      return decided({ action: 'decline' });
    }
    writeRequestFrame(write, colors, {
      title: `${show(request.serverName)} asks you to open a page`,
      tag: 'elicitation',
      body: [`  ${show(request.message)}`, `  ${colors.cyan(show(request.url))}`],
      warning: 'Check the address: the server chose it. AI Workbench does not open it from the terminal.',
      choices: [URL_CHOICES],
    });
    for (;;) {
      const answer = await ask('> ');
      const stop = stopped(answer);
      if (stop) return stop;
      const key = (answer as string).trim().toLowerCase();
      if (key === 'o') return decided({ action: 'accept' });
      if (key === 'd') return decided({ action: 'decline' });
      if (key === 'c') return decided({ action: 'cancel' });
      write('Type o, d or c and press Enter.\n');
    }
  }
  writeRequestFrame(write, colors, {
    title: `${show(request.serverName)} asks for information`,
    tag: 'elicitation',
    body: [`  ${show(request.message)}`],
    choices: [FORM_CHOICES],
  });
  const fields = elicitationFields(request.requestedSchema);
  for (;;) {
    const answer = await ask('> ');
    const stop = stopped(answer);
    if (stop) return stop;
    const key = (answer as string).trim().toLowerCase();
    if (key === 'd') return decided({ action: 'decline' });
    if (key === 'c') return decided({ action: 'cancel' });
    if (key !== 'a') {
      write('Type a, d or c and press Enter.\n');
      continue;
    }
    const answers = new Map<string, unknown>();
    // Each field once, then only the fields that do not fit, until the whole answer does (the main process checks
    // it again before anything is sent).
    let asking = fields;
    for (;;) {
      for (const field of asking) {
        const typed = await askField(field, { ask, write, show, colors });
        if (typed === INTERRUPTED || typed === ABANDONED || typed === null)
          return stopped(typed) as ServerRequestPromptOutcome;
        if (typed === undefined) answers.delete(field.name);
        else answers.set(field.name, typed);
      }
      // In the form's order, whatever order the fields were last asked in.
      const content = Object.fromEntries(
        fields.filter((field) => answers.has(field.name)).map((field) => [field.name, answers.get(field.name)]),
      );
      const problems = checkElicitationContent(request.requestedSchema, content);
      if (problems.length === 0)
        return decided({ action: 'accept', content: content as Record<string, string | number | boolean | string[]> });
      for (const problem of problems) write(colors.red(`  ${show(problem.message)}.\n`));
      const wrong = new Set(problems.map((problem) => problem.field));
      asking = fields.filter((field) => wrong.has(field.name) && field.kind !== 'unsupported');
      if (asking.length === 0) {
        // Nothing a person can type fixes it (the server's schema itself, or a field no terminal can fill).
        write(`Decline or cancel it: ${FORM_CHOICES}\n`);
        break;
      }
    }
  }
}

/**
 * Asks one form field on one line: its title (`*` when required), the default in brackets, its description and its
 * choices by title. Enter keeps the default or leaves the field out; a choice is taken by its number, value or title.
 * What cannot be read as the field's type is kept as typed, for the schema check to name.
 */
async function askField(
  field: ElicitationField,
  {
    ask,
    write,
    show,
    colors,
  }: {
    ask(question: string): Promise<string | null | typeof INTERRUPTED | typeof ABANDONED>;
    write(text: string): void;
    show(text: string): string;
    colors: Colors;
  },
): Promise<unknown> {
  if (field.kind === 'unsupported') {
    write(colors.dim(`  ${show(field.label)}: cannot be filled here (not part of MCP's form schema)\n`));
    return undefined;
  }
  if (field.description) write(colors.dim(`    ${show(field.description)}\n`));
  const options = field.kind === 'select' || field.kind === 'multi' ? field.options : [];
  options.forEach((option, index) =>
    write(
      `    ${index + 1}) ${show(option.label)}${option.label === option.value ? '' : colors.dim(` (${show(option.value)})`)}\n`,
    ),
  );
  const fallback =
    field.kind === 'boolean'
      ? ` [${field.initial ? 'y' : 'n'}]`
      : field.kind === 'multi'
        ? field.initial.length > 0
          ? ` [${field.initial.map((value) => labelOf(options, value)).join(', ')}]`
          : ''
        : field.initial !== ''
          ? ` [${field.kind === 'select' ? labelOf(options, field.initial) : field.initial}]`
          : '';
  const hint =
    field.kind === 'boolean'
      ? ' (y/n)'
      : field.kind === 'multi'
        ? ' (numbers, separated by commas)'
        : field.kind === 'select'
          ? ' (a number)'
          : '';
  const answer = await ask(`  ${show(field.label)}${field.required ? ' *' : ''}${hint}${show(fallback)}: `);
  if (answer === null || answer === INTERRUPTED || answer === ABANDONED) return answer;
  const typed = answer.trim();
  if (typed === '') {
    if (field.kind === 'boolean') return field.initial;
    if (field.kind === 'multi') return field.initial.length > 0 || field.required ? field.initial : undefined;
    if (field.initial === '') return undefined;
    return field.kind === 'number' ? Number(field.initial) : field.initial;
  }
  return fieldValue(field, typed);
}

function labelOf(options: readonly { value: string; label: string }[], value: string): string {
  return options.find((option) => option.value === value)?.label ?? value;
}
