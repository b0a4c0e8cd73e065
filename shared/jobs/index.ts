export * from './deps.ts';
export * from './errors.ts';
export * from './grants.ts';
export { promoteQueued, settleJobOfRun, settleJobRun, sweepJobs } from './lifecycle.ts';
export * from './resolve.ts';
export * from './retry.ts';
export * from './schemas.ts';
export * from './service.ts';
export { type SweepRequest, sweepRequestOf } from './sweep-event.ts';
export {
  type GrantFailure,
  type GrantScope,
  JobsSweepError,
  SWEEP_TIME_MARGIN_MS,
  type SweepDeadline,
  type SweepProgress,
} from './sweep-scope.ts';
