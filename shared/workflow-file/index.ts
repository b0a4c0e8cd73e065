export * from './errors.ts';
export * from './json-schema.ts';
export * from './parse.ts';
