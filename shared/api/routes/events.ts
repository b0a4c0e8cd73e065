/**
 * `POST /v1/events`: the authenticated event intake. Takes a PutEvents body, stamps every entry with the
 * caller's owner (event-intake.ts) and puts it on the runtime's bus — EventBridge on AWS, where each workflow's
 * rule matches its pattern AND its owner's stamp; the local bus in the local stack. The answer is PutEvents'
 * (`FailedEntryCount`, `Entries`); locally it also lists the runs started.
 */
import { Hono } from 'hono';
import { readJsonBody } from '../body.ts';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { ownedPutEvents } from './event-intake.ts';

export function eventRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post('/', async (c) => {
    const { entries, events } = ownedPutEvents(deps, await readJsonBody(c), c.get('identity').owner);
    if (deps.local?.events) {
      const runs = await deps.local.events.deliver(deps, events);
      return c.json({ FailedEntryCount: 0, Entries: events.map((event) => ({ EventId: event.id })), runs });
    }
    if (!deps.eventBus) throw new ApiError(501, 'not_configured', 'this deployment has no event bus');
    return c.json(await deps.eventBus.put(entries));
  });
  return app;
}
