/**
 * The local stack's console: sign-in with an owner's API key (never a delegated-jobs client's) (the stack's own authenticator), API calls made
 * in-process on the signed-in identity.
 */
import { ownersOnly } from '../api/auth.ts';
import type { Authenticator } from '../api/deps.ts';
import type { Clock } from '../core/ports.ts';
import { sessionTable } from '../local/sessions.ts';
import { createConsoleApp } from './app.ts';
import type { InProcessApi } from './in-process.ts';

export function localConsole(args: {
  authenticator: Authenticator;
  inProcess: InProcessApi;
  fetchApi: (request: Request) => Response | Promise<Response>;
  clock: Clock;
  origin: string;
}) {
  return createConsoleApp({
    api: args.inProcess.connect(args.fetchApi),
    login: async (key) => {
      const probe = new Request('http://local/', { headers: { authorization: `Bearer ${key}` } });
      // Owners only: a delegated-jobs client's key is not a console key (docs/jobs.md).
      return ownersOnly(args.authenticator).authenticate(probe, {});
    },
    sessions: sessionTable(args.clock),
    clock: args.clock,
    origin: args.origin,
  });
}
