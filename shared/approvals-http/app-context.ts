import type { ApprovalAppDeps, ApprovalLogger } from './deps.ts';

/** The deps as the routes use them: a logger is always there. */
export type AppContext = Omit<ApprovalAppDeps, 'logger'> & { logger: ApprovalLogger };
