/**
 * `npm run bench [-- NAME…] [--json]`: one line per benchmark,
 * `bench NAME: VALUE UNIT (goal OP GOAL) ok|FAIL`. Each benchmark compares against a baseline
 * measured in the same run, because these machines are noisy. Exits 1 when a goal is missed.
 */
import { appStart, rendererFirstLoad } from './bench/app-start.ts';
import { appViewFirstRender } from './bench/app-view-first-render.ts';
import { auditCommit } from './bench/audit-commit.ts';
import { auditExport } from './bench/audit-export.ts';
import { auditShip } from './bench/audit-ship.ts';
import { auditVerify } from './bench/audit-verify.ts';
import { insights } from './bench/insights.ts';
import { cliRunTool } from './bench/cli-run-tool.ts';
import { cliStart } from './bench/cli-start.ts';
import { contractRoundtrip } from './bench/contract-roundtrip.ts';
import { firstToken } from './bench/first-token.ts';
import { firstTokenCold } from './bench/first-token-cold.ts';
import { loopOverhead } from './bench/loop-overhead.ts';
import { formatLine, judgeAll, type Benchmark, type BenchResult } from './bench/harness.ts';
import { mcpCallOverhead } from './bench/mcp-call-overhead.ts';
import { mcpDiscover } from './bench/mcp-discover.ts';
import { mcpStartCpu } from './bench/mcp-start-cpu.ts';
import { mcpLargeResult } from './bench/mcp-large-result.ts';
import { mcpStartup } from './bench/mcp-startup.ts';
import { mcpStartupHttp } from './bench/mcp-startup-http.ts';
import { oauthRefresh } from './bench/oauth-refresh.ts';
import { policyDecision } from './bench/policy-decision.ts';
import { samplingOverhead } from './bench/sampling-overhead.ts';
import { sandboxCall, sandboxStart } from './bench/sandbox.ts';
import { uiLongChat } from './bench/ui-long-chat.ts';
import { uiStreaming } from './bench/ui-streaming.ts';
import { ensureBuilt } from './lib/project.ts';

const BENCHMARKS: readonly Benchmark[] = [
  cliStart,
  cliRunTool,
  contractRoundtrip,
  firstToken,
  firstTokenCold,
  loopOverhead,
  samplingOverhead,
  policyDecision,
  mcpCallOverhead,
  mcpDiscover,
  mcpStartupHttp,
  mcpStartCpu,
  mcpStartup,
  sandboxStart,
  sandboxCall,
  mcpLargeResult,
  oauthRefresh,
  auditCommit,
  auditExport,
  auditVerify,
  insights,
  auditShip,
  uiLongChat,
  uiStreaming,
  appStart,
  rendererFirstLoad,
  appViewFirstRender,
];

const args = process.argv.slice(2);
const json = args.includes('--json');
const names = args.filter((arg) => !arg.startsWith('--'));
const unknown = names.filter((name) => !BENCHMARKS.some((bench) => bench.name === name));
if (unknown.length > 0) {
  console.error(`Unknown benchmark ${unknown.join(', ')}. Known: ${BENCHMARKS.map((bench) => bench.name).join(', ')}.`);
  process.exit(2);
}
const selected = names.length > 0 ? BENCHMARKS.filter((bench) => names.includes(bench.name)) : BENCHMARKS;

await ensureBuilt();
const results: BenchResult[] = [];
for (const bench of selected) {
  if (!json) console.error(`running ${bench.name}: ${bench.description}`);
  for (const result of judgeAll(bench, await bench.run())) {
    results.push(result);
    if (!json) console.log(formatLine(result));
  }
}
if (json) console.log(JSON.stringify(results, null, 2));
process.exit(results.every((result) => result.ok) ? 0 : 1);
