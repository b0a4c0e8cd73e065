/** Small parts the local stack's modules share. */
import { withFunctionName } from '../runtime/aws-call-recorder.ts';

/** The local stand-in of Lambda function `name`: its handler runs with that name for the call recorder. */
export const asFunction =
  <A extends unknown[], R>(name: string, handler: (...args: A) => R) =>
  (...args: A): R =>
    withFunctionName(name, () => handler(...args));

/** Every Task state retries after `retryMs` locally (Step Functions' intervals, scaled down). */
export const retryEvery = (functionByState: Record<string, string>, retryMs: number) =>
  Object.fromEntries(Object.keys(functionByState).map((state) => [state, retryMs]));

/** What the stack closes on stop, in reverse order of starting. */
export class Closers {
  readonly #closers: (() => Promise<void> | void)[] = [];

  push(close: () => Promise<void> | void): void {
    this.#closers.push(close);
  }

  async closeAll(): Promise<void> {
    for (const close of this.#closers.reverse()) await close();
  }
}
