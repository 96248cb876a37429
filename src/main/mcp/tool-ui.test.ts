import { beforeAll, describe, expect, it } from 'vitest';
import { toolUiOf, visibleToApp, visibleToModel } from '../../shared/mcp-apps';
import type { McpTool } from '../../shared/mcp';
import { offerTools, recordOf } from '../chat/tool-offer';
import { loadSdkTypes } from './sdk-types';
import { createToolRegistry, definitionHash } from './tool-registry';

const tool = (name: string, meta?: Record<string, unknown>): Record<string, unknown> => ({
  name,
  description: `${name} does things.`,
  inputSchema: { type: 'object' },
  ...(meta ? { _meta: meta } : {}),
});

beforeAll(async () => {
  await loadSdkTypes();
});

describe("a tool's view (_meta.ui)", () => {
  it('reads the resource URI and who may call the tool, defaulting to both', () => {
    expect(toolUiOf(undefined)).toEqual({});
    expect(toolUiOf({ other: 1 })).toEqual({});
    expect(toolUiOf({ ui: { resourceUri: 'ui://clock/view.html' } })).toEqual({
      ui: { resourceUri: 'ui://clock/view.html', visibility: ['model', 'app'] },
    });
    expect(toolUiOf({ 'ui/resourceUri': 'ui://clock/view.html' })).toEqual({
      ui: { resourceUri: 'ui://clock/view.html', visibility: ['model', 'app'] },
    });
    expect(toolUiOf({ ui: { visibility: ['app'] } })).toEqual({ ui: { visibility: ['app'] } });
    // Unknown entries give nothing; an empty list lets nobody call the tool.
    expect(
      toolUiOf({ ui: { resourceUri: 'ui://a/b', visibility: ['everyone', 'app', 'app'] } }).ui?.visibility,
    ).toEqual(['app']);
    expect(visibleToModel(toolUiOf({ ui: { visibility: [] } }))).toBe(false);
    expect(visibleToApp(toolUiOf({ ui: { visibility: [] } }))).toBe(false);
  });

  it('refuses a view that is not a ui:// URI and a visibility that is not a list', () => {
    for (const resourceUri of [
      'https://evil.example/view.html',
      'javascript:alert(1)',
      'ui://',
      'file:///etc/passwd',
      42,
    ]) {
      expect(toolUiOf({ ui: { resourceUri } }).problem, String(resourceUri)).toMatch(/not a ui:\/\/ URI/);
    }
    expect(toolUiOf({ ui: { resourceUri: 'ui://a/b', visibility: 'app' } }).problem).toMatch(/not a list/);
  });

  it('is part of the definition hash only when declared, so a change of visibility is a changed definition', () => {
    const content = { name: 'read', inputSchema: { type: 'object' } };
    expect(definitionHash({ ...content, ui: undefined })).toBe(definitionHash(content));
    expect(definitionHash({ ...content, ui: { visibility: ['app'] } })).not.toBe(
      definitionHash({ ...content, ui: { visibility: ['app', 'model'] } }),
    );

    const registry = createToolRegistry();
    registry.update('clock', [tool('tick', { ui: { resourceUri: 'ui://clock/v', visibility: ['app'] } })], false);
    const outcome = registry.update(
      'clock',
      [tool('tick', { ui: { resourceUri: 'ui://clock/v', visibility: ['app', 'model'] } })],
      false,
    );
    expect(outcome.changed).toEqual(['tick']);
    expect(registry.get('clock', 'tick')?.previous?.ui).toEqual({ resourceUri: 'ui://clock/v', visibility: ['app'] });
  });

  it('makes a tool with a malformed view unusable, with the reason in the notices', () => {
    const registry = createToolRegistry();
    const outcome = registry.update('clock', [tool('tick', { ui: { resourceUri: 'https://evil.example/' } })], false);
    expect(registry.get('clock', 'tick')?.problem).toMatch(/not a ui:\/\/ URI/);
    expect(outcome.notices.join('\n')).toMatch(/"tick" cannot be used/);
    expect(outcome.checked).toEqual([]);
  });

  it('never offers the model a tool for views alone, and a call of it by name runs nothing', () => {
    const registry = createToolRegistry();
    registry.update(
      'monitor',
      [
        tool('show', { ui: { resourceUri: 'ui://monitor/view.html' } }),
        tool('poll', { ui: { visibility: ['app'] } }),
        tool('plain'),
      ],
      false,
    );
    const tools: McpTool[] = registry
      .list()
      .map(({ validateOutput: _validator, ...rest }) => ({ ...rest, available: true }));
    const offer = offerTools(tools);
    expect(offer.specs.map((spec) => spec.name).sort()).toEqual(['monitor__plain', 'monitor__show']);
    const { record } = recordOf(
      { id: 'c1', name: 'monitor__poll', arguments: { kind: 'parsed', value: {} } },
      't1',
      offer,
    );
    expect(record.status).toBe('error');
    expect(record.error).toMatch(/There is no tool named "monitor__poll"/);
  });
});
