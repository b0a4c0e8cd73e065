export * from './approvals.ts';
export * from './client.ts';
export * from './dynamo-store.ts';
export * from './errors.ts';
export * from './keys.ts';
export * from './reads.ts';
export * from './runs.ts';
export * from './table.ts';
export { WorkflowConflictError } from './workflows.ts';
