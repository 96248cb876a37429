/**
 * The world of the trust invariant test (trust-invariant.test.ts): the tools its MCP servers offer, the arguments
 * the scripted model and the person pick from, and the rules the policy changes pick from. Every rule carries its
 * meaning twice: as the rule the pipeline reads, and as a plain predicate the test checks runs with, so a mistake
 * in the pipeline's matching cannot hide itself (the two are compared once in the test).
 */
import type { ApprovalRuleDraft, RuleEffect } from '../../../shared/approval';

/** A tool of the test's servers, by its server's key in `mcpServers` and its MCP name. */
export interface CatalogueTool {
  readonly serverName: string;
  readonly name: string;
  /** The argument a rule or an edit looks at. */
  readonly field: 'path' | 'command';
  readonly readOnly: boolean;
}

export const TOOLS: readonly CatalogueTool[] = [
  { serverName: 'Files', name: 'write_file', field: 'path', readOnly: false },
  { serverName: 'Files', name: 'read_file', field: 'path', readOnly: true },
  { serverName: 'Shell', name: 'run', field: 'command', readOnly: false },
  // A 2026-07-28 server the host starts as a command and reaches over stdio (recording-stdio-server.ts).
  { serverName: 'Term', name: 'exec', field: 'command', readOnly: false },
  // Runs as an MCP task (recording-tasks.ts): its calls come from a plan of their own (invariant-tasks.ts).
  { serverName: 'Files', name: 'write_report', field: 'path', readOnly: false },
];
/** The catalogue's stdio server: a command, not one of the HTTP recording servers (recording-stdio-server.ts). */
export const STDIO_LABEL = 'Term';
/**
 * The index of Term's tool in TOOLS. The random steps pick a tool (and a server) among those before it; Term's calls
 * come from a plan of their own (invariant-commands.ts stdioPlanArb), so that adding it left every other step of a
 * seed as it was.
 */
export const STDIO_TOOL = 3;
/** The index of Files' task tool in TOOLS (recording-tasks.ts), after Term's: the random steps never pick it. */
export const TASK_TOOL_INDEX = 4;
/** The HTTP recording servers the random steps pick from. */
export const HTTP_SERVER_NAMES = ['Files', 'Shell'] as const;
/** Every server a run starts with, by its key in `mcpServers`. */
export const SERVER_NAMES = [...HTTP_SERVER_NAMES, STDIO_LABEL] as const;
/**
 * What each recording server is (docs/user/approvals.md, "A server's identity"): its URL path, which is also the name
 * the catalogue calls it by. `Other` is a different server with Files' tools, added under a name Files freed: what was
 * made for Files must never allow it.
 */
export const IDENTITY_LABELS = ['Files', 'Shell', 'Other'] as const;
export type IdentityLabel = (typeof IDENTITY_LABELS)[number];
/**
 * The tool whose results have an MCP Apps view (docs/user/mcp-apps.md): a call of it in a chat is a view that may ask
 * for its own server's tools (`apps.callTool`), decided like the model's calls.
 */
export const VIEW_TOOL = 'read_file';
export const VIEW_URI = 'ui://invariant/view';

/** The tools a recording server offers, by its identity label. */
export const toolsOfLabel = (label: string): readonly CatalogueTool[] =>
  TOOLS.filter(
    (tool) => tool.serverName === (label === 'Other' ? 'Files' : label === STDIO_OTHER_LABEL ? STDIO_LABEL : label),
  );
/** Term's program run with another argument: another identity with Term's tools (invariant-commands.ts). */
export const STDIO_OTHER_LABEL = 'TermOther';

/** Values of `path`: harmless ones, and ones the deny rules below are about. */
export const PATHS = [
  'notes.txt',
  'docs/readme.md',
  'a/forbidden.txt',
  'forbidden',
  'forbidden/inside.txt',
  '/etc/passwd',
  '/tmp/ok.txt',
] as const;
/** Values of `command`. */
export const COMMANDS = ['ls', 'echo hi', 'rm -rf /', 'shutdown', 'format c:'] as const;

export type CallArguments = Record<string, unknown>;

/**
 * The nonce of a routine call: the same call of one of Files' tools, made again and again, that a person allows each
 * time until Insights suggests to stop asking (docs/user/insights.md#suggestions). Its number part is no number, so
 * it never asks for a page first (needsPageFirst).
 */
export const ROUTINE_NONCE = 'routine';

/** A rule the test may add, with what it means in plain code. */
export interface CatalogueRule {
  readonly key: string;
  readonly draft: Omit<ApprovalRuleDraft, 'id' | 'effect'> & { serverIdentity?: { url: string } };
  readonly matches: (serverName: string, toolName: string, args: CallArguments) => boolean;
  /** For a rule that names a server by what it runs (an organisation's only): the identity label it means. */
  readonly identity?: IdentityLabel;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const lastSegment = (value: string): string => value.slice(value.lastIndexOf('/') + 1);

/** Rule shapes over the tools above; `effect` and `id` are added when one is used. */
export const RULES: readonly CatalogueRule[] = [
  {
    // `**` spans folders and `*` does not: the file's own name starts with "forbidden".
    key: 'write-forbidden',
    draft: { server: 'Files', tool: 'write_*', args: [{ pointer: '/path', match: 'glob', value: '**/forbidden*' }] },
    matches: (server, tool, args) =>
      server === 'Files' && tool.startsWith('write_') && lastSegment(text(args['path']) ?? '/').startsWith('forbidden'),
  },
  {
    key: 'etc',
    draft: { server: '*', tool: '*', args: [{ pointer: '/path', match: 'regex', value: '^/etc/' }] },
    matches: (_server, _tool, args) => text(args['path'])?.startsWith('/etc/') ?? false,
  },
  {
    key: 'rm',
    draft: { server: 'Shell', tool: 'run', args: [{ pointer: '/command', match: 'regex', value: 'rm ' }] },
    matches: (server, tool, args) =>
      server === 'Shell' && tool === 'run' && (text(args['command'])?.includes('rm ') ?? false),
  },
  {
    key: 'shutdown',
    draft: { server: 'Shell', tool: '*', args: [{ pointer: '/command', match: 'equals', value: 'shutdown' }] },
    matches: (server, _tool, args) => server === 'Shell' && args['command'] === 'shutdown',
  },
  {
    key: 'reads',
    draft: { server: 'Files', tool: 'read_file' },
    matches: (server, tool) => server === 'Files' && tool === 'read_file',
  },
  {
    key: 'shell',
    draft: { server: 'Shell', tool: '*' },
    matches: (server) => server === 'Shell',
  },
  // Rules on a server's sampling requests (docs/user/server-requests.md): by the server, and by the words sent.
  {
    key: 'sampling-shell',
    draft: { server: 'Shell', tool: 'sampling' },
    matches: (server, tool) => server === 'Shell' && tool === 'sampling',
  },
  // A rule on a server's elicitation requests: refused without asking (docs/user/server-requests.md).
  {
    key: 'elicitation-shell',
    draft: { server: 'Shell', tool: 'elicitation' },
    matches: (server, tool) => server === 'Shell' && tool === 'elicitation',
  },
  // An organisation's rule that names Files by what it runs (its URL), whatever it is called.
  {
    key: 'files-by-identity',
    draft: { server: '*', tool: 'write_*', serverIdentity: { url: '**/Files' } },
    identity: 'Files',
    matches: (_server, tool) => tool.startsWith('write_'),
  },
  {
    key: 'sampling-secret',
    draft: { server: '*', tool: 'sampling', args: [{ pointer: '/messages/0/text', match: 'regex', value: 'secret' }] },
    matches: (_server, tool, args) =>
      tool === 'sampling' &&
      (text((args['messages'] as { text?: unknown }[] | undefined)?.[0]?.text)?.includes('secret') ?? false),
  },
];

/**
 * Sampling (docs/user/server-requests.md#sampling): Shell's `run` of these commands asks the chat's model, through the
 * client, before it answers; every third call's request carries a word the `sampling-secret` rule is about.
 */
export const SAMPLING_COMMANDS: readonly string[] = ['ls', 'echo hi'];
export const samplingPrompt = (nonce: string): string =>
  `sampling ${nonce}${Number(nonce.slice(1)) % 3 === 0 ? ' secret' : ''}`;
/** The nonce of a sampling prompt (or of an edit of one, which keeps its start), or null for any other text. */
export const samplingNonce = (text: string): string | null => /^sampling (n\d+)/.exec(text)?.[1] ?? null;
/** What the scripted model answers a sampling request. */
export const samplingAnswer = (nonce: string): string => `answer ${nonce}`;

/**
 * Elicitation (docs/user/server-requests.md#elicitation): Shell's `run` of these commands asks the person, through the
 * client, for a confirmation (a form with one string) before it answers; what comes back is checked against the
 * person's accept row.
 */
export const ELICITATION_COMMANDS: readonly string[] = ['format c:'];
export const ELICITATION_SCHEMA = {
  type: 'object',
  properties: { confirm: { type: 'string' } },
  required: ['confirm'],
} as const;
/** What the person types into the form when they accept, for a request whose message carries this nonce. */
export const elicitationContent = (nonce: string): { confirm: string } => ({ confirm: `yes ${nonce}` });

/**
 * A page to open first (MCP URL elicitation, the -32042 error path): Files' `read_file` of every other nonce is
 * refused with -32042 the first time it arrives, before it runs; the client asks the person for the page and, once
 * accepted, sends the call again. A deny rule added while that card waits must stop the call sent again.
 */
export const needsPageFirst = (toolName: string, args: CallArguments): boolean =>
  toolName === 'read_file' && typeof args['nonce'] === 'string' && Number(args['nonce'].slice(1)) % 2 === 0;
export const pageUrl = (nonce: string): string => `https://example.com/consent/${nonce}`;

/** The rules a person can make: those that name a server by what it runs are the organisation's only. */
export const USER_RULES: readonly CatalogueRule[] = RULES.filter((rule) => rule.identity === undefined);

export function catalogueRule(key: string): CatalogueRule {
  const rule = RULES.find((candidate) => candidate.key === key);
  if (!rule) throw new Error(`no catalogue rule '${key}'`);
  return rule;
}

/** The catalogue rule a rule id was made from (`<key>--<n>`), or undefined for an id the test did not make. */
export function ruleOfId(id: string): CatalogueRule | undefined {
  const key = id.split('--')[0] as string;
  return RULES.find((rule) => rule.key === key);
}

/** A rule ready for `policy.update` or a managed policy file. */
export function ruleDraft(key: string, effect: RuleEffect, id: string): ApprovalRuleDraft {
  return { ...catalogueRule(key).draft, effect, id };
}

/** The JSON Schema of each tool's input: the field a rule looks at, optional text, and the model's nonce. */
export function inputSchemaOf(tool: CatalogueTool): Record<string, unknown> {
  const properties: Record<string, unknown> = { [tool.field]: { type: 'string' }, nonce: { type: 'string' } };
  if (tool.name === 'write_file') properties['content'] = { type: 'string' };
  return { type: 'object', properties, required: [tool.field] };
}
