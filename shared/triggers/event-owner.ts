/**
 * Owner-fenced events. Every event that may start a run carries its owner in `detail["wf-owner"]` (the stamp),
 * written by the API's event intake from the caller's verified identity, never from the body. Every workflow's
 * rule matches the workflow's own pattern AND its owner's stamp, so an event of owner B can never start a run
 * of owner A, whatever A's pattern says. Patterns may not touch the stamp themselves.
 */
import type { TriggerIssue } from './errors.ts';
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

/**
 * Where a pattern touches the owner stamp: a `wf-owner` condition inside `detail` (also through `$or`), or a
 * `detail` matched as a whole (the stamp is ANDed into `detail`, so it must be an object pattern). Paths are
 * dotted like the validator's, e.g. `detail.wf-owner` or `$or.1.detail.wf-owner`.
 */
export function patternOwnerIssues(pattern: unknown): TriggerIssue[] {
  const issues: TriggerIssue[] = [];
  const visit = (node: Record<string, unknown>, at: string[], field: string[]) => {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$or') {
        if (Array.isArray(value))
          value.forEach((branch, index) => {
            if (isObject(branch)) visit(branch, [...at, key, String(index)], field);
          });
        continue;
      }
      const here = [...at, key];
      const path = [...field, key];
      if (path.length === 2 && path[0] === 'detail' && key === EVENT_OWNER_KEY) {
        issues.push({
          path: here.join('.'),
          message: `detail.${EVENT_OWNER_KEY} is reserved for the owner stamp the runtime adds to every rule; remove it`,
        });
      } else if (path.length === 1 && key === 'detail' && !isObject(value)) {
        issues.push({
          path: here.join('.'),
          message: `detail must be an object pattern (match fields inside it): the runtime ANDs detail.${EVENT_OWNER_KEY} into it`,
        });
      } else if (path.length === 1 && key === 'detail' && isObject(value)) {
        visit(value, here, path);
      }
    }
  };
  if (isObject(pattern)) visit(pattern, [], []);
  return issues;
}

/**
 * The pattern a workflow's rule really uses: the workflow's pattern AND `detail.wf-owner == owner`. The
 * workflow's pattern must be free of {@link patternOwnerIssues}; any `$or` stays as it is (it is ANDed with
 * the top-level fields, the stamp among them).
 */
export function ownerStampedPattern(pattern: EventPattern, owner: string): EventPattern {
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

/** The owner an event is stamped with, or undefined when it carries no (string) stamp. */
export function eventOwnerOf(event: { detail?: unknown }): string | undefined {
  const stamp = isObject(event.detail) ? event.detail[EVENT_OWNER_KEY] : undefined;
  return typeof stamp === 'string' ? stamp : undefined;
}

/**
 * `detail` with the caller's owner stamp. A detail that already carries a stamp is accepted only when it is the
 * caller's own (e.g. an event being replayed); any other value is refused: a caller cannot speak for another owner.
 */
export function stampDetail(
  detail: Record<string, unknown>,
  owner: string,
): { ok: true; detail: Record<string, unknown> } | { ok: false; issue: TriggerIssue } {
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
