// The second floor of `cli-run-tool`: the same work as `workbench run` with one tool call, done by the official SDKs
// alone — the MCP SDK spawns the server, initializes and lists its tools; the OpenAI SDK streams the model's first
// reply (a call of `echo`); the MCP SDK calls it; the OpenAI SDK streams the answer; exit. No settings, policy,
// approval or audit log. Plain JavaScript, so nothing but Node and the two SDKs is loaded.
// Usage: node same-work-client.mjs BASE_URL API_KEY MODEL SERVER_ENTRY [ARGS…]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import OpenAI from 'openai';

const [baseURL, apiKey, model, entry, ...args] = process.argv.slice(2);
const openai = new OpenAI({ baseURL, apiKey });
const client = new Client({ name: 'same-work-floor', version: '0.0.0' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [entry, ...args],
    env: { ...process.env },
    stderr: 'ignore',
  }),
);
const { tools } = await client.listTools();
const messages = [{ role: 'user', content: 'echo hello' }];

/** Streams one reply: its text and its tool calls, as the chunks build them. */
async function reply(withTools) {
  const stream = await openai.chat.completions.create({
    model,
    messages,
    stream: true,
    ...(withTools
      ? {
          tools: tools.map((tool) => ({
            type: 'function',
            function: { name: `everything__${tool.name}`, description: tool.description, parameters: tool.inputSchema },
          })),
        }
      : {}),
  });
  let text = '';
  const calls = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    text += delta?.content ?? '';
    for (const call of delta?.tool_calls ?? []) {
      const built = (calls[call.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      built.id ||= call.id ?? '';
      built.function.name += call.function?.name ?? '';
      built.function.arguments += call.function?.arguments ?? '';
    }
  }
  return { text, calls };
}

const first = await reply(true);
messages.push({ role: 'assistant', content: first.text, tool_calls: first.calls });
for (const call of first.calls) {
  const result = await client.callTool({
    name: call.function.name.replace(/^everything__/, ''),
    arguments: JSON.parse(call.function.arguments),
  });
  messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result.content) });
}
const second = await reply(false);
process.stdout.write(`${first.text}\n${second.text}\n`);
await client.close();
