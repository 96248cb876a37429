/**
 * The client under test of the MCP conformance suite (`@modelcontextprotocol/conformance`, docs/dev/testing.md,
 * "The conformance suite"): the suite runs `… conformance-client.ts <server-url>` and checks what reached its servers.
 * This adapter is a person at a terminal using the built `workbench` CLI, nothing more: it adds the server
 * (`servers add --url`), signs in when the CLI says so (`servers login`, its browser being a plain GET of the
 * sign-in page, which the suite's authorization server approves), lists the tools (`servers tools`), allows the
 * server's calls (`policy set server … auto-approve`) and asks the model to use a tool (`run`, in a terminal, so
 * that a form the server sends is answered as a person would: accept, Enter on every field). The model is the
 * scripted fake LLM server; every MCP request goes through the product's own client.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startFakeLlmServer, type FakeTurn, type RecordedRequest } from '../../main/llm/testing/fake-llm-server';
import { TEST_KEY } from '../../main/llm/testing/drive';
import { CLI_ENTRY, cliEnv, cliJson, makeHome, ROOT, runCli } from './cli-process';

const SERVER = 'conformance';
/** The suite's scope-retry-limit scenario allows three authorization attempts; a person would give up after that. */
const MAX_SIGN_INS = 3;

interface ScenarioContext {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  idp_client_id?: string;
  idp_id_token?: string;
  idp_issuer?: string;
  idp_token_endpoint?: string;
}

const serverUrl = process.argv.at(-1);
if (!serverUrl || !/^https?:\/\//.test(serverUrl)) {
  console.error('usage: conformance-client.ts <server-url> (the conformance suite appends it)');
  process.exit(2);
}
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as ScenarioContext;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const home = makeHome();
/**
 * The organisation's policy this person works under: its client metadata document (a URL-based client id) is the
 * one the suite's authorization servers expect; servers that do not support such ids register dynamically.
 */
const policyFile = path.join(home, 'organisation-policy.json');
fs.writeFileSync(
  policyFile,
  JSON.stringify({ oauth: { clientMetadataUrl: 'https://conformance-test.local/client-metadata.json' } }),
);
const baseEnv = { WORKBENCH_MANAGED_POLICY: policyFile };
const log = (line: string): void => console.log(`[adapter] ${line}`);

/** Runs one CLI command, echoing what it printed, and returns its result. */
async function cli(args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  const result = await runCli(args, { home, input: options.input ?? '', env: { ...baseEnv, ...options.env } });
  log(`workbench ${args.join(' ')} → exit ${result.code}`);
  if (result.stdout.trim()) console.log(result.stdout.trimEnd());
  if (result.stderr.trim()) console.log(result.stderr.trimEnd());
  return result;
}

async function serverState(): Promise<{ state: string; message?: string }> {
  const list = await cliJson<Array<{ name: string; status: { state: string; message?: string } }>>(
    ['servers', 'list', '--status'],
    { home, env: baseEnv },
  );
  const status = list.find((server) => server.name === SERVER)?.status ?? { state: 'missing' };
  log(`state: ${status.state}${status.message ? ` (${status.message})` : ''}`);
  return status;
}

let signIns = 0;
/** `workbench servers login`: the CLI prints the sign-in page's address (no desktop here); the "browser" visits it. */
async function signIn(): Promise<boolean> {
  if (signIns >= MAX_SIGN_INS) return false;
  signIns++;
  // Machine-to-machine (the suite's client-credentials scenarios): the client signs in as itself, no browser.
  if (/client-credentials/.test(scenario))
    return (await cli(['servers', 'login', SERVER, '--client-credentials'])).code === 0;
  const child = spawn(process.execPath, [CLI_ENTRY, 'servers', 'login', SERVER], {
    cwd: ROOT,
    env: cliEnv(home, { ...baseEnv, DISPLAY: undefined, WAYLAND_DISPLAY: undefined, BROWSER: undefined }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let visited = false;
  const onData = (chunk: string): void => {
    output += chunk;
    const address = /^(https?:\/\/\S+)$/m.exec(output)?.[1];
    if (address && !visited) {
      visited = true;
      // The person's browser: the authorization page approves and redirects to the CLI's loopback receiver.
      void fetch(address, { redirect: 'follow' }).then(
        (response) => log(`browser: ${response.status} from ${response.url}`),
        (error: unknown) => log(`browser: ${String(error)}`),
      );
    }
  };
  child.stdout.setEncoding('utf8').on('data', onData);
  child.stderr.setEncoding('utf8').on('data', onData);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  log(`workbench servers login ${SERVER} → exit ${code}`);
  console.log(output.trimEnd());
  return code === 0;
}

/** A value for each required argument, from the tool's input schema: what a model would make up. */
function exampleArgs(
  schema:
    | { properties?: Record<string, { type?: string; default?: unknown; enum?: unknown[] }>; required?: string[] }
    | undefined,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const name of schema?.required ?? []) {
    const property = schema?.properties?.[name] ?? {};
    if (property.default !== undefined) args[name] = property.default;
    else if (property.enum?.length) args[name] = property.enum[0];
    else if (property.type === 'number' || property.type === 'integer') args[name] = name === 'b' ? 3 : 2;
    else if (property.type === 'boolean') args[name] = true;
    else args[name] = 'conformance';
  }
  return args;
}

/** The model: asks for the server's first tool, then answers in words once a tool result is back. */
function respond(request: RecordedRequest): FakeTurn {
  const body = request.body as {
    messages?: Array<{ role: string }>;
    tools?: Array<{ function: { name: string; parameters?: Parameters<typeof exampleArgs>[0] } }>;
  };
  if (body.messages?.at(-1)?.role === 'tool') return { kind: 'reply', text: ['Done.'] };
  const tool = body.tools?.find((candidate) => candidate.function.name.startsWith(`${SERVER}__`));
  if (!tool) return { kind: 'reply', text: ['No tool to call.'] };
  return {
    kind: 'reply',
    toolCalls: [{ name: tool.function.name, argumentChunks: [JSON.stringify(exampleArgs(tool.function.parameters))] }],
  };
}

/**
 * `workbench run` in a terminal (util-linux `script` gives it one), answering what it asks as a person would: a
 * form is accepted with every field left at its default.
 */
function runInTerminal(providerFlags: string[]): Promise<string> {
  const command = [process.execPath, CLI_ENTRY, 'run', ...providerFlags, 'Use the conformance tool.']
    .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: ROOT,
    env: cliEnv(home, { ...baseEnv, TERM: 'dumb', NO_COLOR: '1' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let answered = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    const pending = output.slice(answered);
    if (/asks for information[\s\S]*> $/.test(pending)) {
      answered = output.length;
      child.stdin.write('a\r');
    } else if (/\n {2}[^\n]*: $/.test(pending) && /asks for information/.test(output)) {
      answered = output.length;
      child.stdin.write('\r');
    } else if (/Send the model's answer[\s\S]*> $/.test(pending)) {
      answered = output.length;
      child.stdin.write('y\r');
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      log(`workbench run (in a terminal) → exit ${code}`);
      console.log(output.trimEnd());
      resolve(output);
    });
  });
}

async function main(): Promise<number> {
  const fake = await startFakeLlmServer({ respond });
  try {
    await cliJson(
      [
        'providers',
        'add',
        '--kind',
        'openai',
        '--id',
        'fake',
        '--base-url',
        fake.baseURL('openai'),
        '--model',
        'fake-large',
        '--api-key-env',
        'AIWB_TEST_KEY',
      ],
      {
        home,
        env: { ...baseEnv, AIWB_TEST_KEY: TEST_KEY },
      },
    );
    const providerFlags = ['--provider', 'fake'];
    const add = ['servers', 'add', SERVER, '--url', serverUrl as string];
    const env: Record<string, string> = {};
    if (context.client_id !== undefined) add.push('--oauth-client-id', context.client_id);
    if (context.client_secret !== undefined) {
      env.CONFORMANCE_CLIENT_SECRET = context.client_secret;
      add.push('--oauth-client-secret-env', 'CONFORMANCE_CLIENT_SECRET');
    }
    // Cross-app access: the organisation's identity provider, the client registered there, and the person's ID token
    // (from the environment, as a person would give it: never on the command line).
    if (context.idp_issuer !== undefined && context.idp_client_id !== undefined) {
      add.push('--idp-issuer', context.idp_issuer, '--idp-client-id', context.idp_client_id);
      if (context.idp_token_endpoint !== undefined) add.push('--idp-token-endpoint', context.idp_token_endpoint);
      if (context.idp_id_token !== undefined) {
        env.CONFORMANCE_ID_TOKEN = context.idp_id_token;
        add.push('--id-token-env', 'CONFORMANCE_ID_TOKEN');
      }
    }
    if (context.private_key_pem !== undefined) {
      const keyFile = path.join(home, 'client-key.pem');
      fs.writeFileSync(keyFile, context.private_key_pem, { mode: 0o600 });
      add.push('--oauth-private-key-file', keyFile, '--oauth-signing-algorithm', context.signing_algorithm ?? 'ES256');
    }
    if ((await cli(add, { env })).code !== 0) return 1;

    let state = await serverState();
    while (state.state === 'needs-sign-in' && (await signIn())) state = await serverState();
    await cli(['servers', 'tools', SERVER]);
    if (state.state !== 'ready') return 1;
    await cli(['policy', 'set', 'server', SERVER, 'auto-approve']);
    // The run says when the server wants a sign-in (or more access), and the person signs in as it says. Nothing
    // else connects after the call: the suite measures what the client does once the call ended.
    while (/sign in|more access/i.test(await runInTerminal(providerFlags))) {
      if (!(await signIn())) return 1;
    }
    return 0;
  } finally {
    await fake.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

process.exit(await main());
