/**
 * Adapters that turn what flows through the ports into logs and metrics: the store's reads and commits, and
 * the egress guard's refusals. Composition roots wrap their store and egress with these.
 */
import type { EgressPort } from '../core/ports.ts';
import { EgressDeniedError } from '../egress/errors.ts';
import type { StoreObserver } from './observed-store.ts';
import { metricsOfChange } from './run-metrics.ts';
import { recordPoints, type Telemetry } from './telemetry.ts';

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
