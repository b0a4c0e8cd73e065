/**
 * Vitest global setup: the local stack's state machines, synthesized once per test run (the CDK app's import and
 * its synthesis are seconds of CPU, which every test file that starts a local stack paid again in its own
 * process). Test supports pass them to the stack (`definitions`, through test/support/local-definitions.ts); a
 * file that starts a stack without them synthesizes its own, as `wf local up` does.
 */
import type { TestProject } from 'vitest/node';
import { synthesizeLocalDefinitions } from '../../infra/local-definition.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `synthesizeLocalDefinitions()` as JSON. */
    localDefinitions: string;
  }
}

export default function setup(project: TestProject) {
  project.provide('localDefinitions', JSON.stringify(synthesizeLocalDefinitions()));
}
