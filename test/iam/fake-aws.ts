/**
 * A loopback stand-in for the AWS services that have no local stand-in (SNS, Secrets Manager, Scheduler,
 * EventBridge, KMS signing, STS AssumeRole) and for Step Functions when handlers are driven one by one. It only answers plausibly: what
 * matters to the IAM check is what the handlers asked for, and that is recorded by the SDK middleware
 * (shared/runtime/aws-call-recorder.ts) before a request leaves the client. Unknown operations get a 400,
 * so a new call still shows up in the recording (and in the simulation) even if nothing here answers it.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeAws = {
  url: string;
  /** SNS messages published, with their topic and String message attributes (name → value). */
  published: { topicArn: string; subject: string; message: string; attributes: Record<string, string> }[];
  /** Secret values by name (a request by ARN matches the name inside the ARN). */
  secrets: Map<string, string>;
  /** Topics whose Publish is refused with `AuthorizationError` (what IAM answers on AWS). */
  forbiddenTopics: Set<string>;
  /** Each started execution's input by execution name (what its Turn state reads as `$$.Execution.Input`). */
  executionInputs: Map<string, unknown>;
  /**
   * How many of the next StartExecution calls are refused with `ExecutionLimitExceeded` (no execution is
   * created); DescribeExecution answers `ExecutionDoesNotExist` for an execution never started.
   */
  refusedStarts: { remaining: number };
  /**
   * While set, StartExecution answers `ServiceUnavailable` (HTTP 503) and starts nothing: a start whose outcome
   * the caller cannot know (shared/runtime/executions-sfn.ts passes it on as uncertain; the SDK retries it).
   * DescribeExecution answers from `executionInputs`: an execution never started is `ExecutionDoesNotExist`.
   */
  startsUnavailable: boolean;
  close(): Promise<void>;
};

const body = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

const json = (response: ServerResponse, status: number, value: unknown, errorType?: string) => {
  response.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  response.end(
    JSON.stringify(errorType ? { __type: errorType, message: errorType, ...(value as object) } : value),
  );
};

/** `wf/github-token` from `arn:aws:secretsmanager:…:secret:wf/github-token-AbCdEf` (or the name itself). */
const secretNameOf = (id: string): string => {
  const match = /:secret:(.+?)(-[A-Za-z0-9]{6})?$/.exec(id);
  return match?.[1] ?? id;
};

export async function startFakeAws(): Promise<FakeAws> {
  const fake: Omit<FakeAws, 'url' | 'close'> = {
    published: [],
    secrets: new Map(),
    forbiddenTopics: new Set(),
    executionInputs: new Map(),
    refusedStarts: { remaining: 0 },
    startsUnavailable: false,
  };
  // STS AssumeRole (query protocol): temporary credentials, valid 15 minutes, for any role.
  const sts = (response: ServerResponse, form: URLSearchParams) => {
    const expiration = new Date(Date.now() + 900_000).toISOString();
    response.writeHead(200, { 'content-type': 'text/xml' });
    response.end(
      `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials><AccessKeyId>ASIAFAKE</AccessKeyId><SecretAccessKey>fake</SecretAccessKey><SessionToken>fake-session</SessionToken><Expiration>${expiration}</Expiration></Credentials><AssumedRoleUser><AssumedRoleId>AROAFAKE:${form.get('RoleSessionName') ?? ''}</AssumedRoleId><Arn>${form.get('RoleArn') ?? ''}</Arn></AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></AssumeRoleResponse>`,
    );
  };
  const sns = (response: ServerResponse, form: URLSearchParams) => {
    const topicArn = form.get('TopicArn') ?? '';
    if (form.get('Action') !== 'Publish') return void response.writeHead(400).end();
    if (fake.forbiddenTopics.has(topicArn)) {
      response.writeHead(403, { 'content-type': 'text/xml' });
      return void response.end(
        `<ErrorResponse><Error><Type>Sender</Type><Code>AuthorizationError</Code><Message>User is not authorized to perform: SNS:Publish on resource: ${topicArn}</Message></Error><RequestId>r</RequestId></ErrorResponse>`,
      );
    }
    const attributes: Record<string, string> = {};
    let attributeBytes = 0;
    // The query protocol's map encoding: MessageAttributes.entry.N.Name / .Value.StringValue.
    for (let n = 1; form.has(`MessageAttributes.entry.${n}.Name`); n++) {
      const name = form.get(`MessageAttributes.entry.${n}.Name`) ?? '';
      const value = form.get(`MessageAttributes.entry.${n}.Value.StringValue`) ?? '';
      attributes[name] = value;
      attributeBytes += [name, form.get(`MessageAttributes.entry.${n}.Value.DataType`) ?? '', value].reduce(
        (sum, part) => sum + Buffer.byteLength(part),
        0,
      );
    }
    // As SNS: body and attributes together within the topic's MaximumMessageSize, 262,144 bytes by default
    // (https://docs.aws.amazon.com/sns/latest/dg/large-message-payloads.html), or InvalidParameter.
    if (Buffer.byteLength(form.get('Message') ?? '') + attributeBytes > 262_144) {
      response.writeHead(400, { 'content-type': 'text/xml' });
      return void response.end(
        '<ErrorResponse><Error><Type>Sender</Type><Code>InvalidParameter</Code><Message>Invalid parameter: Message too long</Message></Error><RequestId>r</RequestId></ErrorResponse>',
      );
    }
    fake.published.push({
      topicArn,
      subject: form.get('Subject') ?? '',
      message: form.get('Message') ?? '',
      attributes,
    });
    response.writeHead(200, { 'content-type': 'text/xml' });
    response.end(
      `<PublishResponse><PublishResult><MessageId>m-${fake.published.length}</MessageId></PublishResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></PublishResponse>`,
    );
  };
  // KMS: one ECC_NIST_P256 signing key for any KeyId (ECDSA_SHA_256, DER signatures, as KMS answers).
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const target = (response: ServerResponse, operation: string, input: Record<string, unknown>) => {
    switch (operation) {
      case 'TrentService.Sign':
        return json(response, 200, {
          KeyId: input.KeyId,
          SigningAlgorithm: input.SigningAlgorithm,
          Signature: sign(
            'sha256',
            Buffer.from(String(input.Message), 'base64'),
            signingKey.privateKey,
          ).toString('base64'),
        });
      case 'TrentService.GetPublicKey':
        return json(response, 200, {
          KeyId: input.KeyId,
          KeySpec: 'ECC_NIST_P256',
          KeyUsage: 'SIGN_VERIFY',
          SigningAlgorithms: ['ECDSA_SHA_256'],
          PublicKey: signingKey.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
        });
      case 'secretsmanager.GetSecretValue': {
        const id = String(input.SecretId ?? '');
        const value = fake.secrets.get(secretNameOf(id)) ?? fake.secrets.get(id);
        if (value === undefined) return json(response, 400, {}, 'ResourceNotFoundException');
        return json(response, 200, { ARN: id, Name: secretNameOf(id), SecretString: value });
      }
      case 'AWSStepFunctions.StartExecution': {
        if (fake.refusedStarts.remaining > 0) {
          fake.refusedStarts.remaining -= 1;
          return json(response, 400, {}, 'ExecutionLimitExceeded');
        }
        if (fake.startsUnavailable) return json(response, 503, {}, 'ServiceUnavailable');
        const arn = String(input.stateMachineArn).replace(':stateMachine:', ':execution:');
        fake.executionInputs.set(String(input.name), JSON.parse(String(input.input ?? 'null')));
        return json(response, 200, { executionArn: `${arn}:${String(input.name)}`, startDate: 0 });
      }
      // https://docs.aws.amazon.com/step-functions/latest/apireference/API_DescribeExecution.html#API_DescribeExecution_Errors
      case 'AWSStepFunctions.DescribeExecution': {
        const executionArn = String(input.executionArn);
        const name = executionArn.split(':').at(-1) ?? '';
        if (!fake.executionInputs.has(name)) return json(response, 400, {}, 'ExecutionDoesNotExist');
        return json(response, 200, {
          executionArn,
          stateMachineArn: executionArn.replace(':execution:', ':stateMachine:').replace(/:[^:]+$/, ''),
          name,
          status: 'RUNNING',
          startDate: 0,
        });
      }
      case 'AWSStepFunctions.StopExecution':
        return json(response, 200, { stopDate: 0 });
      case 'AWSStepFunctions.SendTaskSuccess':
      case 'AWSStepFunctions.SendTaskFailure':
      case 'AWSStepFunctions.SendTaskHeartbeat':
        return json(response, 200, {});
      case 'AWSEvents.PutRule':
        return json(response, 200, { RuleArn: `arn:aws:events:::rule/${String(input.Name)}` });
      case 'AWSEvents.PutTargets':
      case 'AWSEvents.RemoveTargets':
        return json(response, 200, { FailedEntryCount: 0, FailedEntries: [] });
      case 'AWSEvents.PutEvents':
        return json(response, 200, {
          FailedEntryCount: 0,
          Entries: (input.Entries as unknown[]).map((_entry, index) => ({ EventId: `e-${index}` })),
        });
      case 'AWSEvents.DeleteRule':
        return json(response, 200, {});
      default:
        return json(response, 400, {}, 'UnknownOperationException');
    }
  };
  const schedules = new Set<string>();
  const server = createServer(async (request, response) => {
    const text = await body(request);
    const operation = request.headers['x-amz-target'];
    if (typeof operation === 'string') return target(response, operation, text ? JSON.parse(text) : {});
    if (request.url?.startsWith('/schedules/')) {
      // Scheduler (REST): create (once per name, then ConflictException), update, delete.
      const name = request.url.split('?')[0] ?? '';
      if (request.method === 'DELETE')
        return schedules.delete(name)
          ? json(response, 200, {})
          : json(response, 404, {}, 'ResourceNotFoundException');
      if (request.method === 'POST' && schedules.has(name))
        return json(response, 409, {}, 'ConflictException');
      schedules.add(name);
      return json(response, 200, { ScheduleArn: `arn:aws:scheduler:::schedule${name}` });
    }
    const form = new URLSearchParams(text);
    if (form.get('Action') === 'AssumeRole') return sts(response, form);
    return sns(response, form);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // The same object the server reads: a flag the flow sets (startsUnavailable) is seen by the next request.
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
