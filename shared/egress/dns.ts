/**
 * Address checks against a policy, and the one resolution per connection whose answers are both checked
 * and dialled (no second lookup, so a rebinding resolver cannot swap the address in between).
 */
import { classifyAddress, isLoopbackAddress, normalizeAddress } from './address.ts';
import { EgressDeniedError } from './errors.ts';
import type { ResolvedPolicy } from './policy.ts';

/**
 * Checks one address for a host and port; returns its canonical spelling. Loopback passes only on an
 * `allowLoopbackPorts` port; any other address must be allowed by class and use an `allowedPorts` port.
 */
export function checkAddress(address: string, host: string, port: number, policy: ResolvedPolicy): string {
  const canonical = normalizeAddress(address);
  if (canonical !== undefined && isLoopbackAddress(canonical) && policy.loopbackPorts.has(port))
    return canonical;
  const verdict = classifyAddress(address);
  if (!verdict.allowed) {
    throw new EgressDeniedError(verdict.reason, { host, address, detail: `in ${verdict.range}` });
  }
  if (canonical === undefined) throw new EgressDeniedError('invalid_address', { host, address });
  if (!policy.allowedPorts.has(port)) {
    throw new EgressDeniedError('port', { host, address, detail: `port ${port} is only open to loopback` });
  }
  return canonical;
}

/** Resolves a name once through the policy's resolver and checks EVERY answer: one bad answer denies all. */
export async function resolveChecked(host: string, port: number, policy: ResolvedPolicy): Promise<string[]> {
  let answers: Awaited<ReturnType<ResolvedPolicy['resolve']>>;
  try {
    answers = await withTimeout(policy.resolve(host), policy.headersTimeoutMs);
  } catch (cause) {
    throw new EgressDeniedError('dns_failure', { host, detail: 'resolution failed' }, cause);
  }
  if (!Array.isArray(answers) || answers.length === 0) {
    throw new EgressDeniedError('dns_failure', { host, detail: 'no addresses' });
  }
  const addresses = answers.map((answer) => checkAddress(String(answer?.address), host, port, policy));
  return [...new Set(addresses)];
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`resolver gave no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
