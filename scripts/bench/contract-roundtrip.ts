import { spawn } from 'node:child_process';
import { WebSocket } from 'ws';
import { ROOT } from '../lib/project.ts';
import { startBrowserMode } from './browser-mode-process.ts';
import { percentile, type Benchmark } from './harness.ts';

const WARMUP = 300;
const SAMPLES = 3000;
/**
 * A method with no database work behind it, so the ratio measures what the contract layer adds:
 * frame parsing, input and output validation, dispatch and the JSON of the reply.
 */
const METHOD = 'app.info';

/**
 * A raw WebSocket server in its own process that answers every frame with a canned reply: the
 * baseline does the same wire work as a contract call (same request bytes, same reply bytes)
 * with no dispatch, validation or database behind it.
 */
const ECHO_SERVER = `
import { WebSocketServer } from 'ws';
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
let reply = null;
server.on('connection', (socket) => socket.on('message', (data) => {
  const text = data.toString();
  if (reply === null) { reply = text; socket.send('configured'); return; }
  socket.send(reply);
}));
server.on('listening', () => console.log(server.address().port));
`;

function open(
  url: string,
  options: ConstructorParameters<typeof WebSocket>[2] = {},
  protocols: string[] = [],
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, options);
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends a frame and resolves with the next reply that starts with `expect` (events pushed meanwhile are passed over). */
function roundTrip(socket: WebSocket, frame: string, expect = ''): Promise<string> {
  return new Promise((resolve) => {
    const onMessage = (data: Buffer): void => {
      const text = data.toString();
      if (!text.startsWith(expect)) return;
      socket.off('message', onMessage);
      resolve(text);
    };
    socket.on('message', onMessage);
    socket.send(frame);
  });
}

export const contractRoundtrip: Benchmark = {
  name: 'contract-roundtrip',
  description: `p50 of ${METHOD} over the browser-mode WebSocket ÷ p50 of a raw WebSocket round trip with the same bytes`,
  async run() {
    const server = await startBrowserMode();
    const echo = spawn(process.execPath, ['--input-type=module', '-e', ECHO_SERVER], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const echoPort = await new Promise<number>((resolve) =>
        echo.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
      );
      const contract = await open(`ws://${new URL(server.url).host}/ws`, { origin: server.origin }, [
        'aiwb.v1',
        `aiwb.token.${server.token}`,
      ]);
      const raw = await open(`ws://127.0.0.1:${echoPort}`);

      let id = 0;
      const call = (method: string, input: unknown): string =>
        JSON.stringify({ type: 'call', id: ++id, method, input });
      const reply = await roundTrip(contract, call(METHOD, {}), '{"type":"result"');
      if (!reply.includes('"ok":true')) throw new Error(`${METHOD} failed: ${reply.slice(0, 200)}`);
      await roundTrip(raw, reply);

      const contractTimes: number[] = [];
      const rawTimes: number[] = [];
      // Interleave the two so that machine noise hits both alike.
      for (let i = 0; i < WARMUP + SAMPLES; i++) {
        const frame = call(METHOD, {});
        let start = performance.now();
        await roundTrip(contract, frame);
        const contractTime = performance.now() - start;
        start = performance.now();
        await roundTrip(raw, frame);
        const rawTime = performance.now() - start;
        if (i >= WARMUP) {
          contractTimes.push(contractTime);
          rawTimes.push(rawTime);
        }
      }
      contract.close();
      raw.close();
      const contractP50 = percentile(contractTimes, 50);
      const rawP50 = percentile(rawTimes, 50);
      return {
        value: contractP50 / rawP50,
        unit: 'x',
        goal: { op: '<=', value: 1.5 },
        details: {
          contractP50Ms: contractP50,
          rawP50Ms: rawP50,
          contractP99Ms: percentile(contractTimes, 99),
          rawP99Ms: percentile(rawTimes, 99),
          replyBytes: reply.length,
          samples: SAMPLES,
        },
      };
    } finally {
      echo.kill();
      await server.stop();
    }
  },
};
