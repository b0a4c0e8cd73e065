export * from './builtins/current-time.ts';
export * from './builtins/notes.ts';
export * from './catalog.ts';
export * from './notes-port.ts';
