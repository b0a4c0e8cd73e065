/**
 * An external engine's credential read, classified (shared/external/http/client.ts and
 * shared/external/run/redacting-adapter.ts over the Secrets Manager adapter): a read that can never succeed as
 * named (ResourceNotFoundException, AccessDeniedException) is a final refusal naming it, on Start and on every
 * later call — not an unknown observation polled until the unknown deadline; a throttled read is asked again
 * (retryable), never final, even when the read succeeds again right after. A cancel refused so never left: it
 * is not reported as requested.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { httpRuntimeFactory } from '../../shared/external/http/index.ts';
import { ExternalRefusedError } from '../../shared/external/index.ts';
import { redactingAdapter } from '../../shared/external/run/redacting-adapter.ts';
import { answeringSecrets } from '../support/answering-secrets.ts';
import { ENGINE_TOKEN, type FixtureHarness, fixtureHarness, OWNER } from '../support/fixture-harness.ts';
import { FixedClock } from '../support/store.ts';

const SECRET = `wf/${OWNER}/engine-token`;
type Answer = { value: string } | { error: string };

let harness: FixtureHarness;
afterEach(() => harness.close());

/** The run's adapter as adapter-for.ts builds it, its credential read answered by `answer(nth read)`. */
async function adapterReading(answer: (read: number) => Answer) {
  harness = await fixtureHarness();
  let read = 0;
  const secrets = answeringSecrets({
    get [SECRET]() {
      read += 1;
      return answer(read);
    },
  });
  const credential = { owner: OWNER, secret: SECRET };
  const engine = httpRuntimeFactory.create(
    httpRuntimeFactory.settings.parse({ endpoint: harness.engine.url }),
    { ...harness.context, secrets, credential },
  );
  return redactingAdapter(engine, { owner: OWNER, credential, secrets, clock: new FixedClock() });
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(() => undefined).catch((error: unknown) => error);

describe('an external credential that cannot be read', () => {
  it.each(['ResourceNotFoundException', 'AccessDeniedException'])(
    'answered %s: Start, Observe and Cancel are refused for good, naming the refusal, nothing sent',
    async (name) => {
      const adapter = await adapterReading(() => ({ error: name }));

      const answers = [
        await failureOf(adapter.start('k1', {})),
        await failureOf(adapter.observe('k1', 'i1')),
        await failureOf(adapter.cancel('k1', 'i1')),
      ];

      for (const answer of answers) {
        expect(answer).toBeInstanceOf(ExternalRefusedError);
        expect(answer).toMatchObject({ retryable: false });
        expect((answer as Error).message).toContain(`credential ${SECRET} cannot be read`);
        expect((answer as Error).message).toContain(name);
      }
      expect(harness.engine.count()).toBe(0);
      // Start and Cancel were refused before anything left: a cancel refused so is never recorded as asked.
      expect([answers[0], answers[2]]).toMatchObject([{ sent: false }, { sent: false }]);
    },
  );

  it('throttled once on Start: retryable (the state machine asks again with the same key), nothing sent', async () => {
    const adapter = await adapterReading((read) =>
      read === 1 ? { error: 'ThrottlingException' } : { value: ENGINE_TOKEN },
    );

    const refused = await failureOf(adapter.start('k1', {}));

    expect(refused).toMatchObject({ retryable: true });
    expect(harness.engine.count()).toBe(0);
    // Asked again, the read succeeds and the start goes out.
    await adapter.start('k1', {});
    expect(harness.engine.count()).toBe(1);
  });

  it('throttled on Cancel: the facts say it was not requested (nothing left), never a made-up request', async () => {
    const adapter = await adapterReading(() => ({ error: 'ThrottlingException' }));

    const facts = await adapter.cancel('k1', 'i1');

    expect(facts).toMatchObject({ requested: false, acknowledged: false, stopped: false });
    expect(facts.detail).toContain(`credential ${SECRET} could not be loaded now`);
    expect(harness.engine.count()).toBe(0);
  });

  it('throttled on Observe: an unknown observation, polled again', async () => {
    const adapter = await adapterReading(() => ({ error: 'ThrottlingException' }));

    expect(await adapter.observe('k1', 'i1')).toMatchObject({ state: 'unknown', cause: 'transport' });
  });
});
