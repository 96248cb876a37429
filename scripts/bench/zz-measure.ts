import { bareNode, measureOk, measurePairs, medianOf } from './process-measure.ts';
const INIT = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'b', version: '0' } } })}\n`;
const env = { ...process.env, NODE_COMPILE_CACHE: '/tmp/snap/cc' };
for (const argv of [[process.execPath, '/work/main/out/servers/server-filesystem-2026.8.31.mjs', '/tmp/snap/sb'], [process.execPath, '--snapshot-blob', '/tmp/snap/fs.blob', '/tmp/snap/sb']]) {
  const start = () => measureOk({ argv, env, input: INIT, keepStdinOpen: true, stopAt: '"result"' }, 'x');
  await start();
  const pairs = await measurePairs(15, start, bareNode);
  const cpu = medianOf(pairs.subject, (s) => s.cpuMs), floor = medianOf(pairs.floor, (s) => s.cpuMs);
  console.log(argv[1], cpu.toFixed(1), 'ms cpu', medianOf(pairs.subject, (s) => s.wallMs).toFixed(1), 'ms wall', medianOf(pairs.subject, (s) => s.maxRssMB).toFixed(0), 'MB; floor', floor.toFixed(1), '→', (cpu / floor).toFixed(2));
}
