/**
 * What the local stack's machines and HTTP routes share: the store, the keyring and secrets files (re-read
 * as the secret caches on AWS), the egress guard, the action catalog, and where notices go (the inbox and
 * the terminal).
 */
import { readFileSync } from 'node:fs';
import { cachedKeyring, type KeyringSource } from '../approvals/index.ts';
import type { ApprovalLogger } from '../approvals-http/index.ts';
import type { Clock, EgressPort, SecretsPort } from '../core/ports.ts';
import { fileSecrets, SECRET_CACHE_TTL_MS } from '../credentials/index.ts';
import { createEgress } from '../egress/index.ts';
import {
  consoleNotifier,
  consoleOwnerNotifier,
  type InboxNotifier,
  inboxNotifier,
  type Notifier,
  type OwnerNoticeDeps,
} from '../notify/index.ts';
import { actionCatalogFor } from '../runtime/engine-deps.ts';
import type { DynamoStore } from '../store/index.ts';
import type { LocalFiles } from './files.ts';
import type { LocalStackOptions } from './stack-options.ts';

export type LocalServices = {
  store: DynamoStore;
  clock: Clock;
  /** The stack's HTTP port and base URL (links in notices point here). */
  port: number;
  url: string;
  print: (text: string) => void;
  keyring: KeyringSource;
  secrets: SecretsPort;
  egress: EgressPort;
  publish: { internalHosts: string[] };
  catalog: ReturnType<typeof actionCatalogFor>;
  inbox: InboxNotifier;
  logger: ApprovalLogger;
  notifier: Notifier;
  owners: OwnerNoticeDeps;
};

export async function localServices(
  options: LocalStackOptions,
  base: Pick<LocalServices, 'store' | 'clock' | 'port' | 'url' | 'print'> & { files: LocalFiles },
): Promise<LocalServices> {
  const { store, clock, port, url, print, files } = base;
  const cacheOptions = {
    maxAgeMs: options.secretsMaxAgeMs ?? SECRET_CACHE_TTL_MS,
    nowMs: () => clock.nowMs(),
    // Reading a local file is cheap: a link signed with an unknown key re-reads the keyring every time.
    minRefreshIntervalMs: 0,
  };
  const keyring = cachedKeyring(async () => readFileSync(files.keyring, 'utf8'), cacheOptions);
  await keyring.get(); // a broken keyring file stops the start, not the first approval
  const secrets = fileSecrets(files.secrets, cacheOptions);
  const egress = createEgress({
    allowLoopbackPorts: (options.allowLoopbackPorts ?? []).filter((p) => p !== port),
  });
  const publish = { internalHosts: options.internalHosts ?? [] };
  const catalog = actionCatalogFor(store, { publish });
  const inbox = inboxNotifier();
  // Locally the terminal is the approver's inbox: keep it readable; problems still reach stderr.
  const logger = {
    info: () => undefined,
    warn: (message: string, fields: Record<string, unknown>) =>
      process.stderr.write(`${message} ${JSON.stringify(fields)}\n`),
    error: (message: string, fields: Record<string, unknown>) =>
      process.stderr.write(`${message} ${JSON.stringify(fields)}\n`),
  };
  const notifier: Notifier = {
    channel: 'local',
    // The inbox (owner-fenced) and the terminal reach every approver.
    reaches: () => true,
    async notify(notice) {
      await inbox.notify(notice);
      await consoleNotifier(print).notify(notice);
    },
  };
  // Owner notices (failed, denied, expired, undeliverable): the owner's inbox and the terminal.
  const owners: OwnerNoticeDeps = {
    apiBaseUrl: url,
    notifier: {
      channel: 'local',
      async notifyOwner(notice) {
        await inbox.notifyOwner(notice);
        await consoleOwnerNotifier(print).notifyOwner(notice);
      },
    },
  };
  return {
    store,
    clock,
    port,
    url,
    print,
    keyring,
    secrets,
    egress,
    publish,
    catalog,
    inbox,
    logger,
    notifier,
    owners,
  };
}
