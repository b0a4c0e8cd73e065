/**
 * The member constraints of the Step Functions API requests the local endpoint serves, checked before any
 * operation runs, so the stand-in refuses what AWS refuses (HTTP 400 `ValidationException`) and a runtime that
 * passes offline does not fail on its first real call. Only constraints an API reference page states (read
 * 2026-12-04, each cited on its operation below); shared/local/sfn/README.md ("Request rules") lists them and what
 * is left out.
 *
 * Lengths count UTF-16 units (`String.prototype.length`), which is never fewer than the code points: what
 * passes here is never too long for AWS. Payload sizes (`input`, `output`: "expressed as bytes in UTF-8") are
 * checked in UTF-8 bytes by validation.ts, with the operations' own error codes.
 */
import { SfnApiError } from './errors.ts';

/** One request member's documented constraints. */
type MemberRule = {
  required?: boolean;
  /** Length Constraints: minimum and maximum length. */
  length?: readonly [min: number, max: number];
  /** Valid Range of an integer member. */
  range?: readonly [min: number, max: number];
  /** Valid Values. */
  values?: readonly string[];
  /** Pattern, as the reference writes it, and its JavaScript form. */
  pattern?: { source: string; regex: RegExp };
  /** A sensitive member (SensitiveError, SensitiveCause): AWS's message leaves its value out. */
  sensitive?: boolean;
};

type OperationRules = Readonly<Record<string, MemberRule>>;

// The API reference's common shapes, as each page below states them for its members.
const ARN: MemberRule = { required: true, length: [1, 256] };
const TASK_TOKEN: MemberRule = { required: true, length: [1, 2048] };
const ERROR: MemberRule = { length: [0, 256], sensitive: true };
const CAUSE: MemberRule = { length: [0, 32_768], sensitive: true };

export const SFN_REQUEST_RULES: Readonly<Record<string, OperationRules>> = {
  // https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html: stateMachineArn
  // 1–256, name 1–80 (its characters: validation.ts, InvalidName), traceHeader 0–256 matching \p{ASCII}*.
  StartExecution: {
    stateMachineArn: ARN,
    name: { length: [1, 80] },
    traceHeader: { length: [0, 256], pattern: { source: '\\p{ASCII}*', regex: /^\p{ASCII}*$/u } },
  },
  // https://docs.aws.amazon.com/step-functions/latest/apireference/API_StopExecution.html: executionArn 1–256,
  // error 0–256, cause 0–32,768.
  StopExecution: { executionArn: ARN, error: ERROR, cause: CAUSE },
  // https://docs.aws.amazon.com/step-functions/latest/apireference/API_DescribeExecution.html: executionArn
  // 1–256; includedData ALL_DATA | METADATA_ONLY.
  DescribeExecution: { executionArn: ARN, includedData: { values: ['ALL_DATA', 'METADATA_ONLY'] } },
  // https://docs.aws.amazon.com/step-functions/latest/apireference/API_ListExecutions.html: maxResults 0–1000
  // ("A value of 0 uses the default"), mapRunArn 1–2000, statusFilter and redriveFilter from their Valid Values,
  // stateMachineArn 1–256; nextToken 1–3096 (the page's ListExecutionsPageToken, as the API model has it).
  ListExecutions: {
    stateMachineArn: { length: [1, 256] },
    mapRunArn: { length: [1, 2000] },
    maxResults: { range: [0, 1000] },
    nextToken: { length: [1, 3096] },
    statusFilter: { values: ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'PENDING_REDRIVE'] },
    redriveFilter: { values: ['REDRIVEN', 'NOT_REDRIVEN'] },
  },
  // https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html: taskToken 1–2048,
  // output required (its size: validation.ts, InvalidOutput).
  SendTaskSuccess: { taskToken: TASK_TOKEN, output: { required: true, sensitive: true } },
  // https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskFailure.html: taskToken 1–2048,
  // error 0–256, cause 0–32,768.
  SendTaskFailure: { taskToken: TASK_TOKEN, error: ERROR, cause: CAUSE },
  // https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskHeartbeat.html: taskToken 1–2048.
  SendTaskHeartbeat: { taskToken: TASK_TOKEN },
};

/**
 * What AWS's validation says of one member, in its words: `Value 'x' at 'name' failed to satisfy constraint:
 * Member must have length less than or equal to 80` (a sensitive member's value is left out: `Value at 'cause'
 * …`), as AWS answered them (https://github.com/wolfeidau/buildkite-serverless-agent/issues/37,
 * https://github.com/irothschild/stefuna/pull/8).
 */
function memberProblem(member: string, rule: MemberRule, value: unknown): string | undefined {
  if (value === undefined || value === null)
    return rule.required
      ? `Value null at '${member}' failed to satisfy constraint: Member must not be null`
      : undefined;
  const at = rule.sensitive ? `Value at '${member}'` : `Value '${String(value)}' at '${member}'`;
  const fails = (constraint: string) => `${at} failed to satisfy constraint: Member must ${constraint}`;
  if (rule.range && typeof value === 'number') {
    const [min, max] = rule.range;
    if (value < min) return fails(`have value greater than or equal to ${min}`);
    if (value > max) return fails(`have value less than or equal to ${max}`);
  }
  if (typeof value !== 'string') return undefined;
  if (rule.length) {
    const [min, max] = rule.length;
    if (value.length < min) return fails(`have length greater than or equal to ${min}`);
    if (value.length > max) return fails(`have length less than or equal to ${max}`);
  }
  if (rule.values && !rule.values.includes(value))
    return fails(`satisfy enum value set: [${rule.values.join(', ')}]`);
  if (rule.pattern && !rule.pattern.regex.test(value))
    return fails(`satisfy regular expression pattern: ${rule.pattern.source}`);
  return undefined;
}

/** Every documented constraint `body` breaks for `operation`, in AWS's words; empty when none. */
export function requestProblems(operation: string, body: Record<string, unknown>): string[] {
  const rules = SFN_REQUEST_RULES[operation] ?? {};
  return Object.entries(rules).flatMap(([member, rule]) => memberProblem(member, rule, body[member]) ?? []);
}

/** AWS's `ValidationException` for `problems`: `N validation error(s) detected: …; …`. */
function validationException(problems: readonly string[]): SfnApiError {
  const count = `${problems.length} validation error${problems.length === 1 ? '' : 's'} detected`;
  return new SfnApiError('ValidationException', `${count}: ${problems.join('; ')}`);
}

/** Throws AWS's `ValidationException` when `body` breaks a rule. */
export function checkRequest(operation: string, body: Record<string, unknown>): void {
  const problems = requestProblems(operation, body);
  if (problems.length > 0) throw validationException(problems);
}

/** Throws AWS's `ValidationException` when `value` breaks the rule of `operation`'s `member` (an in-process call). */
export function checkMember(operation: string, member: string, value: unknown): void {
  const rule = SFN_REQUEST_RULES[operation]?.[member];
  const problem = rule && memberProblem(member, rule, value);
  if (problem) throw validationException([problem]);
}
