/**
 * From a recorded SDK call to the IAM requests AWS would authorize for it: the action, the resource ARN it
 * names on AWS (account 123456789012, the stack's region), and the context keys that policies match on.
 */
import type { AwsCallRecord } from '../../shared/runtime/aws-call-recorder.ts';
import { ACCOUNT } from './template.ts';

/**
 * Which state machines' waits each function's SendTask* calls answer (see `states` below): the graph machine's
 * are answered by a child run's end (deliver, mark-failed), a resume, a cancel's closed human task or a
 * cancelled child run (api),
 * graph-wait itself and the human-task function; approval-http and request-approval answer both (approvals of turns and of gated service steps,
 * and human-task submissions), so each of their calls must be allowed on both. Any other answers the run machine's.
 */
const TOKEN_MACHINES: Record<string, readonly ('run' | 'graph')[]> = {
  deliver: ['graph'],
  'mark-failed': ['graph'],
  api: ['graph'],
  'graph-wait': ['graph'],
  'human-task': ['graph'],
  // An external_task's child run ends in the external function, which answers the graph step's wait.
  external: ['graph'],
  'approval-http': ['run', 'graph'],
  // A gated graph service step's approval is requested by the same function as a turn's.
  'request-approval': ['run', 'graph'],
};

export type IamRequest = {
  fn: string;
  /** The role session the call was signed with, when not the function's own role. */
  session?: AwsCallRecord['session'];
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
};

/** What the harness knows about the deployment beyond the call itself. */
export type Deployment = {
  region: string;
  /** The run state machine: task tokens belong to its executions. */
  stateMachineArn: string;
  /** The graph state machine (the machine whose waits the TOKEN_MACHINES `graph` senders answer). */
  graphStateMachineArn?: string;
  /** Tags of secrets by name (from the template, or declared by the test). */
  secretTags: ReadonlyMap<string, Record<string, string>>;
};

const SERVICE_PREFIX: Record<string, string> = {
  DynamoDBClient: 'dynamodb',
  SFNClient: 'states',
  SNSClient: 'sns',
  SecretsManagerClient: 'secretsmanager',
  SchedulerClient: 'scheduler',
  EventBridgeClient: 'events',
  STSClient: 'sts',
  KMSClient: 'kms',
  CloudWatchClient: 'cloudwatch',
  XRayClient: 'xray',
};

/**
 * `TransactWriteItems` is authorized as each of its parts: "you need permissions for each of the actions
 * (PutItem, UpdateItem, DeleteItem, ConditionCheckItem) in the transaction"
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html).
 */
const TRANSACT_PART: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

const arn = (d: Deployment, service: string, resource: string) =>
  `arn:aws:${service}:${d.region}:${ACCOUNT}:${resource}`;

/** Secret names get a 6-character suffix on AWS; a name is looked up by the ARN it would have. */
const secretArn = (d: Deployment, id: string) =>
  id.startsWith('arn:') ? id : arn(d, 'secretsmanager', `secret:${id}-AbCdEf`);
const secretName = (id: string) => /:secret:(.+)-[A-Za-z0-9]{6}$/.exec(id)?.[1] ?? id;

function tagContext(prefix: string, tags: Record<string, string> | undefined) {
  return Object.fromEntries(Object.entries(tags ?? {}).map(([k, v]) => [`${prefix}/${k}`, v]));
}

/** The IAM requests one recorded call makes. */
export function iamRequestsFor(call: AwsCallRecord, d: Deployment): IamRequest[] {
  const prefix = SERVICE_PREFIX[call.client] ?? call.client.replace(/Client$/, '').toLowerCase();
  const ids = call.ids;
  const one = (action: string, resource: string, context: IamRequest['context'] = {}): IamRequest => ({
    fn: call.fn,
    ...(call.session ? { session: call.session } : {}),
    action: `${prefix}:${action}`,
    resource,
    context,
  });
  const at = (suffix: string) =>
    Object.entries(ids)
      .filter(([path]) => path.endsWith(suffix))
      .map(([path, value]) => ({ path, value }));

  switch (prefix) {
    case 'dynamodb': {
      const table = (name: string) => arn(d, 'dynamodb', `table/${name}`);
      // The partition keys a request names, as `dynamodb:LeadingKeys` (multivalued): what a
      // `ForAllValues:StringLike` condition on it matches (infra/constructs/table-access.ts). A Query's key is in
      // its ExpressionAttributeValues, which the recorder never reads: a Query carries none, and no Query grant is
      // conditional on it.
      const leading = (prefix: string): IamRequest['context'] => {
        const partitions = [
          ...new Set(
            Object.entries(ids)
              .filter(([path]) => path.startsWith(prefix) && /(^|\.)(Key|Item|Keys\.\d+)\.pk$/.test(path))
              .map(([, value]) => value),
          ),
        ];
        return partitions.length > 0 ? { 'dynamodb:LeadingKeys': partitions } : {};
      };
      if (call.command === 'TransactWriteItems' || call.command === 'TransactGetItems')
        return at('.TableName').map(({ path, value }) => {
          const part = path.split('.').slice(0, 3).join('.');
          return one(
            TRANSACT_PART[path.split('.')[2] ?? ''] ?? call.command,
            table(value),
            leading(`${part}.`),
          );
        });
      if (call.command === 'BatchWriteItem' || call.command === 'BatchGetItem')
        return at('.TableName').map(({ path, value }) =>
          one(call.command, table(value), leading(path.replace(/TableName$/, ''))),
        );
      const name = ids.TableName ?? '?';
      return [
        one(call.command, ids.IndexName ? `${table(name)}/index/${ids.IndexName}` : table(name), leading('')),
      ];
    }
    case 'states':
      // Task tokens are credentials and are not recorded, so which machine a token answers comes from the
      // function (TOKEN_MACHINES).
      if (call.command.startsWith('SendTask'))
        return (TOKEN_MACHINES[call.fn] ?? ['run']).map((machine) =>
          one(
            call.command,
            machine === 'graph' && d.graphStateMachineArn ? d.graphStateMachineArn : d.stateMachineArn,
          ),
        );
      return [one(call.command, ids.stateMachineArn ?? ids.executionArn ?? '*')];
    case 'sns':
      return [one(call.command, ids.TopicArn ?? '*')];
    case 'secretsmanager': {
      const id = ids.SecretId ?? '?';
      const tags = d.secretTags.get(secretName(id));
      return [
        one(call.command, secretArn(d, id), {
          // Only the global key: iam-simulate rejects `secretsmanager:ResourceTag/…` as an unknown context key,
          // so policies here match on `aws:ResourceTag/…` (infra/constructs/credential-reader.ts).
          ...tagContext('aws:ResourceTag', tags),
        }),
      ];
    }
    case 'scheduler': {
      const group = ids.GroupName ?? 'default';
      const requests = [one(call.command, arn(d, 'scheduler', `schedule/${group}/${ids.Name ?? '?'}`))];
      // Creating or updating a schedule passes its execution role to Scheduler
      // (https://docs.aws.amazon.com/scheduler/latest/UserGuide/setting-up.html#setting-up-execution-role).
      if (ids['Target.RoleArn'])
        requests.push({
          fn: call.fn,
          action: 'iam:PassRole',
          resource: ids['Target.RoleArn'],
          context: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
        });
      return requests;
    }
    case 'events': {
      const bus = ids.EventBusName ?? 'default';
      const rule = ids.Rule ?? ids.Name ?? '?';
      const ruleArn = arn(d, 'events', bus === 'default' ? `rule/${rule}` : `rule/${bus}/${rule}`);
      // events:TargetArn is multivalued: one value per target of the call. AWS does not say whether a target's
      // DeadLetterConfig ARN counts; it is included here, the stricter reading (ForAllValues over the larger set).
      if (call.command === 'PutTargets')
        return [
          one(call.command, ruleArn, {
            'events:TargetArn': at('.Arn')
              .filter(({ path }) => /^Targets\.\d+\.(DeadLetterConfig\.)?Arn$/.test(path))
              .map(({ value }) => value),
          }),
        ];
      // PutEvents names the bus per entry (a name or an ARN).
      if (call.command === 'PutEvents')
        return [...new Set(at('.EventBusName').map(({ value }) => value))].map((name) =>
          one(call.command, name.startsWith('arn:') ? name : arn(d, 'events', `event-bus/${name}`)),
        );
      return [one(call.command, ruleArn)];
    }
    case 'sts': {
      const role = ids.RoleArn ?? '*';
      const tags = Object.fromEntries(
        at('.Key')
          .filter(({ path }) => path.startsWith('Tags.'))
          .map(({ path, value }) => [value, ids[path.replace(/Key$/, 'Value')] ?? '']),
      );
      const requests = [one(call.command, role)];
      if (Object.keys(tags).length > 0)
        requests.push(
          one('TagSession', role, {
            ...tagContext('aws:RequestTag', tags),
            'aws:TagKeys': Object.keys(tags),
          }),
        );
      return requests;
    }
    case 'kms': {
      const key = ids.KeyId ?? '*';
      return [one(call.command, key.startsWith('arn:') ? key : arn(d, 'kms', `key/${key}`))];
    }
    default:
      return [one(call.command, '*')];
  }
}
