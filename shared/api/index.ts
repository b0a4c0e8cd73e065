export * from '../core/storable.ts';
export * from './app.ts';
export * from './auth.ts';
export * from './deps.ts';
export * from './errors.ts';
export * from './openapi.ts';
export * from './schemas.ts';
