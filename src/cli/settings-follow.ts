import type { McpServerChange } from '../shared/mcp';
import type { IdentityChange } from '../shared/server-identity';
import type { CliSession } from './session';

export interface IdentityQuestion {
  server: string;
  change: IdentityChange;
}

/**
 * What `workbench chat` follows while it runs (docs/user/cli.md#settingsjson-while-chat-runs): settings.json, through
 * the core's own watch (settings/settings-watch.ts) as the app does, and the servers whose identity is not accepted —
 * one question per server and what it runs, asked once. `onChange` is told whenever there is something new to say.
 */
export interface SettingsFollower {
  /** Problems with settings.json not yet printed, each once. */
  takeProblems(): string[];
  /** Servers waiting for the person to accept what they run, not yet asked about. */
  takeQuestions(): IdentityQuestion[];
  close(): void;
}

export function followSettings(session: CliSession, onChange: () => void): SettingsFollower {
  const { services } = session;
  const problems: string[] = [];
  const questions = new Map<string, IdentityQuestion>();
  const asked = new Set<string>();
  const consider = (server: { name: string; enabled: boolean; identityChanged?: IdentityChange | undefined }): void => {
    if (!server.enabled || !server.identityChanged) return;
    const key = `${server.name}\u0000${server.identityChanged.current}`;
    if (asked.has(key)) return;
    asked.add(key);
    questions.set(server.name, { server: server.name, change: server.identityChanged });
    onChange();
  };
  const offReload = services.settingsWatch.onDidReload((reload) => {
    // The watch tells the same problem once, until a good save (settings-watch.ts).
    if (reload.kind !== 'invalid') return;
    problems.push(reload.message);
    onChange();
  });
  const offEvents = services.events.subscribe((event, payload) => {
    if (event !== 'mcp.onDidChangeServer') return;
    const change = payload as McpServerChange;
    if (change.kind === 'updated') consider(change.server);
  });
  services.settingsWatch.start();
  for (const server of services.mcpServers.list()) consider(server);
  return {
    takeProblems: () => problems.splice(0),
    takeQuestions() {
      const taken = [...questions.values()];
      questions.clear();
      return taken;
    },
    close() {
      offReload();
      offEvents();
      services.settingsWatch.stop();
    },
  };
}
