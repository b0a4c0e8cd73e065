/** current_time: the runtime's clock, optionally in a time zone. */

import type { Action } from '../../core/actions.ts';
import * as z from '../../zod.ts';

export const currentTimeAction: Action = {
  name: 'current_time',
  description: 'Get the current date and time, in UTC or in an IANA time zone.',
  input: z.strictObject({
    timezone: z._default(z.string(), 'UTC').check(
      z.refine((zone) => {
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: zone });
          return true;
        } catch {
          return false;
        }
      }, 'must be an IANA time zone such as Europe/Berlin'),
      z.describe('IANA time zone, default UTC.'),
    ),
  }),
  idempotent: true,
  irreversible: false,
  async run(input, ctx) {
    const { timezone } = input as { timezone: string };
    const now = new Date(ctx.clock.nowMs());
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: timezone,
      dateStyle: 'full',
      timeStyle: 'long',
    }).format(now);
    return { content: `${now.toISOString()} (UTC); in ${timezone}: ${local}`, isError: false };
  },
};
