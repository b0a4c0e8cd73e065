/**
 * What makes a grant valid, and what makes a change a narrowing or a widening. Pure. A narrowing may only
 * take away (actions, models, scopes, lower limits, stricter gates); a widening may only add.
 */
import type { FieldError } from '../workflow-file/errors.ts';
import { definitionFor, grantGateOf } from './resolve.ts';
import type { GrantSpec } from './schemas.ts';

const MODE_RANK = { allow: 0, needs_approval: 1, deny: 2 } as const;

/** Problems with a grant as a source of jobs: every action and model must make a valid agent definition. */
export function grantProblems(grant: GrantSpec): FieldError[] {
  const problems: FieldError[] = [];
  for (const model of grant.models) {
    const parsed = definitionFor(grant, grant.actions, model, grant.maxTurns);
    if (parsed.success) continue;
    for (const issue of parsed.error.issues.slice(0, 5)) {
      const [head, ...rest] = issue.path.map(String);
      const field =
        head === 'allowedActions'
          ? ['actions', ...rest]
          : head === 'prompt'
            ? ['system']
            : head === 'budget'
              ? [rest[0] === 'maxUsdPerRun' ? 'maxUsdPerJob' : (rest[0] ?? 'budget')]
              : head === 'model'
                ? ['models']
                : [head ?? '', ...rest];
      problems.push({ path: ['grant', ...field].join('.'), message: issue.message });
    }
    break;
  }
  return problems;
}

type Comparison = { field: string; message: string } | undefined;

/** The first way `next` is not a narrowing (or, for `widen`, a widening) of `current`; undefined when it is. */
export function directionProblem(
  current: GrantSpec,
  next: GrantSpec,
  direction: 'narrow' | 'widen',
): Comparison {
  const [small, large] = direction === 'narrow' ? [next, current] : [current, next];
  const verb = direction === 'narrow' ? 'a narrowing may not add' : 'a widening may not remove';
  for (const [index, name] of small.actions.entries()) {
    if (!large.actions.includes(name))
      return {
        field: `grant.actions${direction === 'narrow' ? `[${index}]` : ''}`,
        message: `${verb} the action '${name}'`,
      };
    if (MODE_RANK[grantGateOf(small, name)] < MODE_RANK[grantGateOf(large, name)])
      return {
        field: `grant.gates.${name}`,
        message: `${direction === 'narrow' ? 'a narrowing may not loosen' : 'a widening may not tighten'} the gate of '${name}'`,
      };
  }
  for (const model of small.models)
    if (!large.models.includes(model))
      return { field: 'grant.models', message: `${verb} the model '${model}'` };
  for (const scope of small.scopes)
    if (!large.scopes.includes(scope))
      return { field: 'grant.scopes', message: `${verb} the scope '${scope}'` };
  const limits = [
    'maxTurns',
    'maxUsdPerJob',
    'concurrency',
    'maxQueued',
    'maxAttempts',
    'jobTimeoutSeconds',
  ] as const;
  for (const limit of limits)
    if (small[limit] > large[limit])
      return {
        field: `grant.${limit}`,
        message: `${direction === 'narrow' ? 'a narrowing may not raise' : 'a widening may not lower'} ${limit}`,
      };
  const smallDay = small.maxUsdPerDay ?? Number.POSITIVE_INFINITY;
  const largeDay = large.maxUsdPerDay ?? Number.POSITIVE_INFINITY;
  if (smallDay > largeDay)
    return {
      field: 'grant.maxUsdPerDay',
      message: `${direction === 'narrow' ? 'a narrowing may not raise' : 'a widening may not lower'} maxUsdPerDay`,
    };
  if (direction === 'narrow') {
    // What is neither more nor less (the agent's name, prompt, connectors, credentials) changes only by widening.
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    if (next.name !== current.name)
      return { field: 'grant.name', message: 'a narrowing may not rename the agent' };
    if (next.system !== current.system)
      return { field: 'grant.system', message: 'a narrowing may not change the prompt' };
    for (const name of next.actions)
      if (!same(next.connectors[name], current.connectors[name]))
        return { field: `grant.connectors.${name}`, message: 'a narrowing may not change a connector' };
    if (!same(next.credRefs, current.credRefs))
      return { field: 'grant.credRefs', message: 'a narrowing may not change credentials' };
  }
  return undefined;
}
