/**
 * undici, loaded on the first outbound request rather than with the module: it is ~550 KB of bundle and
 * ~60 ms of CPU to evaluate, and most Lambda invocations (a turn with no HTTP tool call, an alert delivery)
 * never send a request. Loaded once per process; node_modules stays one module instance even in tests that
 * reset their module registry.
 */
export type Undici = typeof import('undici');

let loading: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  loading ??= import('undici').catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
