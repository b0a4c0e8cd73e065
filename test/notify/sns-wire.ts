/**
 * A tiny SNS endpoint on 127.0.0.1 speaking the awsQuery protocol (as @aws-sdk/client-sns's AwsQueryProtocol
 * does): a form-encoded `POST /` with `Action=Publish&Version=2010-03-31&…`, answered with XML.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SNSClient } from '@aws-sdk/client-sns';

export type SnsCall = { contentType: string; params: URLSearchParams };

export type SnsWire = {
  url: string;
  calls: SnsCall[];
  /** When set, the next calls answer this awsQuery error (`{ status, code }`) instead of a MessageId. */
  failWith: { status: number; code: string } | undefined;
  client: SNSClient;
  close(): Promise<void>;
};

const ok = (messageId: string) =>
  `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${messageId}</MessageId></PublishResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`;

const error = (code: string) =>
  `<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${code}: test answer</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`;

export async function startSnsWire(): Promise<SnsWire> {
  const wire = { calls: [] as SnsCall[], failWith: undefined as SnsWire['failWith'] };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      wire.calls.push({
        contentType: String(request.headers['content-type'] ?? ''),
        params: new URLSearchParams(Buffer.concat(chunks).toString('utf8')),
      });
      const failure = wire.failWith;
      const xml = failure ? error(failure.code) : ok(randomUUID());
      response.writeHead(failure?.status ?? 200, {
        'content-type': 'text/xml',
        'content-length': Buffer.byteLength(xml),
      });
      response.end(xml);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new SNSClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  return Object.assign(wire, {
    url,
    client,
    close: () =>
      new Promise<void>((resolve, reject) => {
        client.destroy();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  });
}
