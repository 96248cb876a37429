import { describe, expect, it } from 'vitest';
import type { ConversationMessage, GenerateEvent, GenerateRequest, ModelToolCall, ToolSpec } from './conversation';
import { createDemoProvider, textChunks } from './demo-provider';
import { collect, textOf } from './testing/drive';
import { providerToolName } from './tool-names';

/** The tools of @modelcontextprotocol/server-filesystem as the loop would offer them, plus one of another server. */
const FILE_TOOLS = [
  'read_file',
  'read_text_file',
  'write_file',
  'list_directory',
  'list_allowed_directories',
  'directory_tree',
];
const tools: ToolSpec[] = [
  {
    name: providerToolName('memory', 'read_graph'),
    description: 'Read the knowledge graph',
    inputSchema: { type: 'object' },
  },
  ...FILE_TOOLS.map((name) => ({
    name: providerToolName('files', name),
    description: `The ${name} tool`,
    inputSchema: { type: 'object' },
  })),
  {
    name: providerToolName('my server', 'do.it'),
    description: 'A tool with an awkward name',
    inputSchema: { type: 'object' },
  },
];

const demo = createDemoProvider({ chunkDelayMs: 0 });

function ask(text: string, toolList = tools, before: ConversationMessage[] = []): GenerateRequest {
  return { model: 'demo', tools: toolList, messages: [...before, { role: 'user', content: [{ type: 'text', text }] }] };
}

const calls = (events: readonly GenerateEvent[]): ModelToolCall[] =>
  events.flatMap((event) => (event.type === 'tool_call' ? [event.call] : []));

async function callFor(text: string, toolList = tools): Promise<{ name: string; args: unknown } | undefined> {
  const { events } = await collect(demo.generate(ask(text, toolList)));
  const [call] = calls(events);
  return call && { name: call.name, args: call.arguments.kind === 'parsed' ? call.arguments.value : call.arguments };
}

describe('Demo provider', () => {
  it.each([
    ['list files', 'files__list_directory', { path: '.' }],
    ['List files docs/2026', 'files__list_directory', { path: 'docs/2026' }],
    ['read notes.md', 'files__read_text_file', { path: 'notes.md' }],
    ['read  my notes.md ', 'files__read_text_file', { path: 'my notes.md' }],
    ['write out.txt: Hello, world', 'files__write_file', { path: 'out.txt', content: 'Hello, world' }],
    ['write a.md: line 1\nline 2: more', 'files__write_file', { path: 'a.md', content: 'line 1\nline 2: more' }],
    ['/tool files.directory_tree {"path": "src"}', 'files__directory_tree', { path: 'src' }],
    ['/tool memory.read_graph', 'memory__read_graph', {}],
    ['/tool my server.do.it {"x": 1}', providerToolName('my server', 'do.it'), { x: 1 }],
  ])('turns "%s" into a call of %s', async (text, name, args) => {
    expect(await callFor(text)).toEqual({ name, args });
  });

  it('streams like a model: text in several deltas, then the call, then finish tool_calls', async () => {
    const { events } = await collect(demo.generate(ask('read notes.md')));
    const deltas = events.filter((event) => event.type === 'text');
    expect(deltas.length).toBeGreaterThan(1);
    expect(textOf(events)).toBe('Calling `files__read_text_file` with `{"path":"notes.md"}`.');
    expect(events.at(-2)).toMatchObject({
      type: 'tool_call',
      call: { id: expect.stringMatching(/^demo-/), name: 'files__read_text_file' },
    });
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
  });

  it('falls back to read_file and list_allowed_directories when the newer tools are missing', async () => {
    const older = tools.filter((tool) => !/read_text_file|list_directory$/.test(tool.name));
    expect(await callFor('read a.txt', older)).toEqual({ name: 'files__read_file', args: { path: 'a.txt' } });
    expect(await callFor('list files', older)).toEqual({ name: 'files__list_allowed_directories', args: {} });
  });

  it('answers anything else with help that lists the commands and the tools', async () => {
    const { events } = await collect(demo.generate(ask('What is the weather?')));
    expect(calls(events)).toEqual([]);
    const text = textOf(events);
    expect(text).toContain('I don\'t understand "What is the weather?"');
    expect(text).toContain('not an AI model');
    for (const command of ['`list files`', '`read NAME`', '`write NAME: TEXT`', '`/tool SERVER.TOOL'])
      expect(text).toContain(command);
    expect(text).toContain('`files__write_file`');
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it('says what is missing instead of calling a tool that is not there', async () => {
    const { events } = await collect(demo.generate(ask('read notes.md', [])));
    expect(calls(events)).toEqual([]);
    expect(textOf(events)).toContain('needs a tool called read_text_file');
    expect(textOf((await collect(demo.generate(ask('/tool files.delete_everything {}')))).events)).toContain(
      'No tool called `files.delete_everything`',
    );
    expect(textOf((await collect(demo.generate(ask('/tool files.read_file {path:')))).events)).toContain(
      'must be a JSON object',
    );
    expect(textOf((await collect(demo.generate(ask('/tool files.read_file [1]')))).events)).toContain(
      'must be a JSON object',
    );
    expect(textOf((await collect(demo.generate(ask('help', [])))).events)).toContain('No tools are available');
  });

  it('summarizes the results that came back, errors and denials included', async () => {
    const call = (id: string, name: string): ModelToolCall => ({ id, name, arguments: { kind: 'parsed', value: {} } });
    const request: GenerateRequest = {
      model: 'demo',
      tools,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'list files' }] },
        {
          role: 'assistant',
          text: 'Calling…',
          toolCalls: [call('1', 'files__list_directory'), call('2', 'files__write_file')],
        },
        {
          role: 'tool',
          results: [
            {
              toolCallId: '1',
              toolName: 'files__list_directory',
              content: [{ type: 'text', text: '[FILE] notes.md\n[DIR] src' }],
              isError: false,
            },
          ],
        },
        {
          role: 'tool',
          results: [
            {
              toolCallId: '2',
              toolName: 'files__write_file',
              content: [{ type: 'text', text: 'User denied tool invocation' }],
              isError: true,
            },
          ],
        },
      ],
    };
    const { events } = await collect(demo.generate(request));
    expect(calls(events)).toEqual([]);
    const text = textOf(events);
    expect(text).toContain('**files__list_directory** returned:\n\n[FILE] notes.md\n[DIR] src');
    expect(text).toContain('**files__write_file** did not succeed: User denied tool invocation');
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it('stops when aborted and ends with aborted', async () => {
    const controller = new AbortController();
    const slow = createDemoProvider({ chunkDelayMs: 5 });
    const events: GenerateEvent[] = [];
    for await (const event of slow.generate(ask('what now?'), controller.signal)) {
      events.push(event);
      if (event.type === 'text') controller.abort();
    }
    expect(events.filter((event) => event.type === 'text')).toHaveLength(1);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'aborted' });
  });

  it('offers one model, which says what it is', async () => {
    expect(await demo.listModels()).toEqual([{ id: 'demo', label: 'Demo (scripted, not an AI model)' }]);
  });

  it('chunks text without losing a character', () => {
    const text = 'One  two\nthree  four five six seven';
    expect(textChunks(text).join('')).toBe(text);
    expect(textChunks(text).length).toBe(3);
  });
});
