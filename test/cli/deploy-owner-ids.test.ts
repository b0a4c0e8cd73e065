/**
 * docs/deploy.md tells an operator how to derive their first owner id (for `approvers`) from the ARN
 * `aws sts get-caller-identity` prints, before `wf whoami` can work. Each row of that table is checked against
 * the API's own derivation (shared/api/auth.ts).
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ownerFromIamArn } from '../../shared/api/auth.ts';

const doc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
const table = doc.split('<!-- owner-ids -->')[1]?.split('\n\n')[0] ?? '';
const rows = [...table.matchAll(/^\| `(arn:[^`]+)` \| (?:`([^`]+)`|none)/gm)].map(
  (m) => [m[1]!, m[2]] as const,
);

it('derives each documented owner id from its ARN as the API does', () => {
  expect(rows.length).toBe(4);
  for (const [arn, owner] of rows) expect([arn, ownerFromIamArn('123456789012', arn)]).toEqual([arn, owner]);
});
