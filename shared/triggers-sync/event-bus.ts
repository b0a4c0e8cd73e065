/**
 * The event bus port of `POST /v1/events`: puts already owner-stamped entries on the runtime's custom bus. On
 * AWS that is EventBridge `PutEvents` (the api function's grant; the bus policy admits only this account's
 * principals), whose rules then match each workflow's pattern AND its owner's stamp.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ENV } from '../../infra/constructs/env-names.ts';
import { recordAwsCallsFromEnv as recorded } from '../runtime/aws-call-recorder.ts';
import type { PutEventsEntry } from '../triggers/index.ts';
import { TriggerSyncConfigError } from './errors.ts';

/** PutEvents' answer, entry by entry: an event id, or an error code and message for a refused entry. */
export type PutEventsResult = {
  FailedEntryCount: number;
  Entries: { EventId?: string; ErrorCode?: string; ErrorMessage?: string }[];
};

/** Puts entries on the bus; the caller has stamped and validated them. */
export interface EventBus {
  put(entries: PutEventsEntry[]): Promise<PutEventsResult>;
}

/** The client, as far as the bus uses it (an `EventBridgeClient` fits). */
export type EventBusClient = { send(command: PutEventsCommand): Promise<PutEventsResult | object> };

/** EventBridge PutEvents to `eventBusName`; every entry is sent to that bus, whatever it named. */
export function awsEventBus(eventBusName: string, client: EventBusClient): EventBus {
  return {
    async put(entries) {
      const output = (await client.send(
        new PutEventsCommand({
          Entries: entries.map(({ Time, ...entry }) => ({
            ...entry,
            ...(Time === undefined ? {} : { Time: new Date(Time) }),
            EventBusName: eventBusName,
          })),
        }),
      )) as Partial<PutEventsResult>;
      const answered = (output.Entries ?? []).map((entry) => ({
        ...(entry.EventId ? { EventId: entry.EventId } : {}),
        ...(entry.ErrorCode ? { ErrorCode: entry.ErrorCode } : {}),
        ...(entry.ErrorMessage ? { ErrorMessage: entry.ErrorMessage } : {}),
      }));
      return { FailedEntryCount: output.FailedEntryCount ?? 0, Entries: answered };
    },
  };
}

/** The AWS event bus named by the environment the CDK `Triggers` construct sets (the api Lambda). */
export function awsEventBusFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): EventBus {
  const name = env[ENV.eventBusName];
  if (!name)
    throw new TriggerSyncConfigError(`the event intake needs the environment variable ${ENV.eventBusName}`);
  return awsEventBus(name, recorded(new EventBridgeClient({})));
}
