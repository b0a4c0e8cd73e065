/** Running external work (`kind: external`): the Start / Observe / Finish steps of the external state machine. */
export { abandonExternal } from './abandon.ts';
export { adapterFactory } from './adapter-for.ts';
export { MAX_OBSERVES, nextWaitSeconds } from './backoff.ts';
export { finishExternal } from './finish.ts';
export { executionKeyFor, externalPayloadFor } from './key.ts';
export { observeExternal } from './observe.ts';
export { answerParentIfEnded } from './parent.ts';
export { type ExternalNext, ExternalRetryLaterError, type ExternalRunDeps } from './ports.ts';
export { startExternal } from './start.ts';
