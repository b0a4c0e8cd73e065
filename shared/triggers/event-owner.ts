/**
 * Owner-fenced events. Every event that may start a run carries its owner in `detail["wf-owner"]` (the stamp),
 * written by the API's event intake from the caller's verified identity, never from the body. Every workflow's
 * rule matches the workflow's own pattern AND its owner's stamp, so an event of owner B can never start a run
 * of owner A, whatever A's pattern says. Patterns may not touch the stamp themselves.
 */
import { EventPatternError, type TriggerIssue } from './errors.ts';
import type { EventPattern } from './event-pattern-types.ts';

/** The reserved field of `detail` holding the owner stamp. */
export const EVENT_OWNER_KEY = 'wf-owner';

/**
 * EventBridge's default quota on the size of a rule's event pattern, in characters (adjustable up to 4,096).
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html ("Event pattern size"), and
 * https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutRule.html (`EventPattern`).
 */
export const MAX_EVENT_PATTERN_CHARS = 2048;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The stamp's flattened field name. EventBridge reads dots in field names as nesting (event-flatten.ts). */
const STAMP_PATH = `detail.${EVENT_OWNER_KEY}`;

/** True when a flattened field name is the stamp or a field inside it, however the name was spelled. */
function touchesStamp(path: string): boolean {
  return path === STAMP_PATH || path.startsWith(`${STAMP_PATH}.`);
}

/**
 * Where a pattern touches the owner stamp: a condition whose flattened name is `detail.wf-owner` or lies
 * inside it, whether written nested or with dots (`{"detail.wf-owner": ..}`, `{"detail": {"wf-owner.x": ..}}`),
 * also through `$or`; or a `detail` matched as a whole (the stamp is ANDed into `detail`, so it must be an
 * object pattern). Paths are dotted like the validator's, e.g. `detail.wf-owner` or `$or.1.detail.wf-owner`.
 */
export function patternOwnerIssues(pattern: unknown): TriggerIssue[] {
  const issues: TriggerIssue[] = [];
  const visit = (node: Record<string, unknown>, at: string[], names: string[]) => {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$or') {
        if (Array.isArray(value))
          value.forEach((branch, index) => {
            if (isObject(branch)) visit(branch, [...at, key, String(index)], names);
          });
        continue;
      }
      const here = [...at, key];
      const path = [...names, key].join('.');
      if (touchesStamp(path)) {
        issues.push({
          path: here.join('.'),
          message: `${path} is reserved: detail.${EVENT_OWNER_KEY} holds the owner stamp the runtime adds to every rule (a dot in a field name is nesting); remove it`,
        });
      } else if (path === 'detail' && !isObject(value)) {
        issues.push({
          path: here.join('.'),
          message: `detail must be an object pattern (match fields inside it): the runtime ANDs detail.${EVENT_OWNER_KEY} into it`,
        });
      } else if (isObject(value)) {
        visit(value, here, [...names, key]);
      }
    }
  };
  if (isObject(pattern)) visit(pattern, [], []);
  return issues;
}

/**
 * The pattern a workflow's rule really uses: the workflow's pattern AND `detail.wf-owner == owner`. Any `$or`
 * stays as it is (it is ANDed with the top-level fields, the stamp among them). A pattern that touches the stamp
 * (see {@link patternOwnerIssues}; refused when saved) throws: no rule is ever made from it.
 */
export function ownerStampedPattern(pattern: EventPattern, owner: string): EventPattern {
  const issues = patternOwnerIssues(pattern);
  if (issues.length > 0) throw new EventPatternError(issues);
  const detail = isObject(pattern.detail) ? (pattern.detail as EventPattern) : {};
  return { ...pattern, detail: { ...detail, [EVENT_OWNER_KEY]: [owner] } };
}

/** The stamped pattern as sent to PutRule, or an issue when it is longer than EventBridge accepts. */
export function stampedPatternSizeIssue(pattern: EventPattern, owner: string): TriggerIssue | undefined {
  const length = JSON.stringify(ownerStampedPattern(pattern, owner)).length;
  if (length <= MAX_EVENT_PATTERN_CHARS) return undefined;
  return {
    path: '',
    message: `the pattern is ${length} characters with the owner stamp added; EventBridge accepts at most ${MAX_EVENT_PATTERN_CHARS} (shorten it, e.g. fewer values or shorter field names)`,
  };
}

/** Detail keys other than the stamp itself that EventBridge would flatten into it, e.g. `wf-owner.x`. */
function keysInsideStamp(detail: Record<string, unknown>): string[] {
  return Object.keys(detail).filter((key) => key.startsWith(`${EVENT_OWNER_KEY}.`));
}

/** The owner an event is stamped with, or undefined when it carries no (string) stamp or keys inside it. */
export function eventOwnerOf(event: { detail?: unknown }): string | undefined {
  if (!isObject(event.detail) || keysInsideStamp(event.detail).length > 0) return undefined;
  const stamp = event.detail[EVENT_OWNER_KEY];
  return typeof stamp === 'string' ? stamp : undefined;
}

/**
 * `detail` with the caller's owner stamp. A detail that already carries a stamp is accepted only when it is the
 * caller's own (e.g. an event being replayed); any other value is refused: a caller cannot speak for another owner.
 * Keys that EventBridge would read as fields inside the stamp (`wf-owner.x`: dots are nesting) are refused too.
 */
export function stampDetail(
  detail: Record<string, unknown>,
  owner: string,
): { ok: true; detail: Record<string, unknown> } | { ok: false; issue: TriggerIssue } {
  const inside = keysInsideStamp(detail)[0];
  if (inside !== undefined) {
    return {
      ok: false,
      issue: {
        path: inside,
        message: `${inside} would be read as a field inside ${EVENT_OWNER_KEY} (a dot in a field name is nesting), which the runtime sets from your identity; rename it`,
      },
    };
  }
  if (EVENT_OWNER_KEY in detail && detail[EVENT_OWNER_KEY] !== owner) {
    return {
      ok: false,
      issue: {
        path: EVENT_OWNER_KEY,
        message: `${EVENT_OWNER_KEY} is set by the runtime from your identity; leave it out`,
      },
    };
  }
  return { ok: true, detail: { ...detail, [EVENT_OWNER_KEY]: owner } };
}
