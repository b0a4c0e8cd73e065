/**
 * The signed pages as one app: the approval pages (`/approvals/*`) and the human-task forms (`/human-tasks/*`),
 * both behind links that are their own credential. The approval-http function serves it on AWS; the local stack
 * mounts the same two apps, and test/e2e/tenancy-routes.test.ts checks each route here is one it probes there.
 */
import type { Hono } from 'hono';
import type { ApprovalAppDeps } from '../approvals-http/deps.ts';
import { createApprovalApp } from '../approvals-http/index.ts';
import { createHumanTaskApp } from './app.ts';
import type { HumanTaskDeps } from './deps.ts';

export function signedPagesApp(approvals: ApprovalAppDeps, tasks: HumanTaskDeps): Hono {
  const pages = createApprovalApp(approvals);
  pages.route('/', createHumanTaskApp(tasks));
  return pages;
}
