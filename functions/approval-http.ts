/** The approval pages (GET renders, POST decides once) behind API Gateway, with no auth: the signed link is the credential. */
import type { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { createApprovalApp } from '../shared/approvals-http/index.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';

let app: Promise<Hono> | undefined;

export const handler = async (
  event: Parameters<ReturnType<typeof handle>>[0],
  context: Parameters<ReturnType<typeof handle>>[1],
) => {
  app ??= awsRuntime()
    .approvalApp()
    .then((deps) => createApprovalApp(deps))
    .catch((error: unknown) => {
      app = undefined;
      throw error;
    });
  return handle(await app)(event, context);
};
