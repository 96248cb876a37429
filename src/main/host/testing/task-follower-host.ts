/**
 * A host in a process of its own, for the test of one follower per task (task-follower.test.ts): it opens the
 * services on the data folder it is given, lets the model call `slow_report` of the task server at the URL it is
 * given (the provider is the test's fake LLM server), and once the call runs as a task prints one JSON line with the
 * chat and the call; then it keeps running, following the task, until it is killed. Run with `tsx`.
 *
 *   task-follower-host.ts DATA_DIR REPORTS_URL LLM_BASE_URL
 *
 * With `follow` as its only argument after DATA_DIR, it opens the services on a data folder whose server and task
 * call are there already, so that it follows the task another host created, and keeps running until it is killed.
 */
import { createServices } from '../../services';

const [dataDir, reportsUrl, llmBaseUrl] = process.argv.slice(2) as [string, string, string];
const SERVER = 'Reports';
const TOOL = 'slow_report';

const services = createServices({ dataDir, host: 'cli', command: 'chat', version: '0.0.0', managedPolicyFile: null });
services.mcp.start();
if (reportsUrl === 'follow') {
  setInterval(() => {}, 60_000);
  await new Promise<never>(() => undefined);
}
services.providers.add({ kind: 'openai', label: 'Fake', apiKey: 'sk-test', baseURL: llmBaseUrl });
services.providers.update({ id: 'fake', defaultModel: 'fake-large' });
services.mcpServers.add(SERVER, { url: reportsUrl });
services.approvals.policy.update({ servers: { [SERVER]: { autoApprove: true } } });
await services.mcp.whenSettled({ serverName: SERVER });
const chatId = services.chats.create({ providerId: 'fake', model: 'fake-large' }).id;
services.conversations.send(chatId, { role: 'user', text: 'write the report' });
const running = setInterval(() => {
  const call = services.conversations
    .messages(chatId)
    .messages.flatMap((message) =>
      message.role === 'assistant' ? message.reply.turns.flatMap((turn) => turn.toolCalls ?? []) : [],
    )
    .find((candidate) => candidate.toolName === TOOL && candidate.task?.statusMessage === 'Writing…');
  if (!call) return;
  clearInterval(running);
  process.stdout.write(`${JSON.stringify({ chatId, toolCallId: call.toolCallId })}\n`);
}, 20);
// Kept alive until killed.
setInterval(() => {}, 60_000);
