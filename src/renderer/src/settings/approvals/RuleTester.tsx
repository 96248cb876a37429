import { useEffect, useId, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { PolicyExplanation } from '../../../../shared/approval';
import type { AuditEntry } from '../../../../shared/audit';
import type { Chat } from '../../../../shared/chat';
import type { McpTool } from '../../../../shared/mcp';
import { Field, Notice, errorText } from '../common';

interface Draft {
  server: string;
  tool: string;
  args: string;
}

const EMPTY: Draft = { server: '', tool: '', args: '{}' };
const RECENT_CALLS = 20;

/**
 * "Test a call" (docs/user/approvals.md, "Testing your rules"): a server, tool and arguments, typed or taken from a
 * past call in the audit log, and what the policy in force would decide, with the step that decided and every step
 * looked at — in a chosen chat (its mode and grants count, and the past calls offered are that chat's) or in none.
 * It asks main's `policy.explain`, the same pipeline the calls go through; it changes nothing.
 */
export function RuleTester({ api }: { api: WorkbenchApi }): React.JSX.Element {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [tools, setTools] = useState<McpTool[]>([]);
  const [recent, setRecent] = useState<AuditEntry[]>([]);
  const [chats, setChats] = useState<Chat[]>([]);
  const [chatId, setChatId] = useState('');
  const [argsProblem, setArgsProblem] = useState<string | undefined>();
  const [result, setResult] = useState<PolicyExplanation | null>(null);
  const [error, setError] = useState<string | null>(null);
  const serverList = useId();
  const toolList = useId();

  useEffect(() => {
    let live = true;
    api.mcp.tools().then(
      (found) => live && setTools(found.tools),
      () => undefined,
    );
    api.chat.list().then(
      (found) => live && setChats(found.chats),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api]);

  // The past calls offered: the chosen chat's, or every chat's.
  useEffect(() => {
    let live = true;
    api.audit.query({ kind: 'decision', limit: RECENT_CALLS, ...(chatId ? { chatId } : {}) }).then(
      (page) => live && setRecent(uniqueCalls(page.entries.filter((entry) => !chatId || entry.chatId === chatId))),
      () => live && setRecent([]),
    );
    return () => {
      live = false;
    };
  }, [api, chatId]);

  const set = (patch: Partial<Draft>): void => {
    setDraft((current) => ({ ...current, ...patch }));
    setResult(null);
  };
  const test = async (): Promise<void> => {
    setError(null);
    setArgsProblem(undefined);
    let args: unknown;
    try {
      args = JSON.parse(draft.args.trim() === '' ? '{}' : draft.args);
    } catch (failure) {
      setArgsProblem(`Not JSON: ${(failure as Error).message}`);
      return;
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      setArgsProblem('The arguments are one JSON object, like {"path": "/notes/a.md"}.');
      return;
    }
    try {
      setResult(
        await api.policy.explain({
          server: draft.server.trim(),
          tool: draft.tool.trim(),
          args: args as Record<string, unknown>,
          ...(chatId ? { chatId } : {}),
        }),
      );
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  const servers = [...new Set(tools.map((tool) => tool.serverName))];
  const toolsOfServer = tools.filter((tool) => tool.serverName === draft.server.trim());
  return (
    <section className="settings-section" aria-labelledby="rule-tester-title" data-testid="rule-tester">
      <h3 id="rule-tester-title">Test a call</h3>
      <p className="muted small">
        What would happen to a call now, and which rule or setting decides. Nothing runs and nothing is saved.
      </p>
      {chats.length > 0 && (
        <Field
          label="In the chat"
          hint="A chat's approval mode and its “Allow for this chat” grants count; the past calls below are its own."
        >
          {(props) => (
            <select
              {...props}
              value={chatId}
              onChange={(event) => {
                setChatId(event.target.value);
                setResult(null);
              }}
            >
              <option value="">No chat (its mode and grants are passed over)</option>
              {chats.map((chat) => (
                <option key={chat.id} value={chat.id}>
                  {chat.title}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      {chatId !== '' && recent.length === 0 && <p className="muted small">No calls of this chat in the audit log.</p>}
      {recent.length > 0 && (
        <Field label="From a past call (optional)" hint="The audit log keeps arguments redacted where they were.">
          {(props) => (
            <select
              {...props}
              value=""
              onChange={(event) => {
                const entry = recent[Number(event.target.value)];
                if (entry)
                  set({
                    server: entry.serverName,
                    tool: entry.toolName,
                    args: JSON.stringify(entry.args ?? {}, null, 2),
                  });
              }}
            >
              <option value="">Choose a call from the audit log…</option>
              {recent.map((entry, index) => (
                <option key={entry.sequence} value={index}>
                  {entry.serverName}.{entry.toolName} — {argsPreview(entry.args)}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <form
        noValidate
        className="form form-grid rule-tester-form"
        autoComplete="off"
        onSubmit={(event) => {
          event.preventDefault();
          void test();
        }}
      >
        <Field label="Server">
          {(props) => (
            <input
              {...props}
              className="mono"
              list={serverList}
              value={draft.server}
              onChange={(event) => set({ server: event.target.value })}
            />
          )}
        </Field>
        <Field label="Tool">
          {(props) => (
            <input
              {...props}
              className="mono"
              list={toolList}
              value={draft.tool}
              onChange={(event) => set({ tool: event.target.value })}
            />
          )}
        </Field>
        <div className="span-2">
          <Field label="Arguments (JSON)" problem={argsProblem}>
            {(props) => (
              <textarea
                {...props}
                className="mono"
                rows={3}
                value={draft.args}
                onChange={(event) => set({ args: event.target.value })}
              />
            )}
          </Field>
        </div>
        <datalist id={serverList}>
          {servers.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
        <datalist id={toolList}>
          {toolsOfServer.map((tool) => (
            <option key={tool.name} value={tool.name} />
          ))}
        </datalist>
        <div className="span-2">
          <button
            type="submit"
            className="button button-primary button-small"
            disabled={draft.server.trim() === '' || draft.tool.trim() === ''}
          >
            Test
          </button>
        </div>
      </form>
      {error && <Notice kind="error">{error}</Notice>}
      {result && <TestResult result={result} />}
    </section>
  );
}

const OUTCOME_WORDS: Record<PolicyExplanation['outcome'], string> = {
  allow: 'Runs without asking',
  ask: 'Asks you',
  deny: 'Refused',
};

function TestResult({ result }: { result: PolicyExplanation }): React.JSX.Element {
  return (
    <div className={`rule-test-result outcome-${result.outcome}`} role="status" data-testid="rule-test-result">
      <p>
        <strong>{OUTCOME_WORDS[result.outcome]}</strong>: {result.reason}
      </p>
      {result.keepsAsking && <p className="small">{result.keepsAsking}</p>}
      {!result.toolKnown && (
        <p className="muted small">No connected server offers this tool: its annotations and grants could not count.</p>
      )}
      <ol className="rule-test-trace small" aria-label="Every step looked at">
        {result.considered.map((step, index) => (
          <li key={index} className={`trace-${step.result}`}>
            <span className="trace-mark" aria-hidden="true">
              {step.result === 'decided' ? '→' : step.result === 'ignored' ? '×' : '·'}
            </span>{' '}
            <span className="muted">{step.step}.</span> {step.detail}
            {step.result === 'decided' && <span className="visually-hidden"> (decided)</span>}
          </li>
        ))}
      </ol>
    </div>
  );
}

/** The latest row of each distinct call (same server, tool and arguments). */
function uniqueCalls(entries: readonly AuditEntry[]): AuditEntry[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = `${entry.serverName}\u0000${entry.toolName}\u0000${JSON.stringify(entry.args)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function argsPreview(args: unknown): string {
  const text = JSON.stringify(args ?? {});
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
