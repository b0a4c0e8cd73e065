import type { ApprovalAppDeps, ApprovalLogger } from './deps.ts';
import type { PageLoads } from './page-loads.ts';

/** The deps as the routes use them: a logger is always there, and this container's kept page reads. */
export type AppContext = Omit<ApprovalAppDeps, 'logger'> & { logger: ApprovalLogger; pageLoads: PageLoads };
