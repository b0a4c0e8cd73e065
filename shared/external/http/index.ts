/** The built-in HTTP runtime adapter (`http-runtime`), its protocol, settings and guarded transport. */
export { createHttpRuntimeAdapter, HTTP_RUNTIME_ENGINE, httpRuntimeFactory } from './adapter.ts';
export { createGuardedHttp } from './guarded-http.ts';
export * from './protocol.ts';
export * from './settings.ts';
