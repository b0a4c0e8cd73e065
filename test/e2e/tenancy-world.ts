/**
 * The world of the tenancy check (tenancy-routes.test.ts): one local stack with owners A and B
 * (tenancy-stack.ts), A's objects of every kind (tenancy-world-a.ts), B's own (tenancy-world-b.ts), their
 * approval and human-task links and forms (tenancy-links.ts), and B signed in to the console. The ids a probe
 * sends are in tenancy-ids.ts; how it is sent, tenancy-request.ts.
 */
import { settled } from './tenancy-compare.ts';
import { markLeakable } from './tenancy-ids.ts';
import { signInConsoleB, startTenancyStack, stopTenancyStack } from './tenancy-stack.ts';
import { makeObjectsOfA } from './tenancy-world-a.ts';
import { makeObjectsOfB } from './tenancy-world-b.ts';

/** Starts the stack and makes A's and B's objects, once per test file; `stopTenancyWorld` stops it. */
export async function startTenancyWorld(): Promise<void> {
  await startTenancyStack();
  await makeObjectsOfA();
  await makeObjectsOfB();
  markLeakable();
  await signInConsoleB();
  await settled();
}

export const stopTenancyWorld = stopTenancyStack;
