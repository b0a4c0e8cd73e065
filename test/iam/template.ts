/**
 * The synthesized template made concrete for one account and region: `Ref`, `Fn::GetAtt`, `Fn::Join`,
 * `Fn::Sub`, `Fn::Select` and `Fn::Split` resolved to the names and ARNs the resources would have on AWS
 * (return values per CloudFormation's resource reference, e.g.
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-dynamodb-table.html#aws-resource-dynamodb-table-return-values).
 * Physical names that CloudFormation would generate are the logical id, unless the caller fixes them; with
 * `stackName` given they start with the stack's name, as CloudFormation's do (`<stack>-<logical id>-<suffix>`),
 * so two stacks' resources of one logical id have distinct names and ARNs.
 */

export const ACCOUNT = '123456789012';

type Resource = { Type: string; Properties?: Record<string, unknown> };
export type CfnTemplate = { Resources: Record<string, Resource> };

/** Explicit name properties, by resource type (otherwise CloudFormation generates a name). */
const NAME_PROPERTY: Record<string, string> = {
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::StepFunctions::StateMachine': 'StateMachineName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::Events::EventBus': 'Name',
  'AWS::Scheduler::ScheduleGroup': 'Name',
  'AWS::Logs::LogGroup': 'LogGroupName',
};

export class ResolvedTemplate {
  readonly region: string;
  readonly template: CfnTemplate;
  private readonly physicalNames: Record<string, string>;
  private readonly stackName: string | undefined;
  constructor(
    template: CfnTemplate,
    region: string,
    physicalNames: Record<string, string> = {},
    stackName?: string,
  ) {
    this.template = template;
    this.region = region;
    this.physicalNames = physicalNames;
    this.stackName = stackName;
  }

  get resources(): [string, Resource][] {
    return Object.entries(this.template.Resources);
  }

  /** The logical ids of resources of `type`. */
  idsOf(type: string): string[] {
    return this.resources.filter(([, resource]) => resource.Type === type).map(([id]) => id);
  }

  /** The physical name of a resource: fixed by the caller, set in its properties, or its logical id. */
  nameOf(id: string): string {
    const resource = this.resource(id);
    const property = NAME_PROPERTY[resource.Type];
    const declared = property ? resource.Properties?.[property] : undefined;
    const generated = this.stackName === undefined ? id : `${this.stackName}-${id}`;
    return this.physicalNames[id] ?? (declared === undefined ? generated : String(this.resolve(declared)));
  }

  resource(id: string): Resource {
    const resource = this.template.Resources[id];
    if (!resource) throw new Error(`no resource ${id} in the template`);
    return resource;
  }

  private arn(service: string, resource: string, region = this.region): string {
    return `arn:aws:${service}:${region}:${ACCOUNT}:${resource}`;
  }

  /** What `Ref` returns for a resource. */
  ref(id: string): string {
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::Region': this.region,
      'AWS::AccountId': ACCOUNT,
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': this.stackName ?? 'WfTest',
    };
    if (pseudo[id]) return pseudo[id];
    const { Type } = this.resource(id);
    const name = this.nameOf(id);
    switch (Type) {
      case 'AWS::StepFunctions::StateMachine':
        return this.arn('states', `stateMachine:${name}`);
      case 'AWS::SNS::Topic':
        return this.arn('sns', name);
      case 'AWS::SecretsManager::Secret':
        return this.arn('secretsmanager', `secret:${name}-AbCdEf`);
      case 'AWS::ApiGatewayV2::Api':
        return 'a1b2c3d4e5';
      // A queue's Ref is its URL.
      case 'AWS::SQS::Queue':
        return `https://sqs.${this.region}.amazonaws.com/${ACCOUNT}/${name}`;
      default:
        return name;
    }
  }

  /** What `Fn::GetAtt` returns. */
  getAtt(id: string, attribute: string): string {
    const { Type } = this.resource(id);
    const name = this.nameOf(id);
    if (attribute !== 'Arn') {
      if (attribute === 'Name' || attribute.endsWith('Name')) return name;
      if (attribute === 'ApiEndpoint')
        return `https://${this.ref(id)}.execute-api.${this.region}.amazonaws.com`;
      return `${id}.${attribute}`;
    }
    const arns: Record<string, () => string> = {
      'AWS::DynamoDB::Table': () => this.arn('dynamodb', `table/${name}`),
      'AWS::Lambda::Function': () => this.arn('lambda', `function:${name}`),
      'AWS::IAM::Role': () => `arn:aws:iam::${ACCOUNT}:role/${name}`,
      'AWS::Logs::LogGroup': () => this.arn('logs', `log-group:${name}:*`),
      'AWS::Events::EventBus': () => this.arn('events', `event-bus/${name}`),
      // A rule on the default bus: rule/<name> (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-resource-based.html).
      'AWS::Events::Rule': () => this.arn('events', `rule/${name}`),
      'AWS::Scheduler::ScheduleGroup': () => this.arn('scheduler', `schedule-group/${name}`),
      'AWS::StepFunctions::StateMachine': () => this.ref(id),
      'AWS::SNS::Topic': () => this.ref(id),
      'AWS::SecretsManager::Secret': () => this.ref(id),
      'AWS::KMS::Key': () => this.arn('kms', `key/${name}`),
      'AWS::SQS::Queue': () => this.arn('sqs', name),
    };
    const make = arns[Type];
    if (!make) throw new Error(`no Arn for ${Type} (${id}): teach test/iam/template.ts`);
    return make();
  }

  /** Resolves every intrinsic function in `value`. */
  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((each) => this.resolve(each));
    if (typeof value !== 'object' || value === null) return value;
    const record = value as Record<string, unknown>;
    const [key] = Object.keys(record);
    const argument = key === undefined ? undefined : record[key];
    if (Object.keys(record).length === 1) {
      if (key === 'Ref') return this.ref(String(argument));
      if (key === 'Fn::GetAtt') {
        const [id, attribute] = (typeof argument === 'string' ? argument.split('.') : argument) as [
          string,
          string,
        ];
        return this.getAtt(id, attribute);
      }
      if (key === 'Fn::Join') {
        const [delimiter, parts] = argument as [string, unknown[]];
        return (this.resolve(parts) as unknown[]).map(String).join(delimiter);
      }
      if (key === 'Fn::Select') {
        const [index, list] = argument as [number, unknown];
        return (this.resolve(list) as unknown[])[Number(index)];
      }
      if (key === 'Fn::Split') {
        const [delimiter, source] = argument as [string, unknown];
        return String(this.resolve(source)).split(delimiter);
      }
      if (key === 'Fn::Sub') {
        const [text, variables = {}] = (typeof argument === 'string' ? [argument] : argument) as [
          string,
          Record<string, unknown>?,
        ];
        return text.replaceAll(/\$\{([^}]+)\}/g, (_match, name: string) => {
          if (name in variables) return String(this.resolve(variables[name]));
          const [id, attribute] = name.split('.');
          return attribute ? this.getAtt(id!, attribute) : this.ref(id!);
        });
      }
    }
    return Object.fromEntries(Object.entries(record).map(([k, each]) => [k, this.resolve(each)]));
  }
}
