/**
 * The Step Functions and SNS wires (sfn-wire.ts, ../notify/sns-wire.ts) a test file shares: started before its
 * tests, closed after them, and each test starts with no call recorded on either.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type SnsWire, startSnsWire } from '../notify/sns-wire.ts';
import { type SfnWire, startSfnWire } from './sfn-wire.ts';

export type Wires = { readonly sfn: SfnWire; readonly sns: SnsWire };

/** Registers the hooks; the wires are there from `beforeAll` on. */
export function useWires(): Wires {
  const wires = {} as { sfn: SfnWire; sns: SnsWire };
  beforeAll(async () => {
    wires.sfn = await startSfnWire();
    wires.sns = await startSnsWire();
  });
  afterAll(async () => {
    await wires.sfn?.close();
    await wires.sns?.close();
  });
  beforeEach(() => {
    wires.sfn.reset();
    wires.sns.calls.length = 0;
  });
  return wires;
}
