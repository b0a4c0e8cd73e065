/**
 * An alert destination may name only a topic the deployment declares (Deliver may publish to those only):
 * any other `destination.topicArn` is refused when the workflow is saved, naming the field, and nothing is
 * written. A topic declared for some owners is another owner's undeclared topic: the same 400, listing only
 * the topics that owner may name (before the fix any owner could point an alert at it).
 */
import { describe, expect, it } from 'vitest';
import { apiHarness, definition, itemsOf, ownTableName } from './helpers.ts';

const DECLARED = 'arn:aws:sns:eu-west-1:123456789012:team-oncall';
const tableName = await ownTableName();
const FOREIGN = 'arn:aws:sns:eu-west-1:123456789012:someone-elses-topic';

describe('POST /v1/workflows: alert topics', () => {
  const h = apiHarness({ alertTopicArns: [DECLARED], tableName });

  it('accepts a declared topic, and an alert without a topic (the default alert topic)', async () => {
    for (const destination of [{ type: 'alert', topicArn: DECLARED }, { type: 'alert' }]) {
      expect((await h.alice.post('/v1/workflows', definition({ destination }))).status).toBe(201);
    }
  });

  it('refuses a topic the deployment does not declare, naming destination.topicArn, and writes nothing', async () => {
    const before = await itemsOf(h.store, h.owners.bob);
    const reply = await h.bob.post(
      '/v1/workflows',
      definition({ destination: { type: 'alert', topicArn: FOREIGN } }),
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toEqual([
      { path: 'destination.topicArn', message: expect.stringContaining(DECLARED) },
    ]);
    expect(await itemsOf(h.store, h.owners.bob)).toBe(before);
  });

  it('refuses it in a new version too', async () => {
    const created = await h.alice.post('/v1/workflows', definition());
    const reply = await h.alice.post(`/v1/workflows/${created.body.workflow.workflowId}/versions`, {
      ...created.body.version.definition,
      destination: { type: 'alert', topicArn: FOREIGN },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields[0].path).toBe('destination.topicArn');
  });

  it('refuses any topic where the deployment declares none', async () => {
    const bare = apiHarness();
    const reply = await bare.alice.post(
      '/v1/workflows',
      definition({ destination: { type: 'alert', topicArn: DECLARED } }),
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields[0]).toEqual({
      path: 'destination.topicArn',
      message: expect.stringContaining('declares no alert topics'),
    });
  });
});

describe('POST /v1/workflows: alert topics declared for some owners', () => {
  const ALICES = 'arn:aws:sns:eu-west-1:123456789012:alice-team';
  const owners = { alice: `alice-${Date.now()}`, bob: `bob-${Date.now()}` };
  const h = apiHarness({
    alertTopicArns: [DECLARED, ALICES],
    alertTopicOwners: { [ALICES]: [owners.alice] },
    owners,
    tableName,
  });
  const alertTo = (topicArn: string) => definition({ destination: { type: 'alert', topicArn } });

  it('accepts the topic for an owner it is declared for', async () => {
    expect((await h.alice.post('/v1/workflows', alertTo(ALICES))).status).toBe(201);
  });

  it('refuses it for another owner exactly as an undeclared topic, naming only their own topics', async () => {
    const before = await itemsOf(h.store, h.owners.bob);
    const foreign = await h.bob.post('/v1/workflows', alertTo(ALICES));
    const undeclared = await h.bob.post('/v1/workflows', alertTo(FOREIGN));
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.fields).toEqual([
      {
        path: 'destination.topicArn',
        message: `must be one of the alert topics this deployment declares for you: ${DECLARED}`,
      },
    ]);
    expect(undeclared.body.error.fields).toEqual(foreign.body.error.fields);
    expect(await itemsOf(h.store, h.owners.bob)).toBe(before);
  });

  it('still lets every owner name a topic declared without owners', async () => {
    expect((await h.bob.post('/v1/workflows', alertTo(DECLARED))).status).toBe(201);
  });
});
