export * from './cancel-run.ts';
export * from './execution-arn.ts';
export * from './ports.ts';
export * from './resume-run.ts';
export * from './start-run.ts';
