export { createApprovalApp } from './app.ts';
export type { ApprovalAppDeps, ApprovalLogger } from './deps.ts';
export { consoleLogger, publicBaseUrlFrom } from './deps.ts';
export { ApprovalNotifyError, TaskTokenSendError } from './errors.ts';
export type { RequestApprovalDeps, RequestApprovalResult } from './request-approval.ts';
export { requestApproval } from './request-approval.ts';
export { MAX_FORM_BYTES } from './route-decide.ts';
export type { SfnTaskTokensOptions, TaskTokenAnswer, TaskTokensPort } from './task-tokens.ts';
export { CLOSED_TOKEN_ERRORS, isTransientSfnError, sfnTaskTokens } from './task-tokens.ts';
