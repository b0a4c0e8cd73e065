/**
 * X-Ray subsegments from inside the Lambda functions (Powertools Tracer), bundled only in deployments with
 * `traceAwsCalls` (tracing.ts): the AWS SDK clients the composition root builds, and one `## <handler>`
 * subsegment per invocation annotated with the run and its owner.
 *
 * The Tracer switches itself off outside Lambda (no `AWS_EXECUTION_ENV`), so the local stack and the tests
 * load this module but trace nothing. HTTP(S) capture is off on purpose: outbound action requests must leave
 * exactly as the egress guard approved them, without an X-Ray trace header sent to third parties.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import type { StoreObserver } from './observed-store.ts';

const tracer = new Tracer({ captureHTTPsRequests: false });

/** The client, with a subsegment per AWS call when tracing is on. */
export const tracedClient = <C>(client: C): C => tracer.captureAWSv3Client(client);

/** Annotates the invocation with the run it works on; X-Ray can then filter traces by run and owner. */
export const tracingObserver: StoreObserver = {
  runRead(run) {
    tracer.putAnnotation('runId', run.runId);
    tracer.putAnnotation('owner', run.owner);
  },
};

/**
 * Runs `work` in its own subsegment annotated with `annotations`: an invocation that serves several owners (the
 * jobs sweep) gives each its own, so a run read inside annotates that owner's subsegment, never the invocation's
 * (annotations on subsegments are indexed like a segment's:
 * https://docs.aws.amazon.com/xray/latest/devguide/xray-api-segmentdocuments.html#api-segmentdocuments-annotations).
 */
export async function tracedScope<T>(
  name: string,
  annotations: Record<string, string>,
  work: () => Promise<T>,
): Promise<T> {
  return inSubsegment(name, work, () => {
    for (const [key, value] of Object.entries(annotations)) tracer.putAnnotation(key, value);
  });
}

/** Runs `work` in a new subsegment of the current segment (once `annotate` ran), recording its error. */
async function inSubsegment<T>(name: string, work: () => Promise<T>, annotate: () => void): Promise<T> {
  const parent = tracer.isTracingEnabled() ? tracer.getSegment() : undefined;
  if (!parent) return work();
  const segment = parent.addNewSubsegment(name);
  tracer.setSegment(segment);
  annotate();
  try {
    return await work();
  } catch (error) {
    tracer.addErrorAsMetadata(error as Error);
    throw error;
  } finally {
    segment.close();
    tracer.setSegment(parent);
  }
}

/**
 * Wraps a handler so each invocation runs in its own subsegment: the Lambda facade segment takes no
 * annotations. Errors are recorded on the subsegment and rethrown; responses are not recorded (they can hold
 * approval pages and run data).
 */
export function tracedHandler<E, C, R>(
  name: string,
  handler: (event: E, context: C) => Promise<R>,
): (event: E, context: C) => Promise<R> {
  return (event, context) =>
    inSubsegment(
      `## ${name}`,
      () => handler(event, context),
      () => {
        tracer.annotateColdStart();
        tracer.addServiceNameAnnotation();
      },
    );
}
