import { describe, expect, it } from 'vitest';
import type { ToolCallRecord } from '../shared/messages';
import { createColors } from './terminal';
import { progressLine, toolCallLine } from './transcript';

const colors = createColors(false);
const call = (extra: Partial<ToolCallRecord>): ToolCallRecord =>
  ({
    toolCallId: 'c1',
    serverName: 'everything',
    toolName: 'trigger-long-running-operation',
    args: {},
    modelCall: { id: 'c1', name: 'everything__trigger-long-running-operation', arguments: '{}' },
    status: 'running',
    ...extra,
  }) as ToolCallRecord;

describe('progressLine (docs/user/mcp-servers.md#progress)', () => {
  it('says how far a running call is, with the percentage when the server gives a total', () => {
    expect(progressLine(call({ progress: { progress: 3, total: 5 } }), colors)).toBe(
      '    ↳ everything · trigger-long-running-operation · 3 of 5 (60%)',
    );
    expect(progressLine(call({ progress: { progress: 7, message: 'indexing\nmore' } }), colors)).toBe(
      '    ↳ everything · trigger-long-running-operation · 7 so far · indexing',
    );
  });

  it('says nothing for a call without progress or one that ended', () => {
    expect(progressLine(call({}), colors)).toBeUndefined();
    expect(progressLine(call({ status: 'success', progress: { progress: 1, total: 1 } }), colors)).toBeUndefined();
  });
});

describe('toolCallLine', () => {
  it('marks a call that ran only because approvals were off, and no other', () => {
    const ran = (approvalsOff?: 'global' | 'chat') =>
      toolCallLine(
        call({
          status: 'success',
          durationMs: 12,
          decision: { outcome: 'allow', actor: 'policy', reason: 'r', ...(approvalsOff ? { approvalsOff } : {}) },
        }),
        colors,
      );
    expect(ran('global')).toBe(
      '  ⏺ everything · trigger-long-running-operation · ok · 12 ms (not asked: approvals off)',
    );
    expect(ran('chat')).toBe(
      '  ⏺ everything · trigger-long-running-operation · ok · 12 ms (not asked: this chat never asks)',
    );
    expect(ran()).toBe('  ⏺ everything · trigger-long-running-operation · ok · 12 ms\n      Ran without asking: r');
  });

  it('says why a call ran without asking: the rule or setting that allowed it; not for a call a person allowed', () => {
    const reason = "Auto-approved: tool setting 'everything.trigger-long-running-operation'";
    expect(
      toolCallLine(
        call({ status: 'success', durationMs: 5, decision: { outcome: 'allow', actor: 'policy', reason } }),
        colors,
      ),
    ).toBe(
      "  ⏺ everything · trigger-long-running-operation · ok · 5 ms\n      Ran without asking: tool setting 'everything.trigger-long-running-operation'",
    );
    expect(
      toolCallLine(
        call({
          status: 'success',
          durationMs: 5,
          decision: { outcome: 'allow', actor: 'user', reason: "You chose 'Allow once'" },
        }),
        colors,
      ),
    ).toBe('  ⏺ everything · trigger-long-running-operation · ok · 5 ms');
  });
});

describe('a result with an MCP Apps view (docs/user/mcp-apps.md)', () => {
  it('says the result has a view and prints its text content; a result without a view says nothing of views', () => {
    const result = {
      isError: false,
      content: [{ type: 'text' as const, text: '2026-11-27T08:00:00Z\nsecond line' }],
      sizeBytes: 40,
      forModel: { text: '2026-11-27T08:00:00Z', truncated: false },
    };
    const withView = toolCallLine(call({ status: 'success', viewUri: 'ui://clock/view', result }), colors);
    expect(withView).toContain('This result has a view; it shows in the app.');
    expect(withView).toContain('      2026-11-27T08:00:00Z\n      second line');
    expect(toolCallLine(call({ status: 'success', result }), colors)).not.toContain('view');
  });
});
