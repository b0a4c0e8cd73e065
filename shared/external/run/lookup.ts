/**
 * Which execution to cancel when Start got no usable answer (a timeout, a reset after the request was sent, a
 * 5xx): the start may or may not have admitted one, and no incarnation was learned. The engine is asked which
 * execution holds the run's key (`adapter.find`, a read: nothing is admitted), never sent the start again — a
 * run that is ending must not start the work it gives up, which a re-sent start would do if the first never
 * arrived (and a withdrawn live policy allows nothing more to be sent). What the look-up found is recorded.
 */
import type { ExternalAdapter } from '../contract.ts';
import type { ExternalRunDeps } from './ports.ts';
import type { LoadedExternalRun } from './records.ts';

export type ByKey =
  | { byKey: 'found'; incarnation: string }
  | { byKey: 'not_found' | 'other_payload' | 'unanswered' | 'unsupported'; detail: string };

/**
 * Looks the run's key up; never throws (a fault is `unanswered`: the execution may run, not cancellable now;
 * cancel.ts looks again on its next call, as a look-up admits nothing).
 */
export async function findByKey(deps: ExternalRunDeps, loaded: LoadedExternalRun): Promise<ByKey> {
  const { key, payloadSha256 } = loaded.run.external;
  const why = 'start got no usable answer';
  let adapter: ExternalAdapter;
  try {
    adapter = deps.adapterFor(loaded.run, loaded.definition);
  } catch (error) {
    return { byKey: 'unanswered', detail: `${why}; no adapter: ${(error as Error).message}` };
  }
  if (!adapter.find)
    return { byKey: 'unsupported', detail: `${why} and ${adapter.engine} cannot look executions up by key` };
  try {
    const found = await adapter.find(key);
    if (!found) return { byKey: 'not_found', detail: `${why}; the engine does not know key ${key}` };
    // Our key holds another payload: not the work this run decided, so not ours to stop.
    if (payloadSha256 !== undefined && found.payloadSha256 !== payloadSha256)
      return {
        byKey: 'other_payload',
        detail: `${why}; key ${key} holds another payload (${found.payloadSha256}), not cancelled`,
      };
    return { byKey: 'found', incarnation: found.incarnation };
  } catch (error) {
    return {
      byKey: 'unanswered',
      detail: `${why}, and the engine could not be asked which execution holds key ${key}: ${(error as Error).message}`,
    };
  }
}
