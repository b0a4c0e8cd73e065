/**
 * The context of cdk.json (feature flags), for apps built in-process (tests, the local definition): the CLI
 * passes it to `node infra/app.ts`, an in-process `new App()` would not see it and could synthesize otherwise.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './constructs/runtime-function.ts';

/** The `context` object of the repository's cdk.json. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return { ...cdkJson.context };
}
