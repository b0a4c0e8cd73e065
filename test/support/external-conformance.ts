/**
 * The conformance kit of external engine adapters (docs/external-engines.md, "Conformance kit"): every
 * adapter runs it against its engine or the engine's fixture. `describeAdapterConformance` registers one
 * vitest test per check; `runConformance` runs the checks programmatically and reports each, so a test can
 * show that a broken adapter fails the right check.
 */
import { describe, it } from 'vitest';
import { admissionChecks } from './external-conformance/checks-admission.ts';
import { artifactChecks } from './external-conformance/checks-artifacts.ts';
import { cancelChecks } from './external-conformance/checks-cancel.ts';
import { incarnationChecks } from './external-conformance/checks-incarnation.ts';
import { statusChecks } from './external-conformance/checks-status.ts';
import type { ConformanceCheck, MakeHarness } from './external-conformance/harness.ts';

export type {
  ConformanceCheck,
  ConformanceFault,
  ConformanceHarness,
  MakeHarness,
} from './external-conformance/harness.ts';

/** Every check of the kit, in order. */
export const CONFORMANCE_CHECKS: readonly ConformanceCheck[] = [
  ...admissionChecks,
  ...statusChecks,
  ...cancelChecks,
  ...artifactChecks,
  ...incarnationChecks,
];

/** Runs one check on a fresh harness, closing it whatever happens. */
async function runCheck(check: ConformanceCheck, make: MakeHarness): Promise<void> {
  const harness = await make();
  try {
    await check.run(harness);
  } finally {
    await harness.close();
  }
}

/** Registers the kit as a vitest suite: one test per check, each on a fresh adapter and engine. */
export function describeAdapterConformance(name: string, make: MakeHarness): void {
  describe(`Conformance: ${name}`, () => {
    it.each(CONFORMANCE_CHECKS.map((check) => [check.name, check] as const))('%s', async (_name, check) => {
      await runCheck(check, make);
    });
  });
}

/** The verdict of one check. */
export type CheckResult = { name: string; passed: boolean; error?: Error };

/** Runs every check and reports each (never throws for a failing check). */
export async function runConformance(make: MakeHarness): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of CONFORMANCE_CHECKS) {
    try {
      await runCheck(check, make);
      results.push({ name: check.name, passed: true });
    } catch (error) {
      results.push({ name: check.name, passed: false, error: error as Error });
    }
  }
  return results;
}
