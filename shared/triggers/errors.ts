/** Errors of the triggers family (event patterns, schedules, the schedule ticker). */

/** One problem found in a user-supplied pattern or expression, located by a dotted path. */
export type TriggerIssue = { path: string; message: string };

/** Renders issues as `path: message` lines, the form shown to users. */
export function formatIssues(issues: readonly TriggerIssue[]): string {
  return issues
    .map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`))
    .join('\n');
}

/** An event pattern that EventBridge would refuse. */
export class EventPatternError extends Error {
  readonly issues: readonly TriggerIssue[];
  constructor(issues: readonly TriggerIssue[], options: { cause?: unknown } = {}) {
    super(`Invalid event pattern:\n${formatIssues(issues)}`, options);
    this.name = 'EventPatternError';
    this.issues = issues;
  }
}

/** A schedule expression or time zone that EventBridge Scheduler would refuse. */
export class ScheduleExpressionError extends Error {
  readonly expression: string;
  readonly timezone: string;
  readonly issues: readonly TriggerIssue[];
  constructor(
    expression: string,
    timezone: string,
    issues: readonly TriggerIssue[],
    options: { cause?: unknown } = {},
  ) {
    super(`Invalid schedule ${JSON.stringify(expression)} (${timezone}):\n${formatIssues(issues)}`, options);
    this.name = 'ScheduleExpressionError';
    this.expression = expression;
    this.timezone = timezone;
    this.issues = issues;
  }
}

/** A ticker misconfiguration (duplicate keys, invalid schedules) or a corrupt persisted cursor. */
export class ScheduleTickerError extends Error {
  readonly key: string | undefined;
  constructor(message: string, options: { key?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'ScheduleTickerError';
    this.key = options.key;
  }
}
