import { describe, expect, it } from 'vitest';
import { McpToolResultSchema } from '../../shared/mcp-result';
import { z } from 'zod';
import { LenientCallToolResultSchema, asCallToolResult, normaliseToolResult, protocolErrorResult } from './tool-result';

describe('normaliseToolResult', () => {
  it('renders every part for the model and keeps the parts as they were', () => {
    const result = normaliseToolResult({
      content: [
        { type: 'text', text: 'first' },
        { type: 'resource', resource: { uri: 'mem://note', text: 'note text' } },
      ],
      isError: true,
    });
    expect(McpToolResultSchema.parse(result)).toEqual(result);
    expect(result).toMatchObject({
      isError: true,
      forModel: { text: 'first\n\n[resource <mem://note>]\nnote text', truncated: false },
    });
    expect(result.content[1]).toEqual({ type: 'resource', uri: 'mem://note', text: 'note text' });
  });

  it('gives the model the structured content when there is no other content', () => {
    expect(normaliseToolResult({ content: [], structuredContent: { a: 1 } }).forModel.text).toBe('{"a":1}');
  });

  it('reads the 2024-10-07 `toolResult` answer', () => {
    expect(normaliseToolResult({ toolResult: { ok: true } }).forModel.text).toBe('{"ok":true}');
  });

  it('cuts the model’s text at the limit on a character boundary and says how much there was', () => {
    const text = 'é'.repeat(1000); // 2 bytes each
    const result = normaliseToolResult({ content: [{ type: 'text', text }] }, { modelLimitBytes: 101 });
    expect(result.forModel.truncated).toBe(true);
    expect(result.forModel.text).toBe(
      `${'é'.repeat(50)}\n\n[The result was cut: this is the first 100 bytes of 2 KiB. The whole result is kept with the chat.]`,
    );
    expect(result.content[0]).toEqual({ type: 'text', text });
  });

  it('makes a failed result of a JSON-RPC error', () => {
    expect(protocolErrorResult(-32602, 'Unknown tool: x')).toMatchObject({
      isError: true,
      protocolError: { code: -32602, message: 'Unknown tool: x' },
      forModel: { text: 'The tool failed: Unknown tool: x (JSON-RPC error -32602)' },
    });
  });
});

describe('asCallToolResult', () => {
  const answers: unknown[] = [
    { content: [{ type: 'text', text: 'hi' }] },
    { content: [], structuredContent: { a: 1 }, isError: false },
    { toolResult: 42, other: 'kept' },
    {},
    { content: 'text' },
    { content: null },
    { isError: 'yes' },
    { structuredContent: [1, 2] },
    { structuredContent: 'x' },
    { structuredContent: null },
    [],
    null,
    'answer',
    7,
  ];

  it('takes exactly the answers the lenient schema takes, and says what is wrong with the others', () => {
    for (const answer of answers) {
      const bySchema = LenientCallToolResultSchema.safeParse(answer);
      if (bySchema.success) {
        expect(asCallToolResult(answer), JSON.stringify(answer)).toEqual(bySchema.data);
        continue;
      }
      let thrown: unknown;
      try {
        asCallToolResult(answer);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(answer)).toBeInstanceOf(z.core.$ZodError);
      expect(z.prettifyError(thrown as z.core.$ZodError)).toBe(z.prettifyError(bySchema.error));
    }
  });
});
