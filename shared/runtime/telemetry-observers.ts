/**
 * Adapters that turn what flows through the ports into logs and metrics: the store's reads and commits, and
 * the egress guard's refusals. Composition roots wrap their store and egress with these.
 */
import { cutText } from '../core/byte-caps.ts';
import type { EgressPort } from '../core/ports.ts';
import { EgressDeniedError } from '../egress/errors.ts';
import type { GrantScope } from '../jobs/sweep-scope.ts';
import type { StoreObserver } from './observed-store.ts';
import { metricsOfChange } from './run-metrics.ts';
import { recordPoints, type Telemetry } from './telemetry.ts';
import { tracedScope } from './tracing.ts';

/**
 * Run reads put the run's id and owner on the log lines; commits become metrics, and a run that ends is
 * logged once (the commit that ended it). A fault here is logged, never thrown: the change is committed.
 */
export function telemetryObserver(telemetry: Telemetry): StoreObserver {
  const { logger, metrics } = telemetry;
  return {
    runRead(run) {
      logger.appendKeys({ runId: run.runId, owner: run.owner });
    },
    committed(change, run) {
      try {
        const points = metricsOfChange(change);
        recordPoints(metrics, points);
        if (points.some((point) => point.name === 'RunsFinished')) {
          logger.info('run finished', {
            runId: run.runId,
            owner: run.owner,
            status: run.status,
            stopReason: run.stopReason,
            costUsd: run.costUsd,
            modelCalls: run.modelCalls,
          });
        }
        if (points.some((point) => point.name === 'BudgetStops'))
          logger.warn('run stopped by its budget', { runId: run.runId, owner: run.owner });
      } catch (error) {
        logger.warn('could not record the metrics of a commit', { error: (error as Error).name });
      }
    },
  };
}

/** The keys an owner scope puts on its log lines, and those a run read inside it adds. */
const SCOPED_KEYS = ['owner', 'grantId', 'clientId', 'runId'];

/**
 * The jobs sweep's scope for one grant: its log lines carry that grant's owner and ids only, its trace
 * annotations sit on a subsegment of its own, and a fault is logged with those keys before it is rethrown.
 * Every key set inside (the run keys a store read appends too) is removed at the end, so the next grant's
 * lines never carry this grant's owner.
 */
export function grantScope(telemetry: Telemetry): GrantScope {
  const { logger } = telemetry;
  return (grant, work) =>
    tracedScope('### grant', { owner: grant.owner, grantId: grant.grantId }, async () => {
      logger.appendKeys({ owner: grant.owner, grantId: grant.grantId, clientId: grant.clientId });
      try {
        return await work();
      } catch (error) {
        const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
        logger.error('grant not swept', { error: { name, message: cutText(message, 500) } });
        throw error;
      } finally {
        logger.removeKeys(SCOPED_KEYS);
      }
    });
}

/**
 * The same egress port, with each refusal of the guard counted and logged (reason and host only: a URL can
 * carry a signed query string) before it reaches the action as before.
 */
export function observeEgress(egress: EgressPort, telemetry: Telemetry): EgressPort {
  return {
    async request(request) {
      try {
        return await egress.request(request);
      } catch (error) {
        if (error instanceof EgressDeniedError) {
          recordPoints(telemetry.metrics, [{ name: 'EgressDenials', value: 1 }]);
          telemetry.logger.warn('egress denied', { reason: error.reason, host: error.host });
        }
        throw error;
      }
    },
  };
}
