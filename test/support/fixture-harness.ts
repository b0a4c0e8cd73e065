/**
 * The conformance harness of the HTTP runtime adapter: a fixture engine on loopback, the adapter built by
 * the registry with the real egress guard (reaching exactly the fixture's port), a real file-backed secrets
 * port holding the owner's engine token, and a fixed clock.
 */
import { FixtureEngine } from '../../shared/external/fixture-engine/index.ts';
import { httpRuntimeFactory } from '../../shared/external/http/adapter.ts';
import { createGuardedHttp } from '../../shared/external/http/guarded-http.ts';
import {
  type AdapterContext,
  createEngineRegistry,
  type ExternalAdapter,
} from '../../shared/external/index.ts';
import { secretsFile } from '../actions/support.ts';
import type { ConformanceHarness } from './external-conformance.ts';
import { FixedClock } from './store.ts';

/** The owner the adapter acts for, and the engine token in its secrets. */
export const OWNER = 'owner-test';
export const ENGINE_TOKEN = 'wfsecret-EngineToken-Zq81+Lk/2Pw=';
export const CALLBACK_KEY = 'wfsecret-CallbackKey-Hm4u7Yt02Rq';

export type FixtureHarness = ConformanceHarness & { engine: FixtureEngine; context: AdapterContext };

/** A fixture engine and an `http-runtime` adapter for it; `wrap` substitutes another adapter around it. */
export async function fixtureHarness(
  options: {
    wrap?: (adapter: ExternalAdapter) => ExternalAdapter;
    settings?: Record<string, unknown>;
    /** The workflow's credential secret. @default 'wf/owner-test/engine-token' */
    credentialSecret?: string;
  } = {},
): Promise<FixtureHarness> {
  const engine = await FixtureEngine.start();
  const registry = createEngineRegistry([httpRuntimeFactory], {
    'http-runtime': {
      enabled: true,
      settings: { endpoint: engine.url, ...options.settings },
    },
  });
  const context: AdapterContext = {
    owner: OWNER,
    credential: { owner: OWNER, secret: options.credentialSecret ?? 'wf/owner-test/engine-token' },
    clock: new FixedClock(),
    secrets: secretsFile({
      'wf/owner-test/engine-token': ENGINE_TOKEN,
      'wf/owner-test/engine-callback': CALLBACK_KEY,
    }),
    http: createGuardedHttp({ allowLoopbackPorts: [engine.port] }),
  };
  const built = registry.create('http-runtime', context);
  const adapter = options.wrap ? options.wrap(built) : built;
  return {
    adapter,
    engine,
    context,
    script: (key, script) => void engine.script(key, script),
    fault(kind) {
      if (kind === 'unreachable') engine.fault({ kind: 'drop' });
      else if (kind === 'server_error') engine.fault({ kind: 'status', status: 500 });
      else engine.fault({ kind: 'drop_after' }, { route: 'dispatch', times: 1 });
    },
    restore: () => void engine.clearFaults(),
    recreate: () => void engine.restart(),
    close: () => engine.close(),
  };
}
