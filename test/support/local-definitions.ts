/** The local stack's state machines synthesized once for the test run (test/setup/local-definitions.ts). */
import { inject } from 'vitest';
import type { LocalDefinitions } from '../../infra/local-definition.ts';

/** A fresh copy for one stack (a stack may change its own). */
export function testDefinitions(): LocalDefinitions {
  return JSON.parse(inject('localDefinitions')) as LocalDefinitions;
}
