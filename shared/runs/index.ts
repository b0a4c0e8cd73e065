export * from './cancel-run.ts';
export * from './ports.ts';
export * from './resume-run.ts';
export * from './start-run.ts';
