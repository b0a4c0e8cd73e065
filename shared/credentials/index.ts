export * from './errors.ts';
export * from './file-secrets.ts';
export * from './owner-check.ts';
export * from './owner-key.ts';
export * from './owner-sessions.ts';
export * from './redactor.ts';
export * from './secrets-manager.ts';
export * from './ttl-cache.ts';
