export * from './errors.ts';
export * from './file-secrets.ts';
export * from './redactor.ts';
export * from './secrets-manager.ts';
