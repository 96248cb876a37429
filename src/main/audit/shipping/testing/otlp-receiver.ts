/**
 * An OTLP/HTTP logs receiver for the tests: it decodes the real protobuf payloads with the protobuf root that
 * OpenTelemetry JS generated from the official opentelemetry-proto definitions (shipped in
 * @opentelemetry/otlp-transformer 0.57, installed as the dev dependency `otlp-transformer-protobuf-root`).
 * No collector binary can be installed on this machine; this is the receiving end of the protocol, not a collector.
 */
import http from 'node:http';
import { createRequire } from 'node:module';

interface Decoded {
  resourceLogs?: {
    resource?: { attributes?: KeyValue[] };
    scopeLogs?: { scope?: { name?: string }; logRecords?: DecodedRecord[] }[];
  }[];
}
interface KeyValue {
  key: string;
  value?: {
    stringValue?: string;
    intValue?: number | { toNumber(): number };
    doubleValue?: number;
    boolValue?: boolean;
  };
}
interface DecodedRecord {
  timeUnixNano?: number | { toString(): string };
  severityNumber?: number;
  severityText?: string;
  body?: { stringValue?: string };
  attributes?: KeyValue[];
}

const require = createRequire(import.meta.url);
const root = require('otlp-transformer-protobuf-root/build/src/generated/root.js') as {
  opentelemetry: {
    proto: { collector: { logs: { v1: { ExportLogsServiceRequest: { decode(bytes: Uint8Array): Decoded } } } } };
  };
};
const ExportLogsServiceRequest = root.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;

/** A log record as received: attributes as plain values. */
export interface ReceivedRecord {
  timeUnixNano: string;
  severityNumber: number | undefined;
  severityText: string | undefined;
  body: string | undefined;
  attributes: Record<string, string | number | boolean | undefined>;
  resource: Record<string, string | number | boolean | undefined>;
  scope: string | undefined;
}

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  records: ReceivedRecord[];
}

export interface OtlpReceiver {
  readonly url: string;
  /** Requests answered 200, in arrival order. */
  readonly accepted: ReceivedRequest[];
  /** How many requests were refused while `refuse` was set. */
  refused: number;
  /** While set, every request is answered with this HTTP status (400: the exporter gives up at once). */
  refuse: number | null;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver = {
    url: '',
    accepted: [] as ReceivedRequest[],
    refused: 0,
    refuse: null as number | null,
    close: async () => {},
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (receiver.refuse !== null) {
        receiver.refused++;
        response.writeHead(receiver.refuse, { 'content-type': 'text/plain' }).end('refused by the test');
        return;
      }
      try {
        const decoded = ExportLogsServiceRequest.decode(Buffer.concat(chunks));
        receiver.accepted.push({ path: request.url ?? '', headers: request.headers, records: recordsOf(decoded) });
        // An empty ExportLogsServiceResponse: full success.
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch (error) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/logs`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

function recordsOf(decoded: Decoded): ReceivedRecord[] {
  const records: ReceivedRecord[] = [];
  for (const resourceLogs of decoded.resourceLogs ?? []) {
    const resource = valuesOf(resourceLogs.resource?.attributes);
    for (const scopeLogs of resourceLogs.scopeLogs ?? []) {
      for (const record of scopeLogs.logRecords ?? []) {
        records.push({
          timeUnixNano: String(record.timeUnixNano),
          severityNumber: record.severityNumber,
          severityText: record.severityText,
          body: record.body?.stringValue,
          attributes: valuesOf(record.attributes),
          resource,
          scope: scopeLogs.scope?.name,
        });
      }
    }
  }
  return records;
}

function valuesOf(attributes: KeyValue[] | undefined): Record<string, string | number | boolean | undefined> {
  const values: Record<string, string | number | boolean | undefined> = {};
  for (const { key, value } of attributes ?? []) {
    const int = value?.intValue;
    values[key] =
      value?.stringValue ??
      (int === undefined || int === null ? undefined : typeof int === 'number' ? int : int.toNumber()) ??
      value?.doubleValue ??
      value?.boolValue;
  }
  return values;
}
