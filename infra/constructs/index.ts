/** The runtime's CDK constructs. */
export * from './alert-topics.ts';
export * from './approval-notices.ts';
export * from './approval-signing-key.ts';
export * from './audit-signing-key.ts';
export * from './credential-reader.ts';
export * from './env-names.ts';
export * from './observability.ts';
export * from './owner-notices.ts';
export * from './run-state-machine.ts';
export * from './run-table.ts';
export * from './runtime-api.ts';
export * from './runtime-function.ts';
export * from './state-names.ts';
export * from './triggers.ts';
export * from './workflow-runtime.ts';
