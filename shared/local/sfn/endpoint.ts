/**
 * A loopback HTTP endpoint speaking the Step Functions API (AWS JSON 1.0) for a LocalStepFunctions, so the
 * product's `@aws-sdk/client-sfn` code runs unchanged: `new SFNClient({ endpoint: url, region: 'local', … })`.
 *
 * Wire format (as the SDK's AwsJson1_0Protocol reads it): `POST /`, `X-Amz-Target: AWSStepFunctions.<Op>`,
 * JSON bodies with AWS's member names, timestamps as epoch seconds; errors are HTTP 400 with
 * `{"__type": "<Code>", "message": "…"}`, which the SDK turns into its typed exceptions.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SfnApiError } from './errors.ts';
import type { LocalStepFunctions } from './local-step-functions.ts';
import { checkRequest } from './request-rules.ts';
import type { ExecutionStatus, ExecutionSummary } from './types.ts';

/** A request the endpoint refused as AWS would refuse it (a broken constraint, a malformed body). */
export type SfnRefusal = { operation: string; code: string; message: string };

export type LocalSfnEndpoint = {
  url: string;
  /**
   * The requests refused for what they carried (the codes in REFUSAL_CODES), oldest first, the last 100: a
   * runtime request AWS would refuse shows here even when the caller swallowed the error.
   */
  readonly refusals: readonly SfnRefusal[];
  close(): Promise<void>;
};

/** Answers that mean the request itself was wrong, not that the execution or token is in another state. */
const REFUSAL_CODES: ReadonlySet<string> = new Set([
  'ValidationException',
  'InvalidName',
  'InvalidExecutionInput',
  'InvalidOutput',
  'InvalidArn',
  'SerializationException',
  'UnknownOperationException',
]);
const KEPT_REFUSALS = 100;

type Body = Record<string, unknown>;
type Operation = (sfn: LocalStepFunctions, body: Body) => Promise<Body>;

/**
 * The machine a request is for, when one endpoint serves several (the run and the graph state machines):
 * by state machine ARN, execution ARN or the task token's minting instance; the first machine otherwise.
 */
function machineFor(machines: readonly LocalStepFunctions[], body: Body): LocalStepFunctions {
  const first = machines[0]!;
  if (machines.length === 1) return first;
  const { stateMachineArn, executionArn, taskToken } = body;
  if (typeof stateMachineArn === 'string')
    return machines.find((sfn) => sfn.stateMachineArn === stateMachineArn) ?? first;
  if (typeof executionArn === 'string')
    return machines.find((sfn) => sfn.ownsExecution(executionArn)) ?? first;
  if (typeof taskToken === 'string') return machines.find((sfn) => sfn.ownsToken(taskToken)) ?? first;
  return first;
}

const CONTENT_TYPE = 'application/x-amz-json-1.0';
const TARGET_PREFIX = 'AWSStepFunctions.';

const operations: Record<string, Operation> = {
  async StartExecution(sfn, body) {
    const stateMachineArn = required(body, 'stateMachineArn');
    if (stateMachineArn !== sfn.stateMachineArn) {
      throw new SfnApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
    }
    const name = optional(body, 'name');
    const input = optional(body, 'input');
    const started = await sfn.startExecution({
      ...(name === undefined ? {} : { name }),
      ...(input === undefined ? {} : { input }),
    });
    return { executionArn: started.executionArn, startDate: epochSeconds(started.startDate) };
  },
  async DescribeExecution(sfn, body) {
    const description = await sfn.describeExecution(required(body, 'executionArn'));
    return { ...description, ...dates(description) };
  },
  async StopExecution(sfn, body) {
    const error = optional(body, 'error');
    const cause = optional(body, 'cause');
    const { stopDate } = await sfn.stopExecution(required(body, 'executionArn'), {
      ...(error === undefined ? {} : { error }),
      ...(cause === undefined ? {} : { cause }),
    });
    return { stopDate: epochSeconds(stopDate) };
  },
  async SendTaskSuccess(sfn, body) {
    await sfn.sendTaskSuccess(required(body, 'taskToken'), required(body, 'output'));
    return {};
  },
  async SendTaskFailure(sfn, body) {
    await sfn.sendTaskFailure(required(body, 'taskToken'), optional(body, 'error'), optional(body, 'cause'));
    return {};
  },
  async SendTaskHeartbeat(sfn, body) {
    await sfn.sendTaskHeartbeat(required(body, 'taskToken'));
    return {};
  },
  async ListExecutions(sfn, body) {
    const stateMachineArn = required(body, 'stateMachineArn');
    if (stateMachineArn !== sfn.stateMachineArn) {
      throw new SfnApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
    }
    const status = optional(body, 'statusFilter') as ExecutionStatus | undefined;
    const all = await sfn.listExecutions(status === undefined ? {} : { status });
    const offset = Number(optional(body, 'nextToken') ?? 0);
    const limit = typeof body.maxResults === 'number' && body.maxResults > 0 ? body.maxResults : 100;
    const page = all.slice(offset, offset + limit);
    return {
      executions: page.map((summary) => ({ ...summary, ...dates(summary) })),
      ...(offset + limit < all.length ? { nextToken: String(offset + limit) } : {}),
    };
  },
};

/** Serves the Step Functions API of `sfn` (one machine or several) on 127.0.0.1 (`port` 0: a free port). */
export async function startLocalSfnEndpoint(
  sfn: LocalStepFunctions | readonly LocalStepFunctions[],
  options: {
    port?: number;
    /** Told each refusal as it is recorded (a stack in a process that may be killed reports it at once). */
    onRefusal?: (refusal: SfnRefusal) => void;
  } = {},
): Promise<LocalSfnEndpoint> {
  const machines = Array.isArray(sfn) ? sfn : [sfn as LocalStepFunctions];
  const refusals: SfnRefusal[] = [];
  const refused = (refusal: SfnRefusal) => {
    if (!REFUSAL_CODES.has(refusal.code)) return;
    refusals.push(refusal);
    if (refusals.length > KEPT_REFUSALS) refusals.shift();
    options.onRefusal?.(refusal);
  };
  const server = createServer((request, response) => {
    void handle(machines, request, response, refused);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refusals,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function handle(
  machines: readonly LocalStepFunctions[],
  request: IncomingMessage,
  response: ServerResponse,
  refused: (refusal: SfnRefusal) => void,
): Promise<void> {
  const target = String(request.headers['x-amz-target'] ?? '');
  const name = target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : target;
  const refuse = (code: string, message: string) => {
    refused({ operation: name, code, message });
    send(response, 400, { __type: code, message });
  };
  try {
    const operation = Object.hasOwn(operations, name) ? operations[name] : undefined;
    const text = await readBody(request);
    if (request.method !== 'POST' || !operation || !target.startsWith(TARGET_PREFIX))
      return refuse('UnknownOperationException', `Unsupported operation '${target}'`);
    let body: Body;
    try {
      body = text === '' ? {} : (JSON.parse(text) as Body);
    } catch {
      return refuse('SerializationException', 'The request body is not JSON');
    }
    checkRequest(name, body);
    send(response, 200, await operation(machineFor(machines, body), body));
  } catch (error) {
    if (error instanceof SfnApiError) return refuse(error.code, error.message);
    send(response, 500, { __type: 'InternalFailure', message: (error as Error).message });
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, status: number, body: Body): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': CONTENT_TYPE,
    'content-length': Buffer.byteLength(payload),
    'x-amzn-requestid': randomUUID(),
  });
  response.end(payload);
}

function required(body: Body, member: string): string {
  const value = body[member];
  if (typeof value !== 'string') throw new SfnApiError('ValidationException', `'${member}' is required`);
  return value;
}

function optional(body: Body, member: string): string | undefined {
  const value = body[member];
  return typeof value === 'string' ? value : undefined;
}

function dates(item: Pick<ExecutionSummary, 'startDate' | 'stopDate'>): Body {
  return {
    startDate: epochSeconds(item.startDate),
    ...(item.stopDate ? { stopDate: epochSeconds(item.stopDate) } : {}),
  };
}

function epochSeconds(date: Date): number {
  return date.getTime() / 1000;
}
