export * from './ports.ts';
export * from './start-run.ts';
export * from './cancel-run.ts';
