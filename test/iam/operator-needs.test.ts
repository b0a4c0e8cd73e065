/**
 * The operator's steps the stack deliberately leaves out (test/iam/operator-needs.ts): no role of the stack holds
 * their actions, and docs/deploy.md tells the operator each one (and no longer a retired step).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { synthRuntime } from '../infra/synth.ts';
import { OPERATOR_NEEDS } from './operator-needs.ts';

const DEPLOY_DOC = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');

/** Every action any identity policy of the template allows (inline role policies and AWS::IAM::Policy). */
function grantedActions(template: ReturnType<typeof synthRuntime>['template']): string[] {
  const documents = [
    ...Object.values(template.findResources('AWS::IAM::Policy')).map(
      (policy) => policy.Properties.PolicyDocument,
    ),
    ...Object.values(template.findResources('AWS::IAM::Role')).flatMap((role) =>
      (role.Properties.Policies ?? []).map((policy: { PolicyDocument: unknown }) => policy.PolicyDocument),
    ),
  ] as { Statement: { Effect: string; Action: string | string[] }[] }[];
  return documents.flatMap((document) =>
    document.Statement.filter((statement) => statement.Effect === 'Allow').flatMap((statement) =>
      [statement.Action].flat(),
    ),
  );
}

/** Whether a granted action (maybe with `*`) covers `action`. */
const covers = (granted: string, action: string): boolean =>
  new RegExp(`^${granted.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`, 'i').test(action);

describe('Operator needs', () => {
  // The Bedrock deployment is the one whose Turn calls third-party models.
  const granted = grantedActions(synthRuntime({ modelProvider: 'bedrock' }).template);

  it.each(OPERATOR_NEEDS.map((need) => [need.topic, need] as const))(
    '%s: no role of the stack holds it',
    (_, need) => {
      expect(granted.length).toBeGreaterThan(0);
      for (const action of need.actions)
        expect(
          granted.filter((each) => covers(each, action)),
          action,
        ).toEqual([]);
    },
  );

  it.each(OPERATOR_NEEDS.map((need) => [need.topic, need] as const))(
    '%s: docs/deploy.md has the step',
    (_, need) => {
      for (const phrase of need.documented) expect(DEPLOY_DOC, phrase).toContain(phrase);
      for (const phrase of need.retired ?? []) expect(DEPLOY_DOC, phrase).not.toContain(phrase);
    },
  );
});
