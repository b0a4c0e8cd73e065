/**
 * X-Ray tracing from inside the functions, chosen per deployment. Every function has Lambda active tracing:
 * its invocation segments join the run's trace (docs/deploy.md, "Tracing"). With `traceAwsCalls` the CDK
 * bundles the functions with `process.env.WF_TRACING` defined as 'aws-calls' and the Powertools Tracer adds a
 * subsegment per AWS SDK call and run/owner annotations (tracing-sdk.ts). Without it esbuild drops the
 * Tracer and the X-Ray SDK from the bundles (~125 KB and their import time per function). Unbundled (tests,
 * the local stack) the variable is read at run time; it is unset there, and the Tracer is off outside Lambda.
 */
import type { StoreObserver } from './observed-store.ts';
import * as sdk from './tracing-sdk.ts';

// Each check spells `process.env.WF_TRACING` out: esbuild's define replaces this exact expression.

/** The client, with a subsegment per AWS call when AWS calls are traced. */
export const tracedClient = <C>(client: C): C =>
  process.env.WF_TRACING === 'aws-calls' ? sdk.tracedClient(client) : client;

/** Annotates the invocation with the run it works on, when AWS calls are traced. */
export const tracingObserver: StoreObserver =
  process.env.WF_TRACING === 'aws-calls' ? sdk.tracingObserver : {};

/** `work` in its own annotated subsegment when AWS calls are traced (one owner's part of a sweep). */
export function tracedScope<T>(
  name: string,
  annotations: Record<string, string>,
  work: () => Promise<T>,
): Promise<T> {
  return process.env.WF_TRACING === 'aws-calls' ? sdk.tracedScope(name, annotations, work) : work();
}

/** The handler, in its own annotated subsegment when AWS calls are traced. */
export function tracedHandler<E, C, R>(
  name: string,
  handler: (event: E, context: C) => Promise<R>,
): (event: E, context: C) => Promise<R> {
  return process.env.WF_TRACING === 'aws-calls' ? sdk.tracedHandler(name, handler) : handler;
}
