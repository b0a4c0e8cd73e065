/**
 * The Lambda bundles' `ajv/dist/2020.js` (an esbuild alias: `LAMBDA_BUNDLE_ALIASES` in
 * infra/constructs/runtime-function.ts): Ajv itself, evaluated at the first `new Ajv2020(…)` instead of at
 * import. Ajv's ~80 CommonJS modules (and fast-uri's) ran at every cold start of the functions that bundle it
 * (~10 ms of CPU measured on the development machine), although only compiling an owner's JSON Schema needs
 * them (a human-task submission, an agent step's structured output, a graph definition being saved:
 * shared/json-schema/validators.ts). Ajv is a file of its own beside the bundle (`wf-lazy/ajv`,
 * infra/constructs/lazy-libraries.ts), so a cold start does not even parse it. Local mode, the CLI and the tests
 * import the package itself.
 */
import type { Ajv2020 as Ajv2020Class } from 'ajv/dist/2020.js';

type Ajv2020Constructor = typeof Ajv2020Class;

let loaded: Ajv2020Constructor | undefined;

/**
 * `new Ajv2020(options)`: a constructor that returns the package's instance (so `instanceof` this export is
 * false; validators.ts never asks).
 */
export const Ajv2020 = function Ajv2020(...args: ConstructorParameters<Ajv2020Constructor>) {
  // Left external by esbuild; Node finds it in the function's node_modules (lazy-libraries.ts).
  loaded ??= (require('wf-lazy/ajv') as { Ajv2020: Ajv2020Constructor }).Ajv2020;
  return new loaded(...args);
} as unknown as Ajv2020Constructor;
