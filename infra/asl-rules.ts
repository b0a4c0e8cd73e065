/**
 * Offline check of a state machine definition's `Retry` and `Catch` fields against the Amazon States Language
 * (https://states-language.net/spec.html, "Retrying after error" and "Fallback states") and the limits AWS adds
 * (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html). Step Functions refuses
 * some of these only at deploy time, and some (a retrier no error can reach) not at all.
 * Imports nothing, so tests can run it on any definition.
 */

/** The predefined error names; any other `States.` name is a typo that never matches. */
const PREDEFINED_ERRORS = new Set([
  'States.ALL',
  'States.DataLimitExceeded',
  'States.ExceedToleratedFailureThreshold',
  'States.HeartbeatTimeout',
  'States.Http.Socket',
  'States.IntrinsicFailure',
  'States.ItemReaderFailed',
  'States.NoChoiceMatched',
  'States.ParameterPathFailure',
  'States.Permissions',
  'States.QueryEvaluationError',
  'States.ResultPathMatchFailure',
  'States.ResultWriterFailed',
  'States.Runtime',
  'States.TaskFailed',
  'States.Timeout',
  'States.BranchFailed',
]);

/** AWS: IntervalSeconds and MaxAttempts at most 99999999; MaxDelaySeconds above 0 and below 31622401. */
export const ASL_LIMITS = {
  maxIntervalSeconds: 99_999_999,
  maxAttempts: 99_999_999,
  maxDelaySeconds: 31_622_400,
};

type Json = Record<string, unknown>;

/** Every rule the definition breaks, as `<state>: <field>: <problem>`; empty when it is sound. */
export function aslProblems(definition: unknown): string[] {
  const problems: string[] = [];
  checkMachine(definition, '', problems);
  return problems;
}

function checkMachine(machine: unknown, prefix: string, problems: string[]): void {
  const states = isObject(machine) ? machine.States : undefined;
  if (!isObject(states)) {
    problems.push(`${prefix || '(root)'}: States is missing`);
    return;
  }
  const names = new Set(Object.keys(states));
  for (const [name, state] of Object.entries(states)) {
    if (!isObject(state)) continue;
    const where = `${prefix}${name}`;
    const handles = state.Type === 'Task' || state.Type === 'Parallel' || state.Type === 'Map';
    for (const field of ['Retry', 'Catch'] as const) {
      if (!(field in state)) continue;
      if (!handles) problems.push(`${where}: ${field}: only Task, Parallel and Map states may have it`);
      else if (field === 'Retry') checkRetry(state.Retry, where, problems);
      else checkCatch(state.Catch, where, names, problems);
    }
    if (state.Type === 'Wait') checkWait(state, where, states, problems);
    const nested = [
      ...(Array.isArray(state.Branches) ? state.Branches : []),
      state.Iterator,
      state.ItemProcessor,
    ];
    for (const branch of nested) if (branch !== undefined) checkMachine(branch, `${where}/`, problems);
  }
}

function checkRetry(retry: unknown, where: string, problems: string[]): void {
  if (!Array.isArray(retry)) {
    problems.push(`${where}: Retry: must be an array of retriers`);
    return;
  }
  checkErrorLists(retry, `${where}: Retry`, problems);
  retry.forEach((retrier, index) => {
    if (!isObject(retrier)) return;
    const at = `${where}: Retry[${index}]`;
    const { IntervalSeconds, MaxAttempts, BackoffRate, MaxDelaySeconds, JitterStrategy } = retrier;
    if (IntervalSeconds !== undefined && !integerIn(IntervalSeconds, 1, ASL_LIMITS.maxIntervalSeconds))
      problems.push(`${at}.IntervalSeconds: must be an integer from 1 to ${ASL_LIMITS.maxIntervalSeconds}`);
    if (MaxAttempts !== undefined && !integerIn(MaxAttempts, 0, ASL_LIMITS.maxAttempts))
      problems.push(`${at}.MaxAttempts: must be an integer from 0 to ${ASL_LIMITS.maxAttempts}`);
    if (BackoffRate !== undefined && !(typeof BackoffRate === 'number' && BackoffRate >= 1))
      problems.push(`${at}.BackoffRate: must be a number of at least 1.0`);
    if (MaxDelaySeconds !== undefined && !integerIn(MaxDelaySeconds, 1, ASL_LIMITS.maxDelaySeconds))
      problems.push(`${at}.MaxDelaySeconds: must be an integer from 1 to ${ASL_LIMITS.maxDelaySeconds}`);
    if (JitterStrategy !== undefined && JitterStrategy !== 'FULL' && JitterStrategy !== 'NONE')
      problems.push(`${at}.JitterStrategy: must be FULL or NONE`);
  });
}

function checkCatch(catchers: unknown, where: string, names: Set<string>, problems: string[]): void {
  if (!Array.isArray(catchers)) {
    problems.push(`${where}: Catch: must be an array of catchers`);
    return;
  }
  checkErrorLists(catchers, `${where}: Catch`, problems);
  catchers.forEach((catcher, index) => {
    if (!isObject(catcher)) return;
    if (typeof catcher.Next !== 'string' || !names.has(catcher.Next))
      problems.push(`${where}: Catch[${index}].Next: must name a state of this machine`);
  });
}

/**
 * The `ErrorEquals` rules shared by retriers and catchers: non-empty lists of strings, `States.ALL` alone and
 * in the last entry, only predefined `States.` names, and no name an earlier entry already takes (that entry
 * always wins, so the later one is dead).
 */
function checkErrorLists(entries: unknown[], at: string, problems: string[]): void {
  const taken = new Set<string>();
  entries.forEach((entry, index) => {
    const errors = isObject(entry) ? entry.ErrorEquals : undefined;
    const here = `${at}[${index}].ErrorEquals`;
    if (!isObject(entry)) {
      problems.push(`${at}[${index}]: must be an object`);
      return;
    }
    if (!Array.isArray(errors) || errors.length === 0 || errors.some((error) => typeof error !== 'string')) {
      problems.push(`${here}: must be a non-empty array of error names`);
      return;
    }
    if (errors.includes('States.ALL')) {
      if (errors.length > 1) problems.push(`${here}: States.ALL must appear alone`);
      if (index !== entries.length - 1) problems.push(`${here}: States.ALL must be in the last entry`);
    }
    for (const error of errors as string[]) {
      if (error.startsWith('States.') && !PREDEFINED_ERRORS.has(error))
        problems.push(`${here}: ${error} is not a predefined error name`);
      if (taken.has(error) || taken.has('States.ALL'))
        problems.push(`${here}: ${error} is already matched by an earlier entry`);
      taken.add(error);
    }
  });
}

/**
 * A `Wait` has exactly one of `Seconds`, `Timestamp`, `SecondsPath`, `TimestampPath`; `Seconds` is an integer
 * from 0 to 99999999; a `SecondsPath` must select an integer
 * (https://docs.aws.amazon.com/step-functions/latest/dg/state-wait.html). A path that is missing or not a
 * number fails the execution with `States.Runtime`, which no Catch handles, so every state that leads to a
 * `SecondsPath` Wait must be a Choice rule that checks the path with `IsPresent` and `IsNumeric` first.
 */
function checkWait(state: Json, where: string, states: Json, problems: string[]): void {
  const fields = ['Seconds', 'Timestamp', 'SecondsPath', 'TimestampPath'].filter((field) => field in state);
  if (fields.length !== 1)
    problems.push(`${where}: Wait: must have exactly one of Seconds, Timestamp, SecondsPath, TimestampPath`);
  if ('Seconds' in state && !integerIn(state.Seconds, 0, 99_999_999))
    problems.push(`${where}: Seconds: must be an integer from 0 to 99999999`);
  const path = state.SecondsPath;
  if (typeof path !== 'string') return;
  const name = where.split('/').at(-1) ?? where;
  for (const [other, candidate] of Object.entries(states)) {
    if (!isObject(candidate)) continue;
    if (candidate.Next === name)
      problems.push(
        `${where}: SecondsPath: ${other} reaches it unguarded (only a Choice that checks ${path})`,
      );
    if (candidate.Type !== 'Choice') continue;
    if (candidate.Default === name)
      problems.push(`${where}: SecondsPath: ${other}'s Default reaches it without checking ${path}`);
    const rules = Array.isArray(candidate.Choices) ? candidate.Choices : [];
    for (const rule of rules) {
      if (!isObject(rule) || rule.Next !== name) continue;
      const checks = JSON.stringify(rule);
      const guarded =
        checks.includes(`{"Variable":"${path}","IsPresent":true}`) &&
        checks.includes(`{"Variable":"${path}","IsNumeric":true}`);
      if (!guarded)
        problems.push(
          `${where}: SecondsPath: a rule of ${other} reaches it without IsPresent and IsNumeric on ${path}`,
        );
    }
  }
}

function integerIn(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
