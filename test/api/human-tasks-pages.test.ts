/**
 * `GET /v1/human-tasks` stays under Lambda's 6 MB response limit
 * (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html): a task shows up to 20 context
 * values of 4,000 characters, and one DynamoDB Query page (1 MB stored) of such tasks passes it; a page keeps the tasks that fit, and following
 * `nextToken` gives every task once, newest first.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type HumanTask, humanTaskId } from '../../shared/schemas/human-task.ts';
import { LAMBDA_RESPONSE_BYTES, lambdaGet as lambdaGetOf } from '../support/lambda-pages.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow } from '../support/store.ts';
import { apiHarness, ownTableName } from './helpers.ts';

const h = apiHarness({ tableName: await ownTableName() });
/**
 * A context value at its bound (4,000 characters as JSON), shown whole: control characters, stored as one
 * byte each and costing 7 once escaped inside the Lambda result, so DynamoDB's 1 MB Query page alone does
 * not keep the answer under 6 MB.
 */
const CONTROLS = '\u0001'.repeat(666);

async function seedTasks(count: number): Promise<string[]> {
  const clock = new FixedClock();
  const { version } = await seedWorkflow(h.store, minimalWorkflow({ name: 'big-review' }), {
    owner: h.owners.alice,
    clock,
  });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const run = await seedRun(h.store, version, { clock });
    const task: HumanTask = {
      schemaVersion: 1,
      taskId: humanTaskId(run.runId, 'review', 1),
      owner: h.owners.alice,
      runId: run.runId,
      stepId: 'review',
      attempt: 1,
      workflowId: run.workflowId,
      workflowName: run.workflowName,
      workflowVersion: run.workflowVersion,
      title: `Review ${i}`,
      assignees: ['manager@example.com'],
      form: { type: 'object', properties: { approve: { type: 'boolean' } } },
      formHash: 'a'.repeat(64),
      context: Array.from({ length: 20 }, (_, n) => ({
        path: `steps.s${n}.output`,
        value: CONTROLS,
      })),
      status: 'open',
      createdAt: `2026-12-01T${String(8 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00.000Z`,
      expiresAt: '2026-12-02T00:00:00.000Z',
      taskToken: 'secret-task-token',
    };
    await h.store.commit({ run, next: run, humanTaskPut: [{ task }] });
    ids.push(task.taskId);
  }
  return ids.reverse();
}

/** The API behind the Lambda adapter, as API Gateway invokes it: the result whose size Lambda limits. */
const lambdaGet = (path: string) => lambdaGetOf(h.app, h.keys.alice, path);

describe('GET /v1/human-tasks with large tasks', () => {
  let newestFirst: string[];
  beforeAll(async () => {
    newestFirst = await seedTasks(80);
  }, 120_000);

  it('gives every page within a Lambda response, and every task once, newest first', async () => {
    const sizes: number[] = [];
    const ids: string[] = [];
    let token: string | undefined;
    do {
      const query = `limit=100${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`;
      const { result, bytes } = await lambdaGet(`/v1/human-tasks?${query}`);
      expect(result.statusCode).toBe(200);
      sizes.push(bytes);
      const page = JSON.parse(result.body) as { items: HumanTask[]; nextToken?: string };
      ids.push(...page.items.map((task) => task.taskId));
      token = page.nextToken;
    } while (token);
    expect(ids).toEqual(newestFirst);
    expect(sizes.length).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThan(LAMBDA_RESPONSE_BYTES);
    console.log(
      `[human-tasks] 80 tasks, ${sizes.length} pages, largest Lambda result ${Math.max(...sizes)} bytes`,
    );
  });
});
